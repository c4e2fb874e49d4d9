import {spawnSync} from 'node:child_process';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {zoo} from './harness.js';

/** `bash zoo/<entry>/eval.sh <split> ...` as a user runs it (arbor found from the repository). */
function evalSh(entry: string, ...args: string[]) {
  const run = spawnSync('bash', [path.join(zoo, entry, 'eval.sh'), ...args], {encoding: 'utf8', env: {...process.env, ARBOR: '', NO_COLOR: '1'}});
  return {code: run.status, stdout: run.stdout, stderr: run.stderr};
}

describe('zoo entries through eval.sh', () => {
  it('relu_poly dev prints the score PROVENANCE.md records for the baseline', () => {
    const run = evalSh('relu_poly', 'dev');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('score: 0.6334228515625\n');
  });

  it('relu_poly: NaN coefficients score 0.0, not a harness error', () => {
    const run = evalSh('relu_poly', 'dev', '--solution', path.join(import.meta.dirname, 'solutions/relu_nan.py'));
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('score: 0.0\n');
    // Progress and reason agree: no answer was valid, and the first case says why.
    expect(run.stderr).toMatch(/accuracy 0\.000 \(0\/8 cases with a valid answer\)/);
    expect(run.stderr).toMatch(/score is 0\.0: case 0: no-answer \(/);
  });
});
