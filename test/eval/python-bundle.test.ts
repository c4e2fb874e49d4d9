// An eval of an entry whose bundle is Python (zoo/modmatmul, at a small point): one Python process of the
// bundle serves every repetition's fresh cases, their expected answers and the verification, where each
// used to start its own (python3 and numpy, about 0.25 s a start, twice a repetition).
import {chmodSync, cpSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {repoRoot, runCli, tempDir} from '../helpers/cli.js';

/** An ARBOR_BWRAP that logs its arguments to `log`, one line a start, then runs bubblewrap. */
function loggingBwrap(log: string): string {
  const script = path.join(tempDir('arbor-logging-bwrap-'), 'bwrap');
  writeFileSync(script, `#!/bin/sh\necho "$*" >> '${log}'\nexec bwrap "$@"\n`);
  chmodSync(script, 0o755);
  return script;
}

describe('an eval of a Python bundle', () => {
  it("starts the bundle's Python once for all its repetitions: every make, expected answer and verify goes to that process (besides one make of a case per point, the determinism check's way)", () => {
    const dir = path.join(tempDir('arbor-python-bundle-'), 'modmatmul');
    cpSync(path.join(repoRoot, 'zoo/modmatmul'), dir, {recursive: true});
    const plan = path.join(dir, 'plan.toml');
    const text = readFileSync(plan, 'utf8');
    const small = text
      .replace(/^repetitions = \d+/m, 'repetitions = 3')
      .replace(/^max_seconds = \d+/m, 'max_seconds = 0')
      .replace(/^(\[dev\]\n)seeds = "[^"]*"\npoints = .*$/m, '$1seeds = "0-1"\npoints = [ { M = 24, K = 40, N = 16, W = 30 } ]');
    expect(small).toMatch(/M = 24/);
    writeFileSync(plan, small);
    expect(runCli(['benchmark', 'lock', dir]).code).toBe(0);

    const log = path.join(path.dirname(dir), 'bwrap.log');
    const json = path.join(path.dirname(dir), 'eval.json');
    const run = runCli(['benchmark', 'eval', dir, 'dev', '--json-file', json], {env: {ARBOR_BWRAP: loggingBwrap(log)}});
    expect(run.stderr).not.toMatch(/internal error|Traceback/);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^score: [\d.]+\n$/);
    const report = JSON.parse(readFileSync(json, 'utf8')) as {repetitions: number; points: {cases: {passed: boolean}[]}[]};
    // Three repetitions of fresh cases (each made, answered and verified) and a warm-up case, all passed.
    expect(report.repetitions).toBe(3);
    expect(report.points[0]!.cases.map((c) => c.passed)).toEqual([true, true]);
    const hosts = readFileSync(log, 'utf8')
      .split('\n')
      // A bundle host's sandbox binds arbor's stream.py beside host.py; a solution's run has none.
      .filter((line) => line.includes('/arbor/stream.py'));
    // The eval's one host, and the one of the make that checks a case of the point the determinism check's way (its own process).
    expect(hosts).toHaveLength(2);
  });
});
