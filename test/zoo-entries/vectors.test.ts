import {readdirSync, readFileSync, statSync} from 'node:fs';
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
