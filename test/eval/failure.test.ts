// A failed case explains itself: the first wrong element, in words (lib/eval/failure.ts), on
// stderr and per case in the --json-file report.
import {cpSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {explainFailure} from '../../lib/eval/failure.js';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';

const speed = path.join(fixtures, 'eval/prefix-speed');

/** prefix-speed at N = 2000, with `verify` as its verifier (none: the exact rule), and a solution off by one at element 4. */
function offByOne(verify?: string): {dir: string; solution: string} {
  const dir = path.join(tempDir(), 'bench');
  cpSync(speed, dir, {recursive: true});
  rmSync(path.join(dir, 'arbor.lock')); // an author's change, not an agent's
  const plan = path.join(dir, 'plan.toml');
  writeFileSync(plan, readFileSync(plan, 'utf8').replace('points = [ { N = 200000 } ]', 'points = [ { N = 2000 } ]'));
  if (verify === undefined) {
    rmSync(path.join(dir, 'bundle/verify.mjs'));
    const marker = path.join(dir, 'bundle/fherma.toml');
    writeFileSync(marker, readFileSync(marker, 'utf8').replace('verify = "verify.mjs"\n', ''));
  } else {
    writeFileSync(path.join(dir, 'bundle/verify.mjs'), verify);
  }
  const solution = path.join(dir, 'off.py');
  writeFileSync(
    solution,
    'import numpy as np\n\n\ndef init(point):\n    return None\n\n\ndef run(state, inputs):\n' +
      '    s = np.cumsum(inputs["x"], dtype=np.float64)\n    s[4] += 1\n    return {"s": s}\n',
  );
  return {dir, solution};
}

interface Case {
  i: number;
  metrics: {first: {result: string; index: number[]; flat: number; expected: number; got: number}};
  failure: string;
  seed?: number;
}

describe('a failed case explains itself', () => {
  it("prints the exact rule's first wrong element, expected and got, and keeps it per case in the report", () => {
    const {dir, solution} = offByOne();
    const json = path.join(tempDir(), 'report.json');
    const result = runCli(['benchmark', 'eval', dir, 'dev', '--solution', solution, '--json-file', json]);
    expect(result).toMatchObject({code: 0, stdout: 'score: 0.0\n'});
    // Every repetition draws fresh cases: a failure names its case's seed, which makes that case again.
    const line = /^score is 0\.0: case 0 \(seed (\d+)\) failed: s\[4\] expected (-?\d+), got (-?\d+) \(1 of 2000 elements wrong\)$/m.exec(result.stderr);
    expect(line, result.stderr).not.toBeNull();
    expect(Number(line![3])).toBe(Number(line![2]) + 1);
    const again = path.join(tempDir(), 'again');
    expect(runCli(['bundle', path.join(dir, 'bundle'), 'make', again, '--point', '{"N":2000}', '--seeds', line![1]!]).code).toBe(0);
    expect(new Float64Array(readFileSync(path.join(again, 'expected/000000/s.bin')).buffer.slice(0))[4]).toBe(Number(line![2]));
    const cases = JSON.parse(readFileSync(json, 'utf8')).points[0].cases as Case[];
    expect(cases[0]!.seed).toBe(Number(line![1]));
    expect(cases).toHaveLength(3);
    for (const c of cases) {
      const {first} = c.metrics;
      expect(c.metrics).toMatchObject({rule: 'exact', wrong: 1, of: 2000, first: {result: 's', index: [4], flat: 4}});
      expect(first.got).toBe(first.expected + 1);
      expect(c.failure).toBe(`s[4] expected ${first.expected}, got ${first.got} (1 of 2000 elements wrong)`);
    }
  });

  it('withholds the wrong element of secret test data: its values, its place and the count (the solution chooses them)', () => {
    const {dir, solution} = offByOne();
    const json = path.join(tempDir(), 'report.json');
    const result = runCli(['benchmark', 'eval', dir, 'test', '--solution', solution, '--json-file', json], {env: {ARBOR_TEST_SALT: 'secret'}});
    expect(result).toMatchObject({code: 0, stdout: 'score: 0.0\n'});
    expect(result.stderr).toContain('\nscore is 0.0: case 0 of point {"N":20000}: failed (wrong answer; details withheld (secret test cases))\n');
    const report = JSON.parse(readFileSync(json, 'utf8'));
    // A speed plan's test cases are fresh every repetition (the salt keys only fixed seeds): no seed is named.
    expect(report.seeds.source).toBe('fresh');
    expect(result.stderr).not.toMatch(/seed \d/);
    expect(report.points[0].cases.some((c: Case) => 'seed' in c)).toBe(false);
    // A speedup eval stops at the first failing point: the second one is not run.
    expect(report.points[1].cases.map((c: {status: string}) => c.status)).toEqual(['not-run', 'not-run', 'not-run']);
    for (const c of report.points[0].cases) {
      expect(c).not.toHaveProperty('metrics');
      expect(c).not.toHaveProperty('failure');
      expect(c.note).toBe('wrong answer; details withheld (secret test cases)');
    }
  });

  it("prints a verifier's `first` in words, its other metrics as JSON", () => {
    const {dir, solution} = offByOne(
      'export default function verify(point, args, expected, actual) {\n' +
        '  let wrong = 0;\n  let first;\n' +
        '  for (let i = 0; i < expected.s.length; i++) {\n' +
        '    if (actual.s[i] === expected.s[i]) continue;\n' +
        "    if (wrong++ === 0) first = {result: 's', index: [i], expected: expected.s[i], got: actual.s[i]};\n" +
        '  }\n' +
        '  return {passed: wrong === 0, metrics: {wrong, of: expected.s.length, ...(first ? {first} : {})}};\n' +
        '}\n',
    );
    const result = runCli(['benchmark', 'eval', dir, 'dev', '--solution', solution]);
    expect(result).toMatchObject({code: 0, stdout: 'score: 0.0\n'});
    const line = /^score is 0\.0: case 0 \(seed \d+\) failed: s\[4\] expected (-?\d+), got (-?\d+) \(\{"wrong":1,"of":2000\}\)$/m.exec(result.stderr);
    expect(line, result.stderr).not.toBeNull();
    expect(Number(line![2])).toBe(Number(line![1]) + 1);
  });
});

describe('explainFailure', () => {
  it('names the result and its index: 2-D, a scalar, 64-bit values as strings, one element', () => {
    const first = {result: 'y', index: [0, 4], flat: 4, expected: 17, got: 18};
    expect(explainFailure({rule: 'exact', wrong: 1, of: 64, first})).toBe('y[0, 4] expected 17, got 18 (1 of 64 elements wrong)');
    expect(explainFailure({rule: 'exact', wrong: 1, of: 1, first: {result: 'k', index: [], flat: 0, expected: '9007199254740993', got: '-0'}})).toBe(
      'k expected 9007199254740993, got -0 (1 of 1 element wrong)',
    );
  });

  it("takes a verifier's partial `first` (a flat index alone, no name, no values), and ignores metrics without one", () => {
    expect(explainFailure({first: {result: 'y', index: [4]}})).toBe('y[4] is wrong');
    expect(explainFailure({worst: 0.5, first: {flat: 7, expected: 1.5, got: 2}})).toBe('element[7] expected 1.5, got 2 ({"worst":0.5})');
    expect(explainFailure({first: {result: 'y', expected: [1, 2], got: null}})).toBe('y expected [1,2], got null');
    expect(explainFailure({wrong: 1, of: 3})).toBeUndefined();
    expect(explainFailure({first: 'y[4]'})).toBeUndefined();
    expect(explainFailure({first: {}})).toBeUndefined();
    expect(explainFailure(undefined)).toBeUndefined();
  });

  it('bounds what an authored `first` can make it print: each name, index and value at 40 characters', () => {
    const huge = Array.from({length: 10_000}, (_, k) => k);
    const text = explainFailure({first: {result: 'r'.repeat(1000), index: huge, expected: huge, got: 'x'.repeat(1000)}})!;
    expect(text).toBe(`${'r'.repeat(39)}…${`[${huge.join(', ')}]`.slice(0, 39)}… expected ${JSON.stringify(huge).slice(0, 39)}…, got ${'x'.repeat(39)}…`);
    expect(text.length).toBeLessThan(200);
  });
});
