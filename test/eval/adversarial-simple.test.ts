// Simple cheats must score 0.0 (helpers and the rules in ./adversaries.ts).
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {evaluate, evaluateEach, sandboxed, type Evaluated} from './adversaries.js';

/** The cheats and the status of their first case: none of them depends on timing, so their evals run two at a time. */
const cheats = [
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
  ['tamper-bundle.py', 'failed'],
  ['array-hook.py', 'no-answer'],
  ['forge-channel.py', 'crashed'],
] as const;

describe('simple cheats (speed fixture)', () => {
  // Each cheat's eval, started before the first test (each test only reads its report); the copies are removed after the last.
  let root: string;
  let evals: Map<string, Promise<Evaluated>>;
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'arbor-test-cheats-'));
    evals = evaluateEach(
      root,
      'prefix-speed',
      cheats.map(([solution]) => solution),
    );
  });
  afterAll(async () => {
    await Promise.allSettled(evals.values());
    rmSync(root, {recursive: true, force: true});
  });

  it.each(cheats)('%s scores 0.0 (%s)', async (solution, status) => {
    const {score, report, stderr} = await evals.get(solution)!;
    expect(score).toBe(0);
    expect(report.points[0].cases[0].status).toBe(status);
    expect(stderr).toMatch(/score is 0\.0: case 0/);
    // In the sandbox the first repetition is verified at once: a wrong answer is not timed again.
    if (sandboxed) expect(report.points[0].cases[0].repetitions).toHaveLength(1);
  });

  it('an answer whose __array__ would do the work after the clock stopped is refused, with the reason', async () => {
    const {report} = await evals.get('array-hook.py')!;
    expect(report.points[0].cases[0].note).toMatch(/result 's': Lazy is not a numpy array, scalar or list/);
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

  it('sleep-timed.py is killed at the per-case limit, max(1 s, 10 x reference)', () => {
    const {score, report} = evaluate('prefix-speed', 'sleep-timed.py');
    expect(score).toBe(0);
    // The limit is on wall time: max(1 s, 10 x the reference's fastest wall time for the case).
    expect(report.points[0].cases[0]).toMatchObject({status: 'timeout', note: expect.stringMatching(/^killed at the case time limit of \d+\.\d{3} s$/)});
    expect(Number(/limit of ([\d.]+)/.exec(report.points[0].cases[0].note)![1])).toBeGreaterThanOrEqual(1);
    expect(report.points[0].cases[1]).toMatchObject({status: 'not-run'});
  });

  it('a failing point ends a speedup eval: later points are reported as not run', () => {
    const {score, report} = evaluate('prefix-speed', 'crash.py', {split: 'test'});
    expect(score).toBe(0);
    expect(report.points.map((p: {cases: Array<{status: string}>}) => p.cases.map((c) => c.status))).toEqual([
      ['crashed', 'crashed', 'crashed'],
      ['not-run', 'not-run', 'not-run'],
    ]);
  });
});
