/** The exact rule's first wrong element (lib/bundle/exact.ts), for JavaScript and Python bundles alike. */
import {spawnSync} from 'node:child_process';
import {cpSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {elementValue, type ElementType} from '../../dist/lib/index.js';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';

const exactJs = path.join(fixtures, 'bundle/exact-multi');
const exactPy = path.join(fixtures, 'bundle/exact-multi-python');
/** The interpreter behind `python3` (a pyenv shim costs a second per start). */
const python = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], {encoding: 'utf8'}).stdout.trim();

const CTORS = {total: Int32Array, scaled: Float64Array, mean: Float32Array, big: BigInt64Array} as const;
type Result = keyof typeof CTORS;

/** Read out/<case>/<result>.bin, change it, write it back. */
function edit<R extends Result>(dir: string, i: number, result: R, change: (values: InstanceType<(typeof CTORS)[R]>) => void): void {
  const file = path.join(dir, 'out', String(i).padStart(6, '0'), `${result}.bin`);
  const bytes = Uint8Array.from(readFileSync(file));
  change(new CTORS[result](bytes.buffer) as InstanceType<(typeof CTORS)[R]>);
  writeFileSync(file, bytes);
}

// Point R = 3, C = 4, seeds 0-5; the values are those of test/fixtures/bundle/exact-multi's oracle
// for these seeds, checked with numpy: case 1's total is [1570, -1649, 170]; case 2's scaled[1, 2]
// is 87.125 (next double 87.12500000000001); case 3's mean[0] is f32 -23.425 (one ulp nearer 0:
// -23.424997); case 4's big[2, 3] is -938 * 2^40 + 2^62 = 4610654676520534016; case 5's total[1]
// is -2340. 30 elements per case: 3 + 12 + 3 + 12.
const VERDICTS =
  '{"cases": [\n' +
  '  {"i": 0, "passed": true, "metrics": {"rule": "exact"}},\n' +
  '  {"i": 1, "passed": false, "metrics": {"rule": "exact", "wrong": 1, "of": 30, "first": {"result": "total", "index": [2], "flat": 2, "expected": 170, "got": 171}}},\n' +
  '  {"i": 2, "passed": false, "metrics": {"rule": "exact", "wrong": 1, "of": 30, "first": {"result": "scaled", "index": [1, 2], "flat": 6, "expected": 87.125, "got": 87.12500000000001}}},\n' +
  '  {"i": 3, "passed": false, "metrics": {"rule": "exact", "wrong": 1, "of": 30, "first": {"result": "mean", "index": [0], "flat": 0, "expected": -23.425, "got": -23.424997}}},\n' +
  '  {"i": 4, "passed": false, "metrics": {"rule": "exact", "wrong": 1, "of": 30, "first": {"result": "big", "index": [2, 3], "flat": 11, "expected": "4610654676520534016", "got": "4610654676520534017"}}},\n' +
  '  {"i": 5, "passed": false, "metrics": {"rule": "exact", "wrong": 13, "of": 30, "first": {"result": "total", "index": [1], "flat": 1, "expected": -2340, "got": -2341}}}\n' +
  ']}\n';

describe('the exact rule names the first wrong element', () => {
  it('in the same verdicts.json bytes for a JavaScript and a Python bundle: an int off by one, a 2-D double, an f32, an i64 beyond 2^53, several results wrong', () => {
    for (const bundle of [exactJs, exactPy]) {
      const dir = path.join(tempDir(), 'w');
      const made = runCli(['bundle', bundle, 'make', dir, '--point', '{"R": 3, "C": 4}', '--seeds', '0-5'], {env: {ARBOR_PYTHON: python}});
      expect(made.code, made.stderr).toBe(0);
      cpSync(path.join(dir, 'expected'), path.join(dir, 'out'), {recursive: true});
      edit(dir, 1, 'total', (t) => (t[2]! += 1));
      // Only the second result is wrong: one ulp up.
      edit(dir, 2, 'scaled', (s) => new BigInt64Array(s.buffer)[6]!++);
      edit(dir, 3, 'mean', (m) => new Uint32Array(m.buffer)[0]!--);
      edit(dir, 4, 'big', (b) => (b[11]! += 1n));
      edit(dir, 5, 'total', (t) => (t[1]! -= 1));
      edit(dir, 5, 'scaled', (s) => s.forEach((v, k) => (s[k] = -v)));
      const verified = runCli(['bundle', bundle, 'verify', dir], {env: {ARBOR_PYTHON: python}});
      expect(verified.code, verified.stderr).toBe(0);
      expect([bundle, readFileSync(path.join(dir, 'verdicts.json'), 'utf8')]).toEqual([bundle, VERDICTS]);
    }
  });

  it("writes each record as Python's json.dumps does (so a Python implementation writes the same bytes)", () => {
    const lines = VERDICTS.split('\n')
      .slice(1, -2)
      .map((line) => line.trim().replace(/,$/, ''));
    const script = 'import json, sys\nfor line in sys.stdin.read().splitlines(): print(json.dumps(json.loads(line)))';
    const redumped = spawnSync(python, ['-c', script], {input: lines.join('\n'), encoding: 'utf8'});
    expect(redumped.stdout.trim().split('\n')).toEqual(lines);
  });

  it('gives each element type its exact value: 64-bit beyond 2^53 as strings, f32 at its shortest, -0, NaN and infinities as strings', () => {
    const value = (type: ElementType, array: ArrayBufferView) => elementValue(type, new Uint8Array(array.buffer));
    expect(value('i8', Int8Array.of(-128))).toBe(-128);
    expect(value('u16', Uint16Array.of(65535))).toBe(65535);
    expect(value('u32', Uint32Array.of(4294967295))).toBe(4294967295);
    expect(value('i64', BigInt64Array.of(-(2n ** 53n) + 1n))).toBe(-(2 ** 53) + 1);
    expect(value('i64', BigInt64Array.of(-(2n ** 63n)))).toBe('-9223372036854775808');
    expect(value('u64', BigUint64Array.of(2n ** 64n - 1n))).toBe('18446744073709551615');
    expect(value('u64', BigUint64Array.of(2n ** 53n))).toBe('9007199254740992');
    expect(value('f32', Float32Array.of(0.1))).toBe(0.1);
    expect(value('f32', Float32Array.of(3.4028234663852886e38))).toBe(3.4028235e38);
    expect(value('f32', Float32Array.of(1e-45))).toBe(1e-45);
    expect(value('f64', Float64Array.of(0.1 + 0.2))).toBe(0.30000000000000004);
    expect(value('f64', Float64Array.of(5e-324))).toBe(5e-324);
    for (const type of ['f32', 'f64'] as const) {
      const Ctor = type === 'f32' ? Float32Array : Float64Array;
      expect([-0, NaN, Infinity, -Infinity].map((v) => value(type, Ctor.of(v)))).toEqual(['-0', 'NaN', 'Infinity', '-Infinity']);
    }
  });
});
