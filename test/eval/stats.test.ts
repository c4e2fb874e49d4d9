// The speed score's statistics: how many repetitions an eval needs, read from measured repetitions.
import {describe, expect, it} from 'vitest';
import {
  betweenEvalSpread,
  closingAlpha,
  closingInterval,
  confidenceSequence,
  generator,
  logRatioObservations,
  longRunVariance,
  ratioSequence,
  sequentialDecision,
  relativeHalfWidth,
  repeatInterval,
  sequenceAlpha,
  repetitionsForPrecision,
  scoreInterval,
  speedScore,
  stoppingHalfWidths,
  type PointRatios,
} from '../../lib/stats/index.js';
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

describe("the stopping rule's half-widths", () => {
  it("on the last point of several, the score's: narrower than the point's own, so it may stop sooner and still meet the precision", () => {
    // At precision 0.02: the first point stopped at ±2.1% (14 repetitions); the last, 6 repetitions of
    // the same noise, is at ±2.8% alone and would go on, while the score's interval is within ±2%.
    const first = normalPool(14, 4, 0.06, 3);
    const last = normalPool(6, 4, 0.06, 4);
    const alone = stoppingHalfWidths(last);
    const {own, score} = stoppingHalfWidths(last, [first]);
    expect(alone).toEqual({own});
    expect(relativeHalfWidth(scoreInterval([first], 500), speedScore([first]))).toBeLessThan(0.025);
    expect(own).toBeGreaterThan(0.025);
    expect(score).toBeLessThan(0.02);
    // The score's interval over both points is as the final report computes it, at the stopping rule's 500 resamples.
    expect(score).toBe(relativeHalfWidth(scoreInterval([first, last], 500), speedScore([first, last])));
    // The second repetition is the first with a width; a wide earlier point leaves the score's wide too.
    expect(stoppingHalfWidths(last.slice(0, 1), [first])).toEqual({own: Number.POSITIVE_INFINITY});
    const loose = normalPool(5, 4, 0.3, 5);
    expect(stoppingHalfWidths(last, [loose]).score).toBeGreaterThan(own);
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

describe("a compare's confidence sequence", () => {
  /** `n` normal observations of mean `mu` and sd `sigma` (seeded). */
  function normals(n: number, mu: number, sigma: number, seed: number): number[] {
    const random = generator(seed);
    return Array.from({length: n}, () => mu + sigma * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random()));
  }
  /** Whether the mean is outside the interval at some look from `from` to `values.length`. */
  const missedAtSomeLook = (values: number[], from: number, interval: (seen: number[]) => [number, number] | undefined, mu: number) =>
    values.some((_, k) => {
      if (k + 1 < from) return false;
      const found = interval(values.slice(0, k + 1));
      return found !== undefined && (found[0] > mu || found[1] < mu);
    });

  it('holds the mean at every look at once about 95% of the time, where a fixed-n interval read at every look does not', () => {
    const fixed = (seen: number[]): [number, number] => {
      const mean = seen.reduce((a, b) => a + b, 0) / seen.length;
      const sd = Math.sqrt(seen.reduce((a, b) => a + (b - mean) ** 2, 0) / (seen.length - 1));
      return [mean - (1.96 * sd) / Math.sqrt(seen.length), mean + (1.96 * sd) / Math.sqrt(seen.length)];
    };
    let sequenceMissed = 0;
    let fixedMissed = 0;
    const trials = 400;
    for (let seed = 1; seed <= trials; seed++) {
      // 60 repetitions of a compare's log-ratio, looked at after each from the 5th (the stopping rule's fewest).
      const values = normals(60, 0.01, 0.03, seed);
      if (missedAtSomeLook(values, 5, (seen) => confidenceSequence(seen), 0.01)) sequenceMissed++;
      if (missedAtSomeLook(values, 5, fixed, 0.01)) fixedMissed++;
    }
    expect(sequenceMissed / trials).toBeLessThanOrEqual(0.065);
    expect(fixedMissed / trials).toBeGreaterThan(0.15);
  });

  it('narrows as observations come, about 1/sqrt(n) past its tuning point', () => {
    const values = normals(200, 0, 0.02, 7);
    const width = (n: number) => {
      const [low, high] = confidenceSequence(values.slice(0, n))!;
      return high - low;
    };
    expect(confidenceSequence(values.slice(0, 1))).toBeUndefined();
    expect(width(10)).toBeGreaterThan(width(40));
    expect(width(40)).toBeGreaterThan(width(160));
    expect(width(40) / width(160)).toBeGreaterThan(1.5);
  });

  it('decides different when it excludes 1, same inside the band, undecided otherwise', () => {
    expect(sequentialDecision([1.001, 1.05], 0.02)).toBe('different');
    expect(sequentialDecision([0.95, 0.999], 0.02)).toBe('different');
    expect(sequentialDecision([0.985, 1.015], 0.02)).toBe('same');
    expect(sequentialDecision([0.97, 1.015], 0.02)).toBe('undecided');
    expect(sequentialDecision([1 / 1.02, 1.02], 0.02)).toBe('same');
  });

  it("takes a repetition's mean log ratio over its cases, and a repetition with a case that has no ratio not at all", () => {
    const observations = logRatioObservations([
      [
        [2, 0.5],
        [Math.E, Math.E],
      ],
      [[1, 0]],
    ]);
    expect(observations).toEqual([0, 1]);
    const sequence = ratioSequence([
      [
        [1.1, 1.1],
        [1.12, 1.08],
        [1.09, 1.11],
      ],
    ])!;
    expect(sequence[0]).toBeLessThan(1.1);
    expect(sequence[1]).toBeGreaterThan(1.1);
  });
});

describe("a compare's closing look at the budget's end", () => {
  /** `n` repetitions of `cases` paired ratios whose logs are normal, mean `mu`, sd `sigma` (seeded). */
  function compareRatios(n: number, cases: number, mu: number, sigma: number, seed: number): PointRatios {
    const random = generator(seed);
    const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    return Array.from({length: n}, () => {
      // A slow moment of the machine moves a whole segment: the cases of a repetition share most of their noise.
      const shared = sigma * 0.9 * normal();
      return Array.from({length: cases}, () => Math.exp(mu + shared + sigma * 0.45 * normal()));
    });
  }
  /**
   * A compare's verdict as runRepetitions and judgeSpeed reach it: the sequence looked at after
   * every repetition from the 5th, stopping once it decides; else, with `closing`, the closing
   * look over all `n` repetitions (the budget's).
   */
  function verdict(ratios: PointRatios, band: number, closing: boolean, alpha = sequenceAlpha): 'different' | 'same' | 'undecided' {
    for (let k = 5; k <= ratios.length; k++) {
      const seen = ratios.slice(0, k);
      const found = confidenceSequence(logRatioObservations([seen]), alpha);
      const decision = sequentialDecision([Math.exp(found![0]), Math.exp(found![1])], band);
      if (decision !== 'undecided') return decision;
    }
    return closing ? sequentialDecision(closingInterval([ratios])!, band) : 'undecided';
  }
  const trials = 1500;
  const share = (seedBase: number, mu: number, closing: boolean, alpha?: number) => {
    let different = 0;
    for (let seed = 1; seed <= trials; seed++) if (verdict(compareRatios(18, 4, mu, 0.025, seedBase + seed), 0.02, closing, alpha) === 'different') different++;
    return different / trials;
  };

  it('spends the 5% in two halves: on identical sides, different at most about 5% of the time, sequence and closing look together', () => {
    expect(sequenceAlpha + closingAlpha).toBeCloseTo(0.05, 12);
    const falseDifferent = share(10_000, 0, true);
    expect(falseDifferent).toBeLessThanOrEqual(0.055);
    // The closing look adds its share: more than the sequence alone calls, never more than the sum.
    expect(falseDifferent).toBeGreaterThan(share(10_000, 0, false));
  });

  it('finds a 2% slowdown the budget left undecided more often than the whole 5% spent on the sequence', () => {
    const split = share(20_000, Math.log(0.98), true);
    const sequenceOnly = share(20_000, Math.log(0.98), false, 0.05);
    expect(split).toBeGreaterThan(sequenceOnly + 0.08);
    expect(split).toBeGreaterThan(0.75);
  });

  it("is a Student's t interval at 97.5% of the repetitions' mean log ratio, undefined below 2 repetitions", () => {
    expect(closingInterval([[[1.1, 1.1]]])).toBeUndefined();
    // Three repetitions with mean logs 0, 0.1 and 0.2: mean 0.1, sd 0.1; t(0.9875, 2 df) = 6.205.
    const [low, high] = closingInterval([[[1], [Math.exp(0.1)], [Math.exp(0.2)]]])!;
    const radius = (6.205 * 0.1) / Math.sqrt(3);
    expect(Math.log(low)).toBeCloseTo(0.1 - radius, 1);
    expect(Math.log(high)).toBeCloseTo(0.1 + radius, 1);
    // At 30 degrees of freedom: t(0.9875, 30) = 2.3596.
    const values = Array.from({length: 31}, (_, k) => [Math.exp(k % 2 === 0 ? 0.01 : -0.01)]);
    const mean = values.reduce((a, [ratio]) => a + Math.log(ratio!), 0) / 31;
    const sd = Math.sqrt(values.reduce((a, [ratio]) => a + (Math.log(ratio!) - mean) ** 2, 0) / 30);
    const [low31] = closingInterval([values])!;
    expect((mean - Math.log(low31)) / (sd / Math.sqrt(31))).toBeCloseTo(2.3596, 2);
  });
});

describe('repetitions that share their runs (kept runs)', () => {
  /**
   * `n` observations around `mu` whose blocks of `block` neighbours share an offset (a kept run's
   * process and the machine's state of the moment): offset sd `between`, the rest sd `within`.
   */
  function blocked(n: number, block: number, mu: number, between: number, within: number, seed: number): number[] {
    const random = generator(seed);
    const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    let offset = 0;
    return Array.from({length: n}, (_, i) => {
      if (i % block === 0) offset = between * normal();
      return mu + offset + within * normal();
    });
  }
  const missedAtSomeLook = (values: number[], lag: number, mu: number) =>
    values.some((_, k) => {
      if (k + 1 < 5) return false;
      const [low, high] = confidenceSequence(values.slice(0, k + 1), 0.05, 15, lag)!;
      return low > mu || high < mu;
    });

  it('long-run variance: the sample variance at lag 0; larger for correlated neighbours; never below the sample variance', () => {
    const plain = (values: number[]) => {
      const mean = values.reduce((a, b) => a + b, 0) / values.length;
      return values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1);
    };
    const correlated = blocked(400, 4, 0, 0.02, 0.02, 3);
    expect(longRunVariance(correlated, 0)).toBeCloseTo(plain(correlated), 12);
    // Blocks of 4 with equal offset and noise: the variance of a mean is (1 + 3 x 0.5) = 2.5x the i.i.d. one's.
    expect(longRunVariance(correlated, 3) / plain(correlated)).toBeGreaterThan(1.6);
    const alternating = Array.from({length: 40}, (_, i) => (i % 2 ? 1 : -1));
    expect(longRunVariance(alternating, 3)).toBe(plain(alternating));
  });

  it("a compare's sequence with the kept runs' lag misses less often on correlated repetitions, and costs little on independent ones", () => {
    let plainMissed = 0;
    let laggedMissed = 0;
    let widthRatio = 0;
    const trials = 400;
    for (let seed = 1; seed <= trials; seed++) {
      // Blocks of 4 sharing an offset (ICC 0.26, about what a compare of identical solutions on kept runs showed).
      const values = blocked(60, 4, 0.01, 0.015, 0.025, seed);
      if (missedAtSomeLook(values, 0, 0.01)) plainMissed++;
      if (missedAtSomeLook(values, 3, 0.01)) laggedMissed++;
      const independent = blocked(30, 1, 0, 0, 0.03, seed);
      const [low, high] = confidenceSequence(independent, 0.05, 15, 3)!;
      const [plainLow, plainHigh] = confidenceSequence(independent)!;
      widthRatio += (high - low) / (plainHigh - plainLow) / trials;
    }
    expect(laggedMissed).toBeLessThan(plainMissed * 0.9);
    // Still above 5%: an offset every repetition of the first block shares is invisible at the
    // first looks, which is why a compare runs fresh runs unless it pairs by case.
    expect(laggedMissed / trials).toBeGreaterThan(0.065);
    expect(widthRatio).toBeLessThan(1.2);
  });

  it("an eval's interval by blocks holds the score more often on correlated repetitions, and is never narrower than the plain one", () => {
    let plainHeld = 0;
    let blockHeld = 0;
    const trials = 300;
    for (let seed = 1; seed <= trials; seed++) {
      // 20 repetitions of 4 cases whose ratios move together within a run of 4 repetitions.
      const offsets = blocked(20, 4, 0, 0.03, 0, seed);
      const random = generator(10_000 + seed);
      const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
      const ratios: PointRatios = offsets.map((offset) => Array.from({length: 4}, () => 10 * (1 + offset + 0.03 * normal())));
      const plain = scoreInterval([ratios], 500);
      const byBlock = scoreInterval([ratios], 500, 1, 4);
      expect(byBlock[0]).toBeLessThanOrEqual(plain[0]);
      expect(byBlock[1]).toBeGreaterThanOrEqual(plain[1]);
      if (plain[0] <= 10 && plain[1] >= 10) plainHeld++;
      if (byBlock[0] <= 10 && byBlock[1] >= 10) blockHeld++;
    }
    expect(blockHeld / trials).toBeGreaterThan(plainHeld / trials + 0.05);
    expect(blockHeld / trials).toBeGreaterThan(0.85);
  });
});
