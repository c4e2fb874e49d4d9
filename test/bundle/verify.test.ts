import {cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {runCli, tempDir} from '../helpers/cli.js';
import {bundleCopy, rowsum, sortExact} from './helpers.js';

function made(bundle: string, point: string, seeds: string): string {
  const dir = path.join(tempDir(), 'w');
  const result = runCli(['bundle', bundle, 'make', dir, '--point', point, '--seeds', seeds]);
  expect(result.code, result.stderr).toBe(0);
  return dir;
}

function verify(bundle: string, dir: string) {
  const result = runCli(['bundle', bundle, 'verify', dir]);
  const file = path.join(dir, 'verdicts.json');
  return {
    ...result,
    text: existsSync(file) ? readFileSync(file, 'utf8') : undefined,
    verdicts: existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined,
  };
}

function answer(dir: string, i: string, name: string, bytes: Uint8Array | Buffer): void {
  mkdirSync(path.join(dir, 'out', i), {recursive: true});
  writeFileSync(path.join(dir, 'out', i, name), bytes);
}

describe('arbor bundle verify (exact rule)', () => {
  it('one verdict per case, in order: pass, wrong elements, wrong length, no answer', () => {
    const dir = made(sortExact, '{"N": 5}', '0-3');
    answer(dir, '000000', 'y.bin', readFileSync(path.join(dir, 'expected/000000/y.bin')));
    const wrong = Buffer.from(readFileSync(path.join(dir, 'expected/000001/y.bin')));
    wrong[0]! ^= 1; // element 0 differs in one byte
    wrong[39]! ^= 0x80; // element 4 differs in its sign bit
    answer(dir, '000001', 'y.bin', wrong);
    answer(dir, '000002', 'y.bin', Buffer.alloc(12));
    const result = verify(sortExact, dir);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`arbor: 1 of 4 cases passed; verdicts in ${dir}/verdicts.json\n`);
    expect(result.verdicts).toEqual({
      cases: [
        {i: 0, passed: true, metrics: {rule: 'exact'}},
        // The first of the two: element 0, its lowest mantissa bit flipped (values checked with numpy).
        {
          i: 1,
          passed: false,
          metrics: {rule: 'exact', wrong: 2, of: 5, first: {result: 'y', index: [0], flat: 0, expected: 0.061988223491849515, got: 0.06198822349184952}},
        },
        {i: 2, passed: false, note: 'out/000002/y.bin is 12 bytes, expected 40 (5 × f64)'},
        {i: 3, passed: false, note: 'no answer'},
      ],
    });
    // Field order and layout: one record per line, Python's separators.
    expect(result.text).toBe(
      '{"cases": [\n' +
        '  {"i": 0, "passed": true, "metrics": {"rule": "exact"}},\n' +
        '  {"i": 1, "passed": false, "metrics": {"rule": "exact", "wrong": 2, "of": 5, "first": {"result": "y", "index": [0], "flat": 0, "expected": 0.061988223491849515, "got": 0.06198822349184952}}},\n' +
        '  {"i": 2, "passed": false, "note": "out/000002/y.bin is 12 bytes, expected 40 (5 × f64)"},\n' +
        '  {"i": 3, "passed": false, "note": "no answer"}\n' +
        ']}\n',
    );
    expect(readdirSync(dir).sort()).toEqual(['cases', 'expected', 'manifest.json', 'out', 'verdicts.json']);
  });

  it('NaN never passes, even where expected/ holds the same NaN bytes', () => {
    const dir = made(sortExact, '{"N": 2}', '0');
    const nan = new Float64Array([NaN, 1]);
    writeFileSync(path.join(dir, 'expected/000000/y.bin'), Buffer.from(nan.buffer));
    answer(dir, '000000', 'y.bin', Buffer.from(nan.buffer));
    expect(verify(sortExact, dir).verdicts.cases).toEqual([{i: 0, passed: false, metrics: {rule: 'exact'}, note: 'out/000000/y.bin holds 1 NaN value'}]);
  });

  it('an empty out/NNNNNN/ folder or an unreadable answer is "no answer"', () => {
    const dir = made(sortExact, '{"N": 2}', '0-1');
    mkdirSync(path.join(dir, 'out/000000'), {recursive: true});
    mkdirSync(path.join(dir, 'out/000001/y.bin'), {recursive: true}); // a folder where the file should be
    expect(verify(sortExact, dir).verdicts.cases).toEqual([
      {i: 0, passed: false, note: 'no answer'},
      {i: 1, passed: false, note: 'no answer'},
    ]);
  });
});

describe('arbor bundle verify (verifier)', () => {
  it('hands point, args, expected, actual and [accept] to the verifier; metrics are its own', () => {
    const dir = made(rowsum, '{"N": 3, "D": 2}', '0-1');
    cpSync(path.join(dir, 'expected'), path.join(dir, 'out'), {recursive: true});
    const sums = new Float64Array(Uint8Array.from(readFileSync(path.join(dir, 'expected/000001/sums.bin'))).buffer);
    sums[2]! += 0.5;
    answer(dir, '000001', 'sums.bin', new Uint8Array(sums.buffer));
    const result = verify(rowsum, dir);
    expect(result.code).toBe(0);
    expect(result.verdicts.cases[0]).toEqual({i: 0, passed: true, metrics: {worst: 0, wrong: 0, of: 3, above: true}});
    expect(result.verdicts.cases[1]).toMatchObject({i: 1, passed: false, metrics: {wrong: 1, of: 3, above: true}});
  });

  it('fails a NaN answer that a naive verifier would pass, keeping its metrics', () => {
    const dir = made(rowsum, '{"N": 3, "D": 2}', '0');
    cpSync(path.join(dir, 'expected'), path.join(dir, 'out'), {recursive: true});
    answer(dir, '000000', 'sums.bin', new Uint8Array(new Float64Array([NaN, NaN, NaN]).buffer));
    expect(verify(rowsum, dir).verdicts.cases).toEqual([
      {i: 0, passed: false, metrics: {worst: 0, wrong: 0, of: 3, above: true}, note: 'out/000000/sums.bin holds 3 NaN values'},
    ]);
  });

  it('records a verifier that throws as "error": "<Type>: <message>", per case, exit 0', async () => {
    const bundle = await bundleCopy(rowsum, {}, {edit: (toml) => toml.replace('tolerance = 1e-9', '')});
    const dir = made(bundle, '{"N": 3, "D": 2}', '0-1');
    cpSync(path.join(dir, 'expected'), path.join(dir, 'out'), {recursive: true});
    rmSync(path.join(dir, 'out/000001'), {recursive: true});
    const result = verify(bundle, dir);
    expect(result.code).toBe(0);
    expect(result.verdicts.cases).toEqual([
      {i: 0, passed: false, error: 'RangeError: accept.tolerance is missing'},
      {i: 1, passed: false, note: 'no answer'},
    ]);
  });

  it('records a verifier that returns a bad shape as an error', async () => {
    const bundle = await bundleCopy(rowsum, {'verify.mjs': 'export default () => ({ok: true});'});
    const dir = made(bundle, '{"N": 1, "D": 1}', '0');
    cpSync(path.join(dir, 'expected'), path.join(dir, 'out'), {recursive: true});
    expect(verify(bundle, dir).verdicts.cases).toEqual([
      {i: 0, passed: false, error: 'BundleError: verify returned Object without a boolean `passed`, expected {passed, metrics}'},
    ]);
  });
});

describe('arbor bundle verify: the bundle cannot run (non-zero, no verdicts.json)', () => {
  it('no manifest: exit 2', () => {
    const dir = tempDir();
    const result = verify(sortExact, dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `arbor: ${dir}/manifest.json is missing: ${dir} is not a finished work directory (run make; an interrupted make leaves no manifest)\n`,
    );
    expect(result.text).toBeUndefined();
  });

  it('a work directory that does not exist, or is a file: exit 2, naming it', () => {
    const missing = path.join(tempDir(), 'nope');
    expect(verify(sortExact, missing)).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `arbor: work directory ${missing} does not exist: make it first (arbor bundle <bundle-dir> make ${missing} --point … --seeds …)\n`,
    });
    const file = path.join(tempDir(), 'file.bin');
    writeFileSync(file, 'x');
    expect(verify(sortExact, file)).toMatchObject({code: 2, stdout: '', stderr: `arbor: work directory ${file} is a file, expected the folder make wrote\n`});
  });

  it('a verify that fails removes the verdicts.json of an earlier run first', () => {
    const dir = made(sortExact, '{"N": 2}', '0-1');
    expect(verify(sortExact, dir).code).toBe(0);
    expect(existsSync(path.join(dir, 'verdicts.json'))).toBe(true);
    rmSync(path.join(dir, 'expected/000001'), {recursive: true});
    expect(verify(sortExact, dir)).toMatchObject({code: 1, text: undefined});
    writeFileSync(path.join(dir, 'verdicts.json'), '{"cases": []}\n');
    rmSync(path.join(dir, 'manifest.json'));
    expect(verify(sortExact, dir)).toMatchObject({code: 2, text: undefined});
  });

  it('a manifest whose point the bundle does not accept: exit 2', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'manifest.json'), '{"point": {"N": 0}, "cases": 1}');
    expect(verify(sortExact, dir)).toMatchObject({code: 2, stderr: expect.stringMatching(/holds a point this bundle does not accept: N = 0 is out of range/)});
  });

  it('an incomplete expected/: exit 1', () => {
    const dir = made(sortExact, '{"N": 2}', '0-1');
    rmSync(path.join(dir, 'expected/000001'), {recursive: true});
    const result = verify(sortExact, dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/expected\/ is incomplete: .*expected\/000001\/y\.bin is missing \(run make again\)/);
    expect(result.text).toBeUndefined();
  });
});

describe('file-system failures are one clear line (exit 2)', () => {
  it('make into a path under a regular file', () => {
    const file = path.join(tempDir(), 'file');
    writeFileSync(file, '');
    const result = runCli(['bundle', sortExact, 'make', path.join(file, 'w'), '--point', '{"N": 1}', '--seeds', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^arbor: cannot mkdir .*file\/w in the work directory .*: ENOTDIR/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('verify when verdicts.json cannot be replaced: no temp file left behind', () => {
    const dir = made(sortExact, '{"N": 1}', '0');
    mkdirSync(path.join(dir, 'verdicts.json'));
    const result = runCli(['bundle', sortExact, 'verify', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^arbor: cannot rename .* EISDIR/);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
