import {cpSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {runCli, tempDir} from '../helpers/cli.js';
import {generateCase, loadEntry, zoo} from './harness.js';

const entries = ['algotune_knn', 'polymul_negacyclic', 'relu_poly', 'toeplitz_solve'];

function files(dir: string, prefix = ''): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => (statSync(path.join(dir, name)).isDirectory() ? files(path.join(dir, name), `${prefix}${name}/`) : [`${prefix}${name}`]));
}

describe.each(entries)('%s known-answer vectors', (name) => {
  const bundle = path.join(zoo, name, 'bundle');
  const vectors = path.join(bundle, 'vectors/tiny');
  const point = JSON.parse(readFileSync(path.join(vectors, 'manifest.json'), 'utf8')).point;

  it('arbor bundle make reproduces vectors/tiny byte for byte', () => {
    const dir = path.join(tempDir(), 'tiny');
    const made = runCli(['bundle', bundle, 'make', dir, '--point', JSON.stringify(point), '--seeds', '0-1']);
    expect(made.stderr).not.toMatch(/error/i);
    expect(made.code).toBe(0);
    expect(files(dir)).toEqual(files(vectors));
    for (const file of files(vectors)) {
      expect(readFileSync(path.join(dir, file)).equals(readFileSync(path.join(vectors, file))), file).toBe(true);
    }
  });

  it('an independent stream implementation draws the same cases', async () => {
    const entry = await loadEntry(name);
    for (const seed of [0, 1]) {
      const args = await generateCase(entry, point, seed);
      for (const binding of entry.args) {
        const tensor = args[binding.name]!;
        const file = readFileSync(path.join(vectors, 'cases', String(seed).padStart(6, '0'), `${binding.name}.bin`));
        expect(Buffer.from(tensor.buffer, tensor.byteOffset, tensor.byteLength).equals(file), `${binding.name} seed ${seed}`).toBe(true);
      }
    }
  });

  it('arbor bundle info reads the marker (fingerprint current)', () => {
    const info = runCli(['bundle', bundle, 'info']);
    expect(info.code).toBe(0);
    expect(JSON.parse(info.stdout).spec).toBe(`zoo/${name}@1.0.0`);
    expect(info.stderr).toBe('');
  });
});

describe('verdicts on the known-answer vectors through arbor bundle verify', () => {
  function workDir(name: string): string {
    const dir = path.join(tempDir(), 'work');
    cpSync(path.join(zoo, name, 'bundle/vectors/tiny'), dir, {recursive: true});
    cpSync(path.join(dir, 'expected'), path.join(dir, 'out'), {recursive: true});
    return dir;
  }
  const verdicts = (name: string, dir: string) => {
    const run = runCli(['bundle', path.join(zoo, name, 'bundle'), 'verify', dir]);
    expect(run.code).toBe(0);
    return JSON.parse(readFileSync(path.join(dir, 'verdicts.json'), 'utf8')).cases;
  };

  it.each(['algotune_knn', 'polymul_negacyclic', 'toeplitz_solve'])('%s: the oracle answer passes', (name) => {
    for (const verdict of verdicts(name, workDir(name))) expect(verdict.passed).toBe(true);
  });

  it('polymul_negacyclic: a coefficient left unreduced (c + q) fails byte equality', () => {
    const dir = workDir('polymul_negacyclic');
    const file = path.join(dir, 'out/000001/c.bin');
    const c = new Uint32Array(new Uint8Array(readFileSync(file)).buffer);
    const q = new Uint32Array(new Uint8Array(readFileSync(path.join(dir, 'cases/000001/q.bin'))).buffer)[0]!;
    c[3] = c[3]! + q;
    writeFileSync(file, c);
    const [first, second] = verdicts('polymul_negacyclic', dir);
    expect(first.passed).toBe(true);
    expect(second.passed).toBe(false);
  });

  it('toeplitz_solve: an answer of the wrong length is a failing case with a note', () => {
    const dir = workDir('toeplitz_solve');
    writeFileSync(path.join(dir, 'out/000000/x.bin'), new Float64Array(4));
    const [first] = verdicts('toeplitz_solve', dir);
    expect(first.passed).toBe(false);
    expect(first.note).toBeTruthy();
  });
});
