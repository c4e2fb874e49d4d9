/**
 * Regressions and improvements over the run ledger: steps in the score series
 * of a fixed solution lineage (`arbor benchmark runs --changes`).
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
import {median} from '../numbers.js';
import type {LedgerRun} from './ledger.js';

/** Which runs form one series: the same code over time, or the clean commits of the repository. */
export type LineageKind = 'solution' | 'commits';

/** The lineages `findChanges` follows unless told otherwise. */
export const lineageKinds: readonly LineageKind[] = ['solution', 'commits'];

/** One score series: the counted runs of a benchmark and split in one lineage, oldest first. */
export interface Lineage {
  benchmark: string;
  split: string;
  kind: LineageKind;
  /** The digest every run shares (`solution`); null for `commits`, which spans digests. */
  solutionSha256: string | null;
  /** The runs' metric (`speedup` runs carry intervals, `accuracy` runs none: their scores are deterministic per case). */
  metric: string;
  runs: LedgerRun[];
}

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

/** Options of `findChanges`. */
export interface FindChangesOptions extends DetectOptions {
  /** The lineages to follow (default both). */
  lineages?: readonly LineageKind[];
  /** Benchmarks whose plan says direction = "minimize": a step down is their improvement. */
  minimize?: ReadonlySet<string>;
}

/** A run on one side of a step, as the report names it. */
export interface ChangeRun {
  id: number;
  time: string;
  git: {commit: string; dirty: boolean} | null;
  solutionSha256: string | null;
  score: number;
  interval: [number, number] | null;
  environment: string;
}

/** One side of a step: its runs' level and the run next to the step. */
export interface ChangeSide {
  /** How many runs the segment holds. */
  runs: number;
  level: number;
  interval: [number, number];
  /** The last run before the step (`before`) or the first after it (`after`). */
  run: ChangeRun;
}

/** A regression or improvement found in one lineage's score series. */
export interface Change {
  benchmark: string;
  split: string;
  lineage: LineageKind;
  /** The lineage's digest (`solution`), null for `commits`. */
  solutionSha256: string | null;
  /** The runs' metric: an `accuracy` series has no per-run intervals, so its levels rest on their scatter alone. */
  metric: string;
  /** Scores are higher-is-better, so a ratio below 1 is a regression. */
  direction: 'regression' | 'improvement';
  /** The level after over the level before. */
  ratio: number;
  interval: [number, number];
  before: ChangeSide;
  after: ChangeSide;
  /** Whether the environment fingerprint differs between the runs either side (a machine or dependency change). */
  environmentChanged: boolean;
}

/**
 * Runs that count in a series: scored evals this ledger recorded. Zero or negative scores have no log and are left out
 * (a failing run is status `failed` anyway); so are runs imported from another ledger (`runs --merge`): nothing proves they were measured here.
 */
function counts(run: LedgerRun): boolean {
  return !run.importedFrom && run.kind === 'eval' && run.status === 'ok' && run.score !== null && Number.isFinite(run.score) && run.score > 0;
}

/**
 * Group runs (any order) into lineages, each oldest first (by time, then id);
 * sorted by benchmark, split, kind, digest. `solution`: the runs of one digest,
 * dirty or not, so a step is the harness, machine or dependencies changing
 * under the same code. `commits`: the runs at clean commits whatever their
 * digest, so a step is usually a commit that changed the score.
 */
export function lineagesOf(runs: readonly LedgerRun[], kinds: readonly LineageKind[] = lineageKinds): Lineage[] {
  const groups = new Map<string, Lineage>();
  const add = (run: LedgerRun, kind: LineageKind, sha: string | null): void => {
    const key = [run.benchmark.name, run.split, kind, sha ?? ''].join('\0');
    let group = groups.get(key);
    if (!group) groups.set(key, (group = {benchmark: run.benchmark.name, split: run.split, kind, solutionSha256: sha, metric: run.metric, runs: []}));
    group.runs.push(run);
  };
  for (const run of runs) {
    if (!counts(run)) continue;
    if (kinds.includes('solution') && run.solutionSha256) add(run, 'solution', run.solutionSha256);
    if (kinds.includes('commits') && run.git && !run.git.dirty) add(run, 'commits', null);
  }
  const order = (a: LedgerRun, b: LedgerRun): number => Date.parse(a.time) - Date.parse(b.time) || a.id - b.id;
  for (const group of groups.values()) group.runs.sort(order);
  return [...groups.values()].sort(
    (a, b) =>
      compareText(a.benchmark, b.benchmark) ||
      compareText(a.split, b.split) ||
      compareText(a.kind, b.kind) ||
      compareText(a.solutionSha256 ?? '', b.solutionSha256 ?? ''),
  );
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
 * `betweenEvalSpread` in lib/eval/stats.ts, which a fixed widening would
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

/** Find the regressions and improvements in every lineage of `runs` (any order); sorted by benchmark, split, lineage, time. */
export function findChanges(runs: readonly LedgerRun[], options: FindChangesOptions = {}): Change[] {
  const changes: Change[] = [];
  for (const lineage of lineagesOf(runs, options.lineages)) {
    const steps = detectSteps(
      lineage.runs.map((run) => ({value: run.score!, interval: run.interval})),
      options,
    );
    for (const step of steps) {
      const last = lineage.runs[step.index - 1]!;
      const first = lineage.runs[step.index]!;
      changes.push({
        benchmark: lineage.benchmark,
        split: lineage.split,
        lineage: lineage.kind,
        solutionSha256: lineage.solutionSha256,
        metric: lineage.metric,
        direction: step.ratio < 1 !== (options.minimize?.has(lineage.benchmark) ?? false) ? 'regression' : 'improvement',
        ratio: step.ratio,
        interval: step.interval,
        before: side(step.before, last),
        after: side(step.after, first),
        environmentChanged: last.environment.fingerprint !== first.environment.fingerprint,
      });
    }
  }
  return changes;
}

function side(segment: Segment, run: LedgerRun): ChangeSide {
  return {
    runs: segment.end - segment.start,
    level: segment.level,
    interval: segment.interval,
    run: {
      id: run.id,
      time: run.time,
      git: run.git,
      solutionSha256: run.solutionSha256,
      score: run.score!,
      interval: run.interval,
      environment: run.environment.fingerprint,
    },
  };
}

/** What the series of a `--changes` report were made of: the runs read, those left out of every series and why, and those left out of the commits series. */
export interface ChangesCoverage {
  /** Runs read (after `--split` and `<benchmark>`). */
  runs: number;
  /** Runs a series may hold: the ok eval runs with a positive score this ledger recorded. */
  counted: number;
  /** Runs in no series, by reason (only reasons with runs). */
  leftOut: Array<{reason: 'imported' | 'compare' | 'not-ok' | 'no-positive-score'; runs: number}>;
  /** Counted runs made at an uncommitted state (a dirty working tree) or outside git: in their digest's series, never in the commits series. */
  uncommitted: number;
  /** How many series there are, and how many runs the longest holds. */
  series: number;
  longest: number;
  /** The metrics of the counted runs (an `accuracy` run has no interval). */
  metrics: string[];
}

/** How `findChanges` saw `runs` (any order): which runs it read, left out and why, and the series they formed. */
export function changesCoverage(runs: readonly LedgerRun[], options: Pick<FindChangesOptions, 'lineages'> = {}): ChangesCoverage {
  const reasons = new Map<ChangesCoverage['leftOut'][number]['reason'], number>();
  const kinds = options.lineages ?? lineageKinds;
  let counted = 0;
  let uncommitted = 0;
  const metrics = new Set<string>();
  for (const run of runs) {
    if (counts(run)) {
      counted++;
      metrics.add(run.metric);
      if (kinds.includes('commits') && !(run.git && !run.git.dirty)) uncommitted++;
      continue;
    }
    const reason = run.importedFrom ? 'imported' : run.kind !== 'eval' ? 'compare' : run.status !== 'ok' ? 'not-ok' : 'no-positive-score';
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  const lineages = lineagesOf(runs, kinds);
  const order = ['not-ok', 'compare', 'imported', 'no-positive-score'] as const;
  return {
    runs: runs.length,
    counted,
    leftOut: order.filter((reason) => reasons.has(reason)).map((reason) => ({reason, runs: reasons.get(reason)!})),
    uncommitted,
    series: lineages.length,
    longest: Math.max(0, ...lineages.map((l) => l.runs.length)),
    metrics: [...metrics].sort(compareText),
  };
}

/** Plain code-unit order (not the locale's), so that the order is the same everywhere. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The standard normal quantile (Acklam's rational approximation, relative error below 1.2e-9). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) return p === 0 ? -Infinity : p === 1 ? Infinity : NaN;
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const tail = (q: number): number =>
    (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}

function normalDensity(x: number): number {
  return Math.exp(-(x * x) / 2) / Math.sqrt(2 * Math.PI);
}

/** The chi-square quantile (Wilson-Hilferty: the cube root of chi-square / dof is nearly normal). */
export function chiSquareQuantile(p: number, dof: number): number {
  const a = 2 / (9 * dof);
  return dof * Math.max(0, 1 - a + normalQuantile(p) * Math.sqrt(a)) ** 3;
}

/** P(|T| > t) for Student's t on an integer number of degrees of freedom (Abramowitz and Stegun 26.7.3-4). */
export function studentTail(t: number, dof: number): number {
  const theta = Math.atan(Math.abs(t) / Math.sqrt(dof));
  const cos2 = Math.cos(theta) ** 2;
  let sum: number;
  if (dof % 2 === 1) {
    let term = Math.cos(theta);
    sum = 0;
    for (let k = 3; k <= dof; k += 2) {
      sum += term;
      term *= (cos2 * (k - 1)) / k;
    }
    return Math.max(0, 1 - (2 / Math.PI) * (theta + Math.sin(theta) * sum));
  }
  let term = 1;
  sum = 0;
  for (let k = 2; k <= dof; k += 2) {
    sum += term;
    term *= (cos2 * (k - 1)) / k;
  }
  return Math.max(0, 1 - Math.sin(theta) * sum);
}

/** The t with P(|T| > t) = tail on `dof` (integer) degrees of freedom, by bisection. */
export function studentQuantile(tail: number, dof: number): number {
  const nu = Math.max(1, Math.floor(dof));
  let high = 1;
  while (studentTail(high, nu) > tail && high < 1e12) high *= 2;
  let low = 0;
  for (let i = 0; i < 200 && high - low > 1e-10 * high; i++) {
    const middle = (low + high) / 2;
    if (studentTail(middle, nu) > tail) low = middle;
    else high = middle;
  }
  return high;
}
