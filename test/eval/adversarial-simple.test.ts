// Simple cheats must score 0.0 (helpers and the rules in ./adversaries.ts).
import {describe, expect, it} from 'vitest';
import {evaluate, sandboxed, type Evaluated} from './adversaries.js';

/** Evals more than one test reads (each test only reads the report): made once, by the first test that asks. */
const shared = new Map<string, Evaluated>();
function evaluateOnce(solution: string): Evaluated {
  if (!shared.has(solution)) shared.set(solution, evaluate('prefix-speed', solution));
  return shared.get(solution)!;
}

describe('simple cheats (speed fixture)', () => {
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
    ['tamper-bundle.py', 'failed'],
    ['array-hook.py', 'no-answer'],
    ['forge-channel.py', 'crashed'],
  ])('%s scores 0.0 (%s)', (solution, status) => {
    const {score, report, stderr} = evaluateOnce(solution);
    expect(score).toBe(0);
    expect(report.points[0].cases[0].status).toBe(status);
    expect(stderr).toMatch(/score is 0\.0: case 0/);
    // In the sandbox the first repetition is verified at once: a wrong answer is not timed again.
    if (sandboxed) expect(report.points[0].cases[0].repetitions).toHaveLength(1);
  });

  it('an answer whose __array__ would do the work after the clock stopped is refused, with the reason', () => {
    const {report} = evaluateOnce('array-hook.py');
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
