// The speed score's statistics: how many repetitions an eval needs, read from measured repetitions.
import {describe, expect, it} from 'vitest';
import {
  betweenEvalSpread,
  generator,
  relativeHalfWidth,
  repeatInterval,
  repetitionsForPrecision,
  scoreInterval,
  speedScore,
  type PointRatios,
} from '../../lib/eval/stats.js';
import {closingLine, precisionMissed} from '../../lib/eval/pipeline.js';

/** `reps` repetitions of `cases` paired ratios around 1 with normal noise of sd `sigma` (seeded). */
function normalPool(reps: number, cases: number, sigma: number, seed: number): PointRatios {
  const random = generator(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return Array.from({length: reps}, () => Array.from({length: cases}, () => 1 + sigma * normal()));
}

/** Repetitions for a 95% half-width of `precision` on the mean of `cases` medians of normal ratios (large-sample). */
function theory(sigma: number, cases: number, precision: number): number {
  return ((1.96 * Math.sqrt(Math.PI / 2) * sigma) / (precision * Math.sqrt(cases))) ** 2;
}

describe('repetitionsForPrecision', () => {
  it('agrees with the large-sample count for normal noise, and grows with the square of the noise', () => {
    const quiet = repetitionsForPrecision([normalPool(200, 4, 0.03, 1)], 0.01, {from: 5, cap: 40})!;
    const noisy = repetitionsForPrecision([normalPool(200, 4, 0.06, 1)], 0.01, {from: 5, cap: 100})!;
    expect(quiet / theory(0.03, 4, 0.01)).toBeGreaterThan(0.6);
    expect(quiet / theory(0.03, 4, 0.01)).toBeLessThan(1.6);
    expect(noisy / theory(0.06, 4, 0.01)).toBeGreaterThan(0.6);
    expect(noisy / theory(0.06, 4, 0.01)).toBeLessThan(1.6);
    expect(noisy / quiet).toBeGreaterThan(2.5);
    expect(noisy / quiet).toBeLessThan(6);
  });

  it('is the count at which drawn repetitions first reach the precision: fewer are not enough', () => {
    const pool = normalPool(120, 3, 0.04, 2);
    const needed = repetitionsForPrecision([pool], 0.015, {from: 5})!;
    const halfWidthAt = (n: number) => {
      const widths = Array.from({length: 15}, (_, d) => {
        const random = generator(1 + d);
        const drawn = Array.from({length: n}, () => pool[Math.floor(random() * pool.length)]!);
        return relativeHalfWidth(scoreInterval([drawn], 500, 1 + d), speedScore([drawn]));
      }).sort((a, b) => a - b);
      return widths[7]!;
    };
    expect(needed).toBeGreaterThan(5);
    expect(halfWidthAt(needed)).toBeLessThanOrEqual(0.015);
    expect(halfWidthAt(needed - 1)).toBeGreaterThan(0.015);
  });

  it('a looser precision needs fewer repetitions, and noiseless ratios need no more than the first count', () => {
    const pool = normalPool(150, 4, 0.05, 3);
    expect(repetitionsForPrecision([pool], 0.02, {from: 5, cap: 40})!).toBeLessThan(repetitionsForPrecision([pool], 0.01, {from: 5, cap: 60})!);
    expect(repetitionsForPrecision([Array.from({length: 10}, () => [1.2, 0.9, 1])], 0.01, {from: 5})).toBe(5);
  });

  it('like the eval, trusts fewer than 5 repetitions only with a zero-width interval (a deterministic clock)', () => {
    expect(repetitionsForPrecision([Array.from({length: 10}, () => [1.2, 0.9, 1])], 0.01, {from: 2})).toBe(2);
    // Two repetitions of this pool are mostly within 50%, yet the count is the floor of 5.
    expect(repetitionsForPrecision([normalPool(100, 4, 0.05, 6)], 0.5, {from: 2})).toBe(5);
  });

  it('takes the neediest point, and says null when the cap is not enough', () => {
    const quiet = normalPool(100, 4, 0.01, 4);
    const noisy = normalPool(100, 4, 0.04, 5);
    const both = repetitionsForPrecision([quiet, noisy], 0.01, {from: 5, cap: 60});
    expect(both).toBe(repetitionsForPrecision([noisy], 0.01, {from: 5, cap: 60}));
    expect(both).toBeGreaterThan(repetitionsForPrecision([quiet], 0.01, {from: 5, cap: 60})!);
    expect(repetitionsForPrecision([noisy], 0.01, {from: 5, cap: 10})).toBeNull();
    expect(repetitionsForPrecision([[[1]]], 0.01)).toBeNull();
  });
});

describe('the interval of a repeat eval', () => {
  it("widens this eval's interval, in log space, by the next eval's own uncertainty and the spread between evals", () => {
    const [low, high] = repeatInterval(20, [19.6, 20.4]);
    // Symmetric around the score in log space, wider than this eval's interval.
    expect(Math.log(high / 20)).toBeCloseTo(Math.log(20 / low), 12);
    expect(low).toBeLessThan(19.6);
    expect(high).toBeGreaterThan(20.4);
    const within = Math.log(20.4 / 19.6) / 2;
    expect(Math.log(high / 20)).toBeCloseTo(Math.sqrt(2 * within ** 2 + (1.96 * Math.log1p(betweenEvalSpread)) ** 2), 12);
    // With no spread between evals, only the next eval's uncertainty: sqrt(2) x this eval's.
    const [, alone] = repeatInterval(20, [19.6, 20.4], 0);
    expect(Math.log(alone / 20)).toBeCloseTo(Math.SQRT2 * within, 12);
    // Even a zero-width interval (a deterministic clock) gets the spread between evals.
    const [flatLow, flatHigh] = repeatInterval(2, [2, 2]);
    expect(flatHigh / 2).toBeCloseTo(Math.exp(1.96 * Math.log1p(betweenEvalSpread)), 12);
    expect(flatLow).toBeLessThan(2);
    // A score of 0 keeps its interval.
    expect(repeatInterval(0, [0, 0])).toEqual([0, 0]);
  });
});

describe('the closing lines', () => {
  it('give the score with both intervals, and say by how much a missed precision target was missed', () => {
    const report = {
      score: 21.52,
      interval: [21.02, 21.88] as [number, number],
      repeatInterval: [20.4, 22.7] as [number, number],
      repetitions: 24,
      precision: {target: 0.02, halfWidth: 0.028, reached: false},
    };
    expect(closingLine(report, 'cpu')).toBe(
      'speedup 21.52, 95% interval [21.02, 21.88] (±2.8%; 24 repetition(s), cpu clock); a repeat eval here: [20.40, 22.70]',
    );
    expect(precisionMissed(report, {precision: 0.02, maxSeconds: 40})).toBe(
      'the precision target was missed: ±2.8% against ±2.0% (plan.toml precision = 0.02), 1.4x the target; the budget (plan.toml max_seconds = 40) ended the repetitions, so the score is less certain than the plan asks',
    );
    // A compare's two sides: the budget as its opening line names it (budget 60 s: 1.5 x max_seconds = 40).
    expect(precisionMissed(report, {precision: 0.02, maxSeconds: 40}, 2)).toMatch(
      /; the budget \(60 s: 1\.5 x plan\.toml max_seconds = 40, for 2 sides\) ended the repetitions,/,
    );
    expect(precisionMissed({...report, repetitions: 100}, {precision: 0.02, maxSeconds: 40})).toMatch(/; the cap of 100 repetitions ended the repetitions/);
    expect(precisionMissed({...report, precision: {...report.precision, reached: true}}, {precision: 0.02, maxSeconds: 40})).toBeUndefined();
  });

  it('say an interval within the target from too few repetitions is not confirmed, never that it missed', () => {
    const report = {repetitions: 2, precision: {target: 0.05, halfWidth: 0.019, reached: false}};
    expect(precisionMissed(report, {precision: 0.05, maxSeconds: 1})).toBe(
      'the precision target was not confirmed: ±1.9% is within ±5.0% (plan.toml precision = 0.05), but an interval is trusted only from 5 repetitions and the budget (plan.toml max_seconds = 1) ended them at 2, so the score is less certain than the plan asks',
    );
    // From 5 repetitions on, an interval within the target has reached it; one wider still misses it.
    expect(precisionMissed({...report, precision: {...report.precision, halfWidth: 0.07}}, {precision: 0.05, maxSeconds: 1})).toMatch(
      /^the precision target was missed: ±7\.0% against ±5\.0%/,
    );
  });
});
