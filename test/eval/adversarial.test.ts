// Cheating must not pay: every adversarial solution scores 0.0 (or its honest
// worth) and never crashes the harness; stdout is always exactly one score line.
import {spawnSync} from 'node:child_process';
import {cpSync, existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {fixtures, repoRoot, runCli, tempDir} from '../helpers/cli.js';

const hasBundle = existsSync(path.join(repoRoot, 'lib/bundle/index.ts'));
const solutions = path.join(fixtures, 'eval/solutions');

function evaluate(entry: string, solution: string, split = 'dev') {
  // A private copy: some of these solutions vandalise every bundle they can find.
  const dir = path.join(tempDir(), entry);
  cpSync(path.join(fixtures, 'eval', entry), dir, {recursive: true});
  // The candidate lives inside the copy, so whatever it does to "its" entry stays in the copy.
  cpSync(path.join(solutions, solution), path.join(dir, 'candidate.py'));
  const json = path.join(path.dirname(dir), 'report.json');
  const result = runCli(['benchmark', 'eval', dir, split, '--solution', path.join(dir, 'candidate.py'), '--json', json]);
  expect(result.stderr).not.toMatch(/internal error|Traceback/);
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/^score: \S+\n$/);
  return {score: Number(result.stdout.slice(7)), stderr: result.stderr, report: JSON.parse(readFileSync(json, 'utf8')), dir};
}

describe.skipIf(!hasBundle)('adversarial solutions (speed fixture)', () => {
  it.each([
    ['nothing.py', 'no-answer'],
    ['empty-dict.py', 'no-answer'],
    ['inputs.py', 'failed'],
    ['crash.py', 'crashed'],
    ['exit.py', 'crashed'],
    ['import-error.py', 'crashed'],
    ['nan.py', 'no-answer'],
    ['wrong-shape.py', 'no-answer'],
    ['score-print.py', 'no-answer'],
    ['search-expected.py', 'failed'],
    ['symlink.py', 'no-answer'],
    ['tamper-cases.py', 'tampered'],
    ['tamper-bundle.py', 'tampered'],
  ])('%s scores 0.0 (%s)', (solution, status) => {
    const {score, report, stderr} = evaluate('prefix-speed', solution);
    expect(score).toBe(0);
    expect(report.points[0].cases[0].status).toBe(status);
    expect(stderr).toMatch(/score is 0\.0: case 0/);
  });

  it('sleep.py is killed at the time limit with its whole process group', () => {
    const started = Date.now();
    const {score, report, dir} = evaluate('prefix-speed', 'sleep.py');
    expect(score).toBe(0);
    expect(report.points[0].cases[0]).toMatchObject({status: 'timeout', note: expect.stringMatching(/killed at the warm-up case time limit of 4\.000 s/)});
    expect(Date.now() - started).toBeLessThan(15_000);
    // The child it started in init() died with the group (a zombie awaiting its reaper is dead too).
    const pid = Number(readFileSync(path.join(dir, 'child.pid'), 'utf8'));
    const alive = () => {
      try {
        return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    const until = Date.now() + 2000;
    while (alive() && Date.now() < until) spawnSync('sleep', ['0.05']);
    expect(alive()).toBe(false);
  });

  it('tamper-bundle.py really rewrote the copy\'s verifier, and the eval used its snapshot', () => {
    const dir = path.join(tempDir(), 'prefix-speed');
    cpSync(path.join(fixtures, 'eval/prefix-speed'), dir, {recursive: true});
    cpSync(path.join(solutions, 'tamper-bundle.py'), path.join(dir, 'candidate.py'));
    const result = runCli(['benchmark', 'eval', dir, 'dev', '--solution', path.join(dir, 'candidate.py')]);
    expect(result.stdout).toBe('score: 0.0\n');
    expect(readFileSync(path.join(dir, 'bundle/verify.mjs'), 'utf8')).toContain('passed: true');
    // A later eval of the vandalised copy runs the cheating verifier: protecting the entry's own
    // files is the checkout's job (git), the eval protects the run it is doing.
  });

  it('sleep-timed.py is killed at the per-case limit, max(1 s, 10 x reference)', () => {
    const {score, report} = evaluate('prefix-speed', 'sleep-timed.py');
    expect(score).toBe(0);
    expect(report.points[0].cases[0]).toMatchObject({status: 'timeout', note: expect.stringMatching(/killed at the case time limit of 1\.000 s/)});
    expect(report.points[0].cases[1]).toMatchObject({status: 'not-run'});
  });

  it('flooding forged start events neither re-arms the case limit nor breaks the harness', () => {
    const {score, report} = evaluate('prefix-speed', 'flood-start.py');
    expect(score).toBe(0);
    expect(report.points[0].cases[0]).toMatchObject({status: 'timeout', note: expect.stringMatching(/killed at the case time limit of 1\.000 s/)});
  });

  it('a failing point ends a speedup eval: later points are reported as not run', () => {
    const {score, report} = evaluate('prefix-speed', 'crash.py', 'test');
    expect(score).toBe(0);
    expect(report.points.map((p: {cases: Array<{status: string}>}) => p.cases.map((c) => c.status))).toEqual([
      ['crashed', 'crashed', 'crashed'],
      ['not-run', 'not-run', 'not-run'],
    ]);
  });

  it('a fake score line on stdout does not replace the real score', () => {
    const {score, report} = evaluate('prefix-speed', 'score-print-correct.py');
    expect(score).toBeGreaterThan(1);
    expect(report.score).toBe(score);
  });

  it('rebinding time.perf_counter does not make a slow solution fast', () => {
    const {score} = evaluate('prefix-speed', 'fake-timer.py');
    expect(score).toBeGreaterThan(0);
    expect(score).toBeLessThan(3);
  });

  it("patching the runner's clock or forging its events does not make a slow solution fast", () => {
    const {score} = evaluate('prefix-speed', 'fake-runner-clock.py');
    expect(score).toBeGreaterThan(0);
    expect(score).toBeLessThan(3);
  });
});

describe.skipIf(!hasBundle)('adversarial solutions (accuracy fixture)', () => {
  it('search-expected.py finds nothing and scores what answering zeros is worth', () => {
    // Zeros are within 1e-3 of |x| for about 1 point in 1000.
    expect(evaluate('accuracy-abs', 'search-expected.py').score).toBeLessThan(0.005);
  });

  it.each(['nothing.py', 'crash.py', 'nan.py', 'sleep.py', 'tamper-bundle.py', 'symlink.py', 'score-print.py'])(
    '%s scores 0.0',
    (solution) => {
      const {score} = evaluate('accuracy-abs', solution);
      expect(score).toBe(0);
    },
  );
});
