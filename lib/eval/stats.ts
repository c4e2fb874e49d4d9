/**
 * The speed score's estimator and its interval.
 *
 * Per case and repetition, the paired ratio reference time / solution time:
 * the two runs of a repetition are adjacent in time, so a slow phase of the
 * machine (another job, frequency scaling) moves both and largely cancels.
 * Per case, the median of its paired ratios: times on a shared machine have a
 * heavy upper tail (preemption, interrupts, cache pollution) that a median
 * ignores and a mean does not, and unlike the minimum it does not drift with
 * the number of repetitions. The score is the mean of the per-case medians.
 *
 * The 95% interval is a percentile bootstrap over repetitions: a resample
 * draws whole repetitions (every case of a point from the same draw, keeping
 * the pairing across cases), points independently, with a fixed seed so the
 * same measurements always give the same interval.
 */

/** Median of a non-empty list. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** ratios[rep][case] of one point. */
export type PointRatios = number[][];

/** The score: mean over every case of every point of the median over repetitions of its paired ratio. */
export function speedScore(points: PointRatios[]): number {
  let total = 0;
  let count = 0;
  for (const ratios of points) {
    const cases = ratios[0]?.length ?? 0;
    for (let c = 0; c < cases; c++) {
      total += median(ratios.map((rep) => rep[c]!));
      count++;
    }
  }
  return count ? total / count : 0;
}

/** A small, fast, seeded generator (mulberry32): the bootstrap needs reproducibility, not cryptography. */
export function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The 95% percentile-bootstrap interval of speedScore, resampling whole repetitions per point. */
export function scoreInterval(points: PointRatios[], resamples = 2000, seed = 1): [number, number] {
  const random = generator(seed);
  const scores: number[] = [];
  for (let b = 0; b < resamples; b++) {
    const drawn = points.map((ratios) => ratios.map(() => ratios[Math.floor(random() * ratios.length)]!));
    scores.push(speedScore(drawn));
  }
  return percentileInterval(scores);
}

/** The central 95% of bootstrap estimates (sorts them in place). */
export function percentileInterval(estimates: number[]): [number, number] {
  estimates.sort((a, b) => a - b);
  const n = estimates.length;
  return [estimates[Math.floor(0.025 * (n - 1))]!, estimates[Math.ceil(0.975 * (n - 1))]!];
}

/** Half the interval's width relative to the score (Infinity for a score of 0). */
export function relativeHalfWidth([low, high]: [number, number], score: number): number {
  return score > 0 ? (high - low) / 2 / score : Infinity;
}

/**
 * Repetitions needed for a relative half-width `precision`, from the spread of
 * per-repetition scores: (1.96 sd / (precision x score))^2 for a mean, times
 * pi/2 because a median needs that many more draws for the same spread.
 */
export function repetitionsNeeded(perRepetition: number[], precision: number): number {
  if (perRepetition.length < 2 || !(precision > 0)) return NaN;
  const mean = perRepetition.reduce((a, b) => a + b, 0) / perRepetition.length;
  const variance = perRepetition.reduce((a, b) => a + (b - mean) ** 2, 0) / (perRepetition.length - 1);
  return Math.max(2, Math.ceil((Math.PI / 2) * ((1.96 * Math.sqrt(variance)) / (precision * mean)) ** 2));
}
