/**
 * Steps in a series of scores, each with its 95% interval: the change points
 * the ledger's `arbor benchmark runs --changes` reports for a solution lineage.
 *
 * The method is asv's step detection (asv `step_detect.py`, after Friedrich
 * et al. 2008): fit the series with a piecewise-constant function minimizing
 * the Potts functional, residual cost plus a penalty per step, solved exactly
 * by dynamic programming (optimal partitioning, Jackson et al. 2005; O(n^2),
 * which a history of thousands of runs still affords). We take it rather
 * than Bayesian online detection or e-divisive because the ledger is a short,
 * complete history read at once, not a stream, the exact fit puts a step
 * where the evidence is best, and its per-point weights take what no
 * distribution-free method can: each run's own 95% interval. Two changes to
 * asv's version follow from those intervals. asv fits absolute residuals
 * (weighted medians) and tunes its penalty from the data because it knows
 * only relative weights; here a run's interval gives its variance, so the
 * cost is the chi-square of the log scores (a step is a ratio) and the
 * penalty is the chi-square a step must explain for a flat series to show
 * one with probability `falseAlarm` (see `stepPenalty`); robustness to an odd
 * run comes from the minimum segment length and the confirmation instead.
 * Each fitted step is confirmed only when the 95% intervals of the levels
 * either side separate, each level's interval built from its runs' intervals
 * and widened by its own scatter; the weakest unconfirmed step is merged
 * away until every remaining one separates (as asv's `detect_regressions`
 * drops steps too small to matter).
 */
import {median} from './describe.js';
import {chiSquareQuantile, normalDensity, normalQuantile, studentQuantile} from './quantiles.js';

/** A point of a plain series: a positive value and, when known, its 95% interval. */
export interface SeriesPoint {
  value: number;
  interval?: [number, number] | null;
}

/** A constant stretch of a series. */
export interface Segment {
  /** First point (index into the series). */
  start: number;
  /** One past the last point. */
  end: number;
  /** The weighted geometric mean of its values. */
  level: number;
  /** The level's 95% interval. */
  interval: [number, number];
}

/** A confirmed step between two adjacent segments. */
export interface Step {
  /** Index of the first point after the step (`after.start`). */
  index: number;
  before: Segment;
  after: Segment;
  /** after.level / before.level. */
  ratio: number;
  /** The ratio's 95% interval. */
  interval: [number, number];
}

/** Options of `detectSteps` and `findChanges`. */
export interface DetectOptions {
  /** Fewest points on each side of a step (default 3): a single odd run is an outlier, not a step. */
  minRuns?: number;
  /** Probability that a series with no step shows one (default 0.01); sets the penalty per step. */
  falseAlarm?: number;
}

/** z of a two-sided 95% interval. */
const z95 = 1.959963984540054;

/** Smallest relative noise assumed for a point (0.01%): identical scores must not make the weights infinite. */
const noiseFloor = 1e-4;

/** Share of the consecutive differences the scatter estimate drops from the top: a step or an outlier makes one or two of them large. */
const scatterTrim = 0.1;

/**
 * Degrees of freedom of the scatter estimate per consecutive difference: the
 * trimmed mean of n - 1 correlated squared differences is worth about
 * 0.58 (n - 1) chi-square degrees of freedom (measured by simulation on
 * normal series of 10-40 points); 0.55 keeps on the safe side.
 */
const scatterDof = 0.55;

/** How each point of a series is weighted: its variance in log space, and how well that variance is known. */
export interface NoiseModel {
  variances: number[];
  /** Degrees of freedom of the series-estimated scale; Infinity when the intervals hold within chance (the penalty is then the normal one). */
  dof: number;
  /** What multiplies the intervals' variances (1 when they are trusted), or the estimated variance itself when no run has an interval. */
  scale: number;
}

/**
 * Each point's variance in log space, as asv models it: known relative
 * weights times a scale the series estimates. A point's own interval gives
 * its within-eval variance, raised to the series' median (an interval from a
 * few repetitions is an estimate too, and an unusually narrow one is more
 * likely luck than a quieter run); a point without an interval gets that
 * median, so it neither dominates nor is ignored. The scale is the series'
 * scatter over what the intervals say, from the consecutive differences (a
 * step moves only one of them; the largest tenth are trimmed): a bootstrap
 * over an eval's repetitions cannot see what holds for a whole eval (see
 * `betweenEvalSpread` in lib/stats/speed.ts, which a fixed widening would
 * apply to baselines that move under 1% too). Where the series scatters more
 * than its intervals say, their variances are scaled up to it; where
 * significantly more (one-sided, 5%), the penalty also allows for the
 * estimate's few degrees of freedom. A series with no intervals at all rests
 * on its scatter alone.
 */
export function noiseModel(points: readonly SeriesPoint[]): NoiseModel {
  const logs = points.map((p) => Math.log(p.value));
  const own = points.map((p) => {
    const [lo, hi] = p.interval ?? [NaN, NaN];
    return lo > 0 && hi >= lo && Number.isFinite(hi) ? (Math.log(hi / lo) / (2 * z95)) ** 2 : null;
  });
  const known = own.filter((v): v is number => v !== null);
  const typical = known.length ? Math.max(median(known), noiseFloor ** 2) : 1;
  const base = own.map((v) => Math.max(v ?? typical, typical));
  const ratios = logs.slice(1).map((x, i) => (x - logs[i]!) ** 2 / (base[i]! + base[i + 1]!));
  const scale = trimmedScale(ratios);
  const dof = Math.max(1, scatterDof * ratios.length);
  const floor = (v: number): number => Math.max(v, noiseFloor ** 2);
  if (known.length === 0) return {variances: base.map(() => floor(scale)), dof, scale};
  // More scatter than the intervals say always widens them; only a significant excess makes the penalty a t's.
  const significant = ratios.length > 0 && scale > chiSquareQuantile(0.95, dof) / dof;
  const factor = Math.max(1, scale);
  return {variances: base.map((v) => floor(v * factor)), dof: significant ? dof : Infinity, scale: factor};
}

/** Mean of the smaller squared standardized differences, corrected for the trimming as for a normal: the variance per point. */
function trimmedScale(ratios: readonly number[]): number {
  const m = ratios.length;
  if (m === 0) return 0;
  const kept = m - Math.ceil(scatterTrim * m);
  if (kept < 1) return median([...ratios]);
  const p = kept / m;
  // E[Z^2; |Z| < c] / P(|Z| < c) for the c that keeps a share p of a normal.
  const c = normalQuantile((1 + p) / 2);
  const correction = p < 1 ? (p - 2 * c * normalDensity(c)) / p : 1;
  const sorted = [...ratios].sort((a, b) => a - b).slice(0, kept);
  return sorted.reduce((a, b) => a + b, 0) / kept / correction;
}

/**
 * Find the steps of a series (oldest first): the exact penalized
 * piecewise-constant fit, then only the steps whose segment intervals
 * separate. Values must be positive; the fit is in log space.
 */
export function detectSteps(points: readonly SeriesPoint[], options: DetectOptions = {}): Step[] {
  const minRuns = Math.max(1, Math.floor(options.minRuns ?? 3));
  const n = points.length;
  if (n < 2 * minRuns) return [];
  const x = points.map((p) => Math.log(p.value));
  const noise = noiseModel(points);
  const fit = new Fit(
    x,
    noise.variances.map((v) => 1 / v),
  );
  let bounds = fit.partition(minRuns, stepPenalty(n, minRuns, options.falseAlarm ?? 0.01, noise.dof));
  // Confirm: merge the least separated pair of segments until every step separates.
  for (;;) {
    const segments = bounds.slice(1).map((end, i) => fit.segment(bounds[i]!, end));
    let weakest = -1;
    let weakestSeparation = 1;
    for (let i = 1; i < segments.length; i++) {
      const separation = fit.separation(segments[i - 1]!, segments[i]!);
      if (separation <= weakestSeparation) [weakest, weakestSeparation] = [i, separation];
    }
    if (weakest < 0) return segments.slice(1).map((after, i) => fit.step(segments[i]!, after));
    bounds = bounds.filter((_, i) => i !== weakest);
  }
}

/**
 * The penalty per step, in chi-square units: with known variances the best
 * single split of a flat series lowers the cost by the largest squared z of
 * its candidate splits, so a step must explain more than the z a flat series
 * exceeds with probability `falseAlarm`, split over the candidate positions
 * (Bonferroni). With a scale estimated on `dof` degrees of freedom the z is a
 * Student t, and the bar is the t's.
 */
export function stepPenalty(n: number, minRuns: number, falseAlarm: number, dof = Infinity): number {
  const positions = Math.max(1, n - 2 * minRuns + 1);
  const tail = Math.min(0.5, Math.max(1e-12, falseAlarm)) / positions;
  const z = Number.isFinite(dof) ? studentQuantile(tail, Math.floor(dof)) : normalQuantile(1 - tail / 2);
  return z * z;
}

/** A segment's statistics in log space (private to the fit). */
interface LogSegment {
  start: number;
  end: number;
  mean: number;
  /** Standard error of the mean. */
  error: number;
}

/** Prefix sums of a weighted series: any segment's weighted mean and residual cost in O(1). */
class Fit {
  private readonly sw: Float64Array;
  private readonly swx: Float64Array;
  private readonly swxx: Float64Array;
  /** Subtracted from every value: sums of squares about zero would lose the residuals to rounding. */
  private readonly offset: number;

  constructor(
    private readonly x: readonly number[],
    w: readonly number[],
  ) {
    const n = x.length;
    this.offset = x.reduce((a, b) => a + b, 0) / n;
    this.sw = new Float64Array(n + 1);
    this.swx = new Float64Array(n + 1);
    this.swxx = new Float64Array(n + 1);
    for (let i = 0; i < n; i++) {
      const centred = x[i]! - this.offset;
      this.sw[i + 1] = this.sw[i]! + w[i]!;
      this.swx[i + 1] = this.swx[i]! + w[i]! * centred;
      this.swxx[i + 1] = this.swxx[i]! + w[i]! * centred ** 2;
    }
  }

  /** Weighted residual sum of squares of points [a, b) about their mean. */
  cost(a: number, b: number): number {
    const sw = this.sw[b]! - this.sw[a]!;
    const swx = this.swx[b]! - this.swx[a]!;
    return Math.max(0, this.swxx[b]! - this.swxx[a]! - (swx * swx) / sw);
  }

  /** Optimal partitioning: segment boundaries [0, ..., n] minimizing cost + penalty per step, each segment at least minRuns long. O(n^2). */
  partition(minRuns: number, penalty: number): number[] {
    const n = this.x.length;
    const best = new Float64Array(n + 1).fill(Infinity);
    const previous = new Int32Array(n + 1).fill(-1);
    best[0] = -penalty;
    for (let t = minRuns; t <= n; t++) {
      for (let s = 0; s <= t - minRuns; s++) {
        if (best[s] === Infinity) continue;
        const value = best[s]! + this.cost(s, t) + penalty;
        if (value < best[t]!) [best[t], previous[t]] = [value, s];
      }
    }
    const bounds = [n];
    for (let t = n; t > 0; t = previous[t]!) bounds.unshift(previous[t]!);
    return bounds;
  }

  /**
   * A segment's level and standard error: the error the points' variances
   * give, widened when the segment scatters more than they say (its own
   * chi-square per degree of freedom), so a stretch holding an outlier
   * cannot confirm a step.
   */
  segment(start: number, end: number): LogSegment {
    const sw = this.sw[end]! - this.sw[start]!;
    const mean = this.offset + (this.swx[end]! - this.swx[start]!) / sw;
    const m = end - start;
    const dispersion = m > 1 ? this.cost(start, end) / (m - 1) : 1;
    return {start, end, mean, error: Math.sqrt(Math.max(1, dispersion) / sw)};
  }

  /** Gap between two levels over the sum of their 95% half-widths: above 1 the intervals separate. */
  separation(a: LogSegment, b: LogSegment): number {
    return Math.abs(b.mean - a.mean) / (z95 * (a.error + b.error));
  }

  step(before: LogSegment, after: LogSegment): Step {
    const delta = after.mean - before.mean;
    const half = z95 * Math.hypot(before.error, after.error);
    return {
      index: after.start,
      before: toSegment(before),
      after: toSegment(after),
      ratio: Math.exp(delta),
      interval: [Math.exp(delta - half), Math.exp(delta + half)],
    };
  }
}

function toSegment(s: LogSegment): Segment {
  return {start: s.start, end: s.end, level: Math.exp(s.mean), interval: [Math.exp(s.mean - z95 * s.error), Math.exp(s.mean + z95 * s.error)]};
}
