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
 * same measurements always give the same interval. Where runs are kept across
 * repetitions, neighbouring repetitions are correlated (lib/eval/README.md,
 * "Correlated repetitions"), and the interval is widened for it.
 */

import {median} from './describe.js';
import {studentQuantile} from './quantiles.js';

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

/**
 * The 95% percentile-bootstrap interval of speedScore, resampling whole repetitions per point.
 * `block` > 1: repetitions come in blocks of that many served by the same kept runs, and
 * neighbours are correlated (a run's process and the machine's state of the moment are shared),
 * which a bootstrap of single repetitions does not see: the interval is then widened, in log
 * space about the score, by the square root of the long-run variance of the repetitions' mean log
 * ratios up to a lag of block - 1 over their plain variance (never narrowed). A block bootstrap
 * held the score less often on the few blocks an eval has (lib/eval/README.md).
 */
export function scoreInterval(points: PointRatios[], resamples = 2000, seed = 1, block = 1): [number, number] {
  const random = generator(seed);
  const scores: number[] = [];
  for (let b = 0; b < resamples; b++) {
    const drawn = points.map((ratios) => ratios.map(() => ratios[Math.floor(random() * ratios.length)]!));
    scores.push(speedScore(drawn));
  }
  const [low, high] = percentileInterval(scores);
  const widen = block > 1 ? correlationFactor(logRatioObservations(points), block - 1) : 1;
  const score = speedScore(points);
  if (!(widen > 1 && score > 0 && low > 0)) return [low, high];
  return [score * (low / score) ** widen, score * (high / score) ** widen];
}

/** How much wider correlated neighbours up to `lag` apart make an interval of a mean: sqrt(long-run / plain variance), at least 1. */
function correlationFactor(values: number[], lag: number): number {
  if (values.length < 3 || lag < 1) return 1;
  const plain = longRunVariance(values, 0);
  return plain > 0 ? Math.sqrt(longRunVariance(values, lag) / plain) : 1;
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
 * The fewest repetitions whose interval can end an eval, unless it has no
 * width at all (a deterministic clock). The percentile bootstrap is too narrow
 * on fewer: in 400 simulated evals of 4 cases with normal noise, its 95%
 * interval held the true score 52% of the time from 2 repetitions, 78% from 3,
 * 88% from 4 and 94-96% from 5 on.
 */
export const trustedRepetitions = 5;

/** Resamples of the interval the stopping rule checks after each repetition (the report's final interval uses the default). */
export const stoppingResamples = 500;

/**
 * What a speed eval's stopping rule checks after a repetition of one solution: the relative
 * half-width of the point's own interval (Infinity before its second repetition) and, for the last
 * point of several (`earlier`: the finished points' ratios), that of the score's interval over
 * every point. The plan's precision is the score's, so the last point may stop on either.
 * `block`: repetitions a kept run serves (scoreInterval).
 */
export function stoppingHalfWidths(ratios: PointRatios, earlier: PointRatios[] = [], resamples = stoppingResamples, block = 1): {own: number; score?: number} {
  if (ratios.length < 2) return {own: Infinity};
  const own = relativeHalfWidth(scoreInterval([ratios], resamples, 1, block), speedScore([ratios]));
  if (!earlier.length) return {own};
  const all = [...earlier, ratios];
  return {own, score: relativeHalfWidth(scoreInterval(all, resamples, 1, block), speedScore(all))};
}

/**
 * About how many repetitions an eval makes before its stopping rule holds,
 * read from measured repetitions rather than from a formula: per point, the
 * smallest count n (from `from` up to `cap`) at which the 95% interval of n
 * repetitions drawn from the pool (with replacement; `draws` draws, seeded)
 * is within `precision` in the median draw, the way an eval's interval
 * shrinks; the largest over the points, or null when `cap` is not enough.
 *
 * A formula from the spread of per-repetition scores assumes the score moves
 * like their mean; the per-case medians ignore the spikes that dominate that
 * spread, so such a formula overstated the count 2-8x on the zoo's entries.
 */
export function repetitionsForPrecision(
  pools: PointRatios[],
  precision: number,
  options: {from?: number; cap?: number; draws?: number; seed?: number} = {},
): number | null {
  const {from = 2, cap = 100, draws = 15, seed = 1} = options;
  if (!(precision > 0) || pools.some((pool) => pool.length < 2)) return null;
  let needed = Math.max(2, from);
  for (const pool of pools) {
    const halfWidth = (n: number): number => {
      const widths: number[] = [];
      for (let d = 0; d < draws; d++) {
        // The same draws at every n (common random numbers): the search compares like with like.
        const random = generator(seed + d);
        const drawn = Array.from({length: n}, () => pool[Math.floor(random() * pool.length)]!);
        widths.push(relativeHalfWidth(scoreInterval([drawn], stoppingResamples, seed + d), speedScore([drawn])));
      }
      const width = median(widths);
      // As in the eval: fewer repetitions than trustedRepetitions stop it only with a zero-width interval.
      return n < trustedRepetitions && width > 0 ? Infinity : width;
    };
    if (halfWidth(cap) > precision) return null;
    // Bisect between a count that is not enough and one that is.
    let low = needed - 1;
    let high = cap;
    if (halfWidth(needed) <= precision) high = needed;
    while (high - low > 1) {
      const middle = (low + high) >> 1;
      if (halfWidth(middle) <= precision) high = middle;
      else low = middle;
    }
    needed = Math.max(needed, high);
  }
  return needed;
}

/**
 * How much a speed score moves between evals of the same solution on one
 * machine, beyond what an eval's own repetitions show: a relative standard
 * deviation. The bootstrap over repetitions sees what varies from one run to
 * the next; what holds for a whole eval (the state of the host's other
 * tenants, caches and memory bandwidth, which moves a BLAS kernel and a
 * sort differently) it cannot see. Measured on a 2-vCPU virtual machine
 * under two busy loops, four batches of 5 evals of solutions 20-50x faster
 * than their baselines: the scores' CV was 0.5-4.3% (RMS 2.45%) against
 * within-eval standard errors of about 1%, so about 2.2% between evals.
 * Baselines, which run the reference's own code, moved less (CV under 1%).
 */
export const betweenEvalSpread = 0.022;

/**
 * The interval a repeat eval of the same solution on the same machine falls
 * in about 95% of the time: this eval's bootstrap interval, taken in log
 * space, widened by the next eval's own uncertainty (as large again) and by
 * the spread between evals (`betweenEvalSpread`).
 */
export function repeatInterval(score: number, [low, high]: [number, number], spread = betweenEvalSpread): [number, number] {
  if (!(score > 0 && low > 0 && high >= low)) return [low, high];
  const within = Math.log(high / low) / 2;
  const half = Math.sqrt(2 * within ** 2 + (1.96 * Math.log1p(spread)) ** 2);
  return [score * Math.exp(-half), score * Math.exp(half)];
}

/**
 * Where a paired compare's repetitions are planned to end, for the confidence sequence's
 * tuning: it is narrowest about here (Waudby-Smith et al.'s rho), and valid at every look.
 */
const sequenceTuningRepetitions = 15;

/**
 * The observations of a paired compare's confidence sequence: per repetition of a point, the
 * mean over its cases of the log of the paired ratio (baseline time / candidate time), in
 * order, points after one another. Each repetition draws fresh cases, so these are identically
 * distributed; those a kept run served are correlated (ratioSequence's `block`).
 */
export function logRatioObservations(points: PointRatios[]): number[] {
  const observations: number[] = [];
  for (const ratios of points) {
    for (const rep of ratios) {
      const logs = rep.filter((ratio) => ratio > 0 && Number.isFinite(ratio)).map(Math.log);
      if (logs.length === rep.length && logs.length > 0) observations.push(logs.reduce((a, b) => a + b, 0) / logs.length);
    }
  }
  return observations;
}

/**
 * A 95% asymptotic confidence sequence for the mean of i.i.d. observations (Waudby-Smith,
 * Arbour, Sinha, Kennedy and Ramdas, "Time-uniform central limit theory and asymptotic
 * confidence sequences", 2021, with the normal-mixture boundary): an interval that holds the
 * mean at every number of observations at once, with probability 0.95, so a rule that looks
 * after every repetition and stops as soon as the interval decides makes no more false
 * verdicts than one that looks once. Wider than a fixed-n interval by about 1.5x near
 * `tuning` observations. Undefined below 2 observations. `lag` > 0: neighbouring observations
 * may be correlated up to that distance, and the spread is their long-run variance (below).
 */
export function confidenceSequence(values: number[], alpha = 0.05, tuning = sequenceTuningRepetitions, lag = 0): [number, number] | undefined {
  const t = values.length;
  if (t < 2) return undefined;
  const mean = values.reduce((a, b) => a + b, 0) / t;
  const sd = Math.sqrt(longRunVariance(values, lag));
  const rho2 = (-2 * Math.log(alpha) + Math.log(-2 * Math.log(alpha) + 1)) / tuning;
  const radius = sd * Math.sqrt(((2 * (t * rho2 + 1)) / (t * t * rho2)) * Math.log(Math.sqrt(t * rho2 + 1) / alpha));
  // The boundary is asymptotic: with the sd estimated from a few observations it held the mean at
  // every look from the 5th only 90% of the time (normal noise, 2000 simulated compares); widened
  // by Student's t over the normal quantile, as a fixed-n interval would be, 94.75%.
  return [mean - radius * smallSample(t - 1), mean + radius * smallSample(t - 1)];
}

/**
 * The variance a mean of `values` moves with when neighbours up to `lag` apart are correlated:
 * the sample variance plus twice the autocovariances up to `lag` (equal weights: within a kept
 * run's block every neighbour shares its offset, and Bartlett's falling weights would count the
 * far ones short), never below the sample variance, so a correlation that happens to come out
 * negative cannot narrow an interval. `lag` 0: the sample variance.
 */
export function longRunVariance(values: number[], lag: number): number {
  const t = values.length;
  if (t < 2) return Number.NaN;
  const mean = values.reduce((a, b) => a + b, 0) / t;
  const centered = values.map((value) => value - mean);
  const covariance = (k: number) => {
    let sum = 0;
    for (let i = k; i < t; i++) sum += centered[i]! * centered[i - k]!;
    return sum / (t - 1);
  };
  const plain = covariance(0);
  let longRun = plain;
  for (let k = 1; k <= Math.min(lag, t - 1); k++) longRun += 2 * covariance(k);
  return Math.max(plain, longRun);
}

/** Student's t 0.975-quantile over the normal one at `df` degrees of freedom (Cornish-Fisher, within 0.3% from df = 4). */
function smallSample(df: number): number {
  const z = 1.959964;
  const t =
    z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2) + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3);
  return t / z;
}

/** What a paired compare's confidence sequence says: a difference, equivalence within the band, or not yet either. */
export type SequentialDecision = 'different' | 'same' | 'undecided';

/**
 * The decision of a ratio's confidence sequence (as ratios, exp of the log bounds) against
 * 1 and the "same" band [1 / (1 + band), 1 + band]: different when it excludes 1, same when
 * it lies inside the band.
 */
export function sequentialDecision([low, high]: [number, number], band: number): SequentialDecision {
  if (low > 1 || high < 1) return 'different';
  if (low >= 1 / (1 + band) && high <= 1 + band) return 'same';
  return 'undecided';
}

/**
 * The confidence sequence of a paired compare's ratio (baseline time / candidate time), as ratios;
 * undefined below 2 repetitions. `block`: repetitions a kept run serves; those of one run are
 * correlated, so the sequence's spread is the long-run variance up to a lag of block - 1.
 */
export function ratioSequence(points: PointRatios[], block = 1): [number, number] | undefined {
  const sequence = confidenceSequence(logRatioObservations(points), sequenceAlpha, sequenceTuningRepetitions, Math.max(0, block - 1));
  return sequence && [Math.exp(sequence[0]), Math.exp(sequence[1])];
}

/**
 * A paired compare's 5% error is spent in two parts: 2.5% on the confidence sequence it looks at
 * after every repetition, 2.5% on one closing look when the budget ended the repetitions with the
 * sequence undecided. By the union bound the verdict is wrong at most 5% of the time, and the
 * closing look, a fixed-n interval (Student's t over the long-run variance), is about 1.25x a
 * plain 95% interval where the sequence is about 1.5x: of a 2% slowdown with a repetition's ratio
 * varying 2.5% (18 repetitions of 4 cases, 1,500 simulated compares, test/eval/stats.test.ts),
 * 88% were found against 75% with the whole 5% on the sequence, and on identical sides 4.5%
 * were called different against 4.3%.
 */
export const sequenceAlpha = 0.025;

/** The closing look's share of a paired compare's 5% (sequenceAlpha). */
export const closingAlpha = 0.025;

/**
 * The closing look of a paired compare whose budget ended its repetitions before the confidence
 * sequence decided: a two-sided (1 - closingAlpha) interval of the mean log ratio over the
 * repetitions, Student's t on the long-run variance (neighbours up to `block - 1` apart
 * correlated), as ratios. Valid because the number of repetitions is the budget's (a clock's), not
 * chosen by looking at the ratios. Undefined below 2 repetitions.
 */
export function closingInterval(points: PointRatios[], block = 1): [number, number] | undefined {
  const values = logRatioObservations(points);
  const t = values.length;
  if (t < 2) return undefined;
  const mean = values.reduce((a, b) => a + b, 0) / t;
  const radius = studentQuantile(closingAlpha, t - 1) * Math.sqrt(longRunVariance(values, Math.max(0, block - 1)) / t);
  return [Math.exp(mean - radius), Math.exp(mean + radius)];
}

/** What a race against a recorded run decides: the candidate's speed over the recorded run's, at the race's confidence. */
export type RaceDecision = 'better' | 'worse' | 'same' | 'undecided';

/** A race's error: its interval misses the true ratio at some look at most 5% of the time (two-sided). */
export const raceAlpha = 0.05;

/**
 * The fewest repetitions a race looks at (with the plan's own fewest, whichever is more): its
 * interval is Student-widened for a spread estimated from so few, and never narrower than the
 * between-eval term, so a large difference is answered here rather than at trustedRepetitions.
 */
export const raceFirstLook = 3;

/**
 * The interval of a race (`eval --against`, `compare --baseline-run`): the candidate's speed score
 * over a recorded run's, as the geometric mean over points of exp(mean log speedup of the
 * candidate - that of the recorded run), valid at every repetition at once. Per point (Bonferroni
 * over the points, alpha / P each), the union of two bounds at half that each: the candidate's
 * mean log speedup, still growing, by the asymptotic confidence sequence of Waudby-Smith et al.
 * (2021; confidenceSequence above), which holds at every look; the recorded run's, fixed, by
 * Student's t over its repetitions, plus what moves between two evals on this machine
 * (betweenEvalSpread, once for each eval: sqrt 2 of it), which no repetition of either shows. So
 * two evals of one solution are called different at most alpha of the time however often the race
 * looks; the price is that differences under about 8% are never `better` or `worse` here (a
 * paired compare decides those). Undefined when a point has fewer than 2 repetitions on either side.
 * `recorded`, `candidate`: per point, [rep][case] speedups over the reference; `block`: repetitions
 * a kept run serves (their spread's lag, as in ratioSequence).
 */
export function raceInterval(
  candidate: PointRatios[],
  recorded: PointRatios[],
  block = 1,
  alpha = raceAlpha,
  spread = betweenEvalSpread,
): [number, number] | undefined {
  const points = Math.min(candidate.length, recorded.length);
  if (points === 0) return undefined;
  const share = alpha / points;
  let low = 0;
  let high = 0;
  for (let p = 0; p < points; p++) {
    const ours = logRatioObservations([candidate[p]!]);
    const theirs = logRatioObservations([recorded[p]!]);
    if (theirs.length < 2) return undefined;
    const sequence = confidenceSequence(ours, share / 2, sequenceTuningRepetitions, Math.max(0, block - 1));
    if (!sequence) return undefined;
    const m = theirs.length;
    const mean = theirs.reduce((a, b) => a + b, 0) / m;
    const fixed = studentQuantile(share / 2, m - 1) * Math.sqrt(longRunVariance(theirs, Math.max(0, block - 1)) / m + 2 * Math.log1p(spread) ** 2);
    low += sequence[0] - mean - fixed;
    high += sequence[1] - mean + fixed;
  }
  return [Math.exp(low / points), Math.exp(high / points)];
}

/**
 * A race's decision from its interval: `better` or `worse` once it excludes 1, `same` once it lies
 * within the band [1 / (1 + band), 1 + band] (sequentialDecision), else `undecided`.
 */
export function raceDecision(interval: [number, number] | undefined, band: number): RaceDecision {
  if (!interval) return 'undecided';
  const decision = sequentialDecision(interval, band);
  if (decision === 'different') return interval[0] > 1 ? 'better' : 'worse';
  return decision;
}
