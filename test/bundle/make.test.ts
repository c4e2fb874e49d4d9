import {createHash} from 'node:crypto';
import {existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {runCli, tempDir} from '../helpers/cli.js';
import {bundleCopy, golden, rowsum, sortExact} from './helpers.js';

function make(bundle: string, dir: string, point: string, seeds: string) {
  return runCli(['bundle', bundle, 'make', dir, '--point', point, '--seeds', seeds]);
}

function tree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, {recursive: true, encoding: 'utf8'})
    .map((p) => p.split(path.sep).join('/'))
    .sort();
}

describe('arbor bundle make', () => {
  it.skipIf(!existsSync('/proc/self'))('refuses a work directory on a pseudo file system (exit 2, nothing written)', () => {
    const result = runCli(['bundle', sortExact, 'make', '/proc/arbor-work', '--point', '{"N":3}', '--seeds', '0'], {timeout: 20_000});
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'arbor: cannot write the work directory under /proc: it is a pseudo file system, expected a folder on a disk\n',
    });
  });

  it('reproduces the golden work directory byte for byte (Python-written)', () => {
    const dir = path.join(tempDir(), 'w');
    const result = make(sortExact, dir, '{"N": 5}', '0-2,7');
    expect(result).toMatchObject({code: 0, stdout: ''});
    expect(result.stderr).toBe(`arbor: made 4 cases in ${dir}\n`);
    expect(tree(dir)).toEqual(tree(path.join(golden, 'sort-exact')));
    for (const file of tree(dir).filter((f) => f.includes('.'))) {
      expect(readFileSync(path.join(dir, file)).equals(readFileSync(path.join(golden, 'sort-exact', file))), file).toBe(true);
    }
    expect(readFileSync(path.join(dir, 'manifest.json'), 'utf8')).toBe('{"point": {"N": 5}, "cases": 4}\n');
  });

  it('numbers cases by seed position and writes only cases/ for the arguments', () => {
    const dir = path.join(tempDir(), 'w');
    expect(make(rowsum, dir, '{"D": 2, "N": 3}', '4,1').code).toBe(0);
    for (const c of ['000000', '000001']) {
      for (const f of ['a.bin', 't.bin']) {
        expect(readFileSync(path.join(dir, 'cases', c, f)).equals(readFileSync(path.join(golden, 'rowsum-verify/cases', c, f)))).toBe(true);
      }
      expect(readFileSync(path.join(dir, 'expected', c, 'sums.bin')).length).toBe(3 * 8);
      expect(readFileSync(path.join(dir, 'expected', c, 'above.bin')).length).toBe(8);
    }
    // The point is written in signature order, whatever order --point used.
    expect(JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'))).toEqual({point: {N: 3, D: 2}, cases: 2});
    expect(Object.keys(JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')).point)).toEqual(['N', 'D']);
  });

  it('takes seeds above 2^53 - 1 exactly, keying the stream on their digits', async () => {
    // Each case holds the stream's first block as bytes: SHA-256 of `SPEC|seed|0`.
    const bundle = await bundleCopy(sortExact, {'generate.mjs': 'export default (p, s) => ({x: new Float64Array(s.bytes(8 * p.N).buffer)});'});
    const dir = path.join(tempDir(), 'w');
    const seeds = ['9007199254740993', '18446744073709551616', '9007199254740992'];
    const result = make(bundle, dir, '{"N": 4}', seeds.join(','));
    expect(result.stderr).toBe(`arbor: made 3 cases in ${dir}\n`);
    seeds.forEach((seed, k) => {
      const block = createHash('sha256').update(`test/sort-exact@1.0.0|${seed}|0`).digest();
      expect(readFileSync(path.join(dir, 'cases', `00000${k}`, 'x.bin'))).toEqual(block);
    });
    expect(make(bundle, dir, '{"N": 4}', '18446744073709551616-18446744073709551617,18446744073709551616').stderr).toMatch(
      /lists seed 18446744073709551616 twice/,
    );
  });

  it('says where it is when a make takes more than a second, one line a second at most', async () => {
    // Each case's generator sleeps 0.6 s: the progress starts with case 2 or 3 and stays on stderr.
    const sleepy = 'export default (p, s) => { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 600); return {x: s.float64s(p.N)}; };';
    const bundle = await bundleCopy(sortExact, {'generate.mjs': sleepy});
    const dir = path.join(tempDir(), 'w');
    const result = make(bundle, dir, '{"N": 4}', '0-3');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines.at(-1)).toBe(`arbor: made 4 cases in ${dir}`);
    const progress = lines.slice(0, -1);
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress.length).toBeLessThanOrEqual(3);
    for (const line of progress)
      expect(line).toMatch(/^arbor: make: case [2-4] of 4, (generate|write cases|oracle|write expected) \((64|96|128|160|192) bytes of 256 bytes written\)$/);
  });

  describe('usage errors (exit 2, one line, nothing written)', () => {
    const cases: [string, string, string, RegExp][] = [
      ['not JSON', '{N: 5}', '0', /--point is not valid JSON/],
      ['an array', '[5]', '0', /--point must be a JSON object/],
      ['a number', '5', '0', /--point must be a JSON object/],
      ['lacking a parameter', '{}', '0', /--point lacks parameter N/],
      ['with an extra parameter', '{"N": 5, "M": 1}', '0', /--point has unknown parameter M/],
      ['giving a parameter twice', '{"N": 5, "N": 6}', '0', /--point gives N more than once/],
      ['giving a parameter twice, once escaped', '{"N": 5 , "\\u004e" : 6}', '0', /--point gives N more than once/],
      ['out of range (low)', '{"N": 0}', '0', /--point N = 0 is out of range, expected 1\.\.1000000/],
      ['out of range (high)', '{"N": 1000001}', '0', /out of range/],
      ['not an integer', '{"N": 2.5}', '0', /--point N must be an integer/],
      ['a string value', '{"N": "5"}', '0', /--point N must be an integer/],
      ['an integral float (Python reads a float)', '{"N": 2.0}', '0', /--point N must be an integer in 1\.\.1000000, got 2\.0 \(a float in JSON; write 2\)$/m],
      ['an exponent', '{"N": 1e1}', '0', /--point N must be an integer in 1\.\.1000000, got 1e1 \(a float in JSON; write 10\)$/m],
      ['a negative exponent', '{"N": 5E-0}', '0', /got 5E-0 \(a float in JSON; write 5\)$/m],
      ['an integer beyond 2^53, digits kept', '{"N": 12345678901234567890}', '0', /--point N = 12345678901234567890 is out of range, expected 1\.\.1000000$/m],
      ['empty seeds', '{"N": 5}', '', /--seeds "" is empty/],
      ['descending seeds', '{"N": 5}', '7-2', /descending range 7-2/],
      ['a word', '{"N": 5}', 'a', /"a", which is not a seed/],
      ['a negative seed', '{"N": 5}', '-1', /"-1", which is not a seed/],
      ['duplicate seeds', '{"N": 5}', '0-3,2', /lists seed 2 twice/],
    ];
    it.each(cases)('--point/--seeds %s', (_name, point, seeds, message) => {
      const dir = path.join(tempDir(), 'w');
      const result = make(sortExact, dir, point, seeds);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/^arbor: /);
      expect(existsSync(dir)).toBe(false);
    });

    it('a 100 KB key or value is clipped in the message, not echoed in full', () => {
      const key = 'k'.repeat(100_000);
      const half = key.slice(0, 50_000); // one argument holds at most 128 KiB
      for (const point of [`{"${key}": 1, "N": 5}`, `{"N": 5, "${half}": 1, "${half}": 2}`, `{"N": "${key}"}`, `{${key}}`]) {
        const result = make(sortExact, path.join(tempDir(), 'w'), point, '0');
        expect(result.code).toBe(2);
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
        expect(result.stderr.length).toBeLessThan(400);
        expect(result.stderr).toMatch(/kkkk… \(\d+ characters\)/);
      }
    });

    it('a missing --point or --seeds', () => {
      expect(runCli(['bundle', sortExact, 'make', '/tmp/never', '--seeds', '0'])).toMatchObject({code: 2, stderr: expect.stringMatching(/make needs --point/)});
      expect(runCli(['bundle', sortExact, 'make', '/tmp/never', '--point', '{"N":1}'])).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/make needs --seeds/),
      });
      expect(runCli(['bundle', sortExact, 'make', '--point', '{"N":1}', '--seeds', '0'])).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/make needs a work directory/),
      });
      expect(existsSync('/tmp/never')).toBe(false);
    });

    it('a bundle folder that does not exist, or has no marker', () => {
      const empty = tempDir();
      expect(runCli(['bundle', path.join(empty, 'nope'), 'info'])).toMatchObject({code: 2, stderr: expect.stringMatching(/does not exist or is not a folder/)});
      expect(runCli(['bundle', empty, 'info'])).toMatchObject({code: 2, stderr: expect.stringMatching(/fherma\.toml is missing/)});
    });
  });

  describe('refused points (exit 1, with the size, nothing written)', () => {
    const big = (toml: string) => toml.replace('max = 1000000', 'max = 4503599627370496').replaceAll('type = "f64"', 'type = "u8"');
    it('a tensor larger than one array can hold', async () => {
      const bundle = await bundleCopy(sortExact, {}, {edit: big});
      const dir = path.join(tempDir(), 'w');
      const result = make(bundle, dir, '{"N": 4503599627370496}', '0');
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        'arbor: the point {"N":4503599627370496} needs a tensor of 4194304.0 GiB (4503599627370496 bytes), above the 4.0 GiB (4294967296 bytes) one array can hold\n',
      );
      expect(existsSync(dir)).toBe(false);
    });
    it('more memory per case than is available', async () => {
      const many = (toml: string) =>
        big(toml).replace(
          '[[results]]',
          Array.from({length: 100}, (_, k) => `[[args]]\nname = "x${k}"\ntype = "u8"\ndims = ["N"]\n\n`).join('') + '[[results]]',
        );
      const bundle = await bundleCopy(sortExact, {}, {edit: many});
      const dir = path.join(tempDir(), 'w');
      const result = make(bundle, dir, '{"N": 4294967296}', '0');
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/needs 408\.0 GiB \(438086664192 bytes\) of memory per case, but only .* is available\n$/);
      expect(existsSync(dir)).toBe(false);
    });
    it('more than the free disk', async () => {
      const bundle = await bundleCopy(sortExact);
      const dir = path.join(tempDir(), 'w');
      const result = make(bundle, dir, '{"N": 1000000}', '0-999999');
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/with 1000000 cases needs 14901\.2 GiB \(16000000000000 bytes\) on disk, but only .* is free/);
      expect(existsSync(dir)).toBe(false);
    });
  });

  describe('authored functions that fail (exit 1, named, no manifest)', () => {
    const failing: [string, Record<string, string>, RegExp][] = [
      [
        'generate throws',
        {'generate.mjs': 'export default (p, s) => { if (s.seed === 7) throw new RangeError("seed seven"); return {x: s.float64s(p.N)}; };'},
        /generate \(generate\.mjs\) threw for seed 7 \(case 000003\): RangeError: seed seven/,
      ],
      [
        'oracle throws (async)',
        {'oracle.mjs': 'export default async (p, a) => { throw new TypeError("no sort today"); };'},
        /oracle \(oracle\.mjs\) threw for seed 0 \(case 000000\): TypeError: no sort today/,
      ],
      [
        'generate returns the wrong class',
        {'generate.mjs': 'export default (p, s) => ({x: new Float32Array(p.N)});'},
        /generate \(generate\.mjs\) for seed 0 \(case 000000\) returned x as Float32Array, expected Float64Array \(f64\)/,
      ],
      [
        'generate returns the wrong length',
        {'generate.mjs': 'export default (p, s) => ({x: new Float64Array(p.N + 1)});'},
        /returned x with 6 elements, expected 5 \(dims \[N\] at \{"N":5\}\)/,
      ],
      [
        'generate returns a plain array',
        {'generate.mjs': 'export default (p, s) => ({x: [1, 2, 3, 4, 5]});'},
        /returned x as Array, expected Float64Array \(f64\)/,
      ],
      ['generate misses a binding', {'generate.mjs': 'export default (p, s) => ({});'}, /did not return x; the signature has x/],
      [
        'generate adds a binding',
        {'generate.mjs': 'export default (p, s) => ({x: new Float64Array(p.N), z: new Float64Array(1)});'},
        /returned unknown binding z; the signature has x/,
      ],
      [
        'oracle returns nothing',
        {'oracle.mjs': 'export default () => undefined;'},
        /oracle \(oracle\.mjs\) for seed 0 \(case 000000\) returned undefined, expected an object \{y\}/,
      ],
      ['generate has no default export', {'generate.mjs': 'export const g = 1;'}, /generator .*generate\.mjs must have a default export that is a function/],
      ['generate does not load', {'generate.mjs': 'export default (;'}, /cannot load the generator .*generate\.mjs: SyntaxError/],
    ];
    it.each(failing)('%s', async (_name, files, message) => {
      const bundle = await bundleCopy(sortExact, files);
      const dir = path.join(tempDir(), 'w');
      const result = make(bundle, dir, '{"N": 5}', '0-2,7');
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(existsSync(path.join(dir, 'manifest.json'))).toBe(false);
    });
  });

  it('remaking replaces the old work directory: manifest first, stale cases, expected/, out/ and verdicts.json removed', () => {
    const dir = path.join(tempDir(), 'w');
    expect(make(sortExact, dir, '{"N": 5}', '0-3').code).toBe(0);
    mkdirSync(path.join(dir, 'out/000003'), {recursive: true});
    writeFileSync(path.join(dir, 'out/000003/y.bin'), 'stale');
    writeFileSync(path.join(dir, 'verdicts.json'), '{}');
    writeFileSync(path.join(dir, 'notes.txt'), 'mine');
    expect(make(sortExact, dir, '{"N": 3}', '5,6').code).toBe(0);
    expect(tree(dir)).toEqual(
      [
        'cases',
        'cases/000000',
        'cases/000000/x.bin',
        'cases/000001',
        'cases/000001/x.bin',
        'expected',
        'expected/000000',
        'expected/000000/y.bin',
        'expected/000001',
        'expected/000001/y.bin',
        'manifest.json',
        'notes.txt',
      ].sort(),
    );
  });

  it('a failed remake leaves no manifest (never a mix of old and new cases)', async () => {
    const bundle = await bundleCopy(sortExact, {
      'generate.mjs': 'export default (p, s) => { if (s.seed === 2) throw new Error("boom"); return {x: s.float64s(p.N)}; };',
    });
    const dir = path.join(tempDir(), 'w');
    expect(make(bundle, dir, '{"N": 5}', '0-1').code).toBe(0);
    expect(make(bundle, dir, '{"N": 5}', '0-3').code).toBe(1);
    expect(existsSync(path.join(dir, 'manifest.json'))).toBe(false);
  });
});
