/**
 * An entry's charts: one panel per split (dev and test score different cases,
 * so they never share an axis), one series per solution in each, as aligned
 * columns (the shape uPlot draws): one x value per run of that split, one
 * column per series, null where a series has no point. The y axis is computed
 * here, not in the page, so it is tested like the rest.
 */
import {bySplit, type EntryReport, type HistoryPoint} from './model.js';

/** What a series shows; the page picks its style from this and its solution's colour. */
type SeriesRole = 'score' | 'interval-lo' | 'interval-hi' | 'calibrate' | 'baseline-lo' | 'baseline-hi';

/** One column of a panel. */
interface ChartSeries {
  /** The legend's text: the solution's name (`calibrate: name` for calibrate runs). */
  label: string;
  role: SeriesRole;
  /** Index into the entry's solutions: the series' colour, the same in every panel. Null for the baseline band's edges. */
  solution: number | null;
  values: (number | null)[];
  /**
   * What the legend shows while no run is hovered: a score series' newest run
   * (`1.45 [1.4, 1.5] #8`), a calibrate series' range. Null for band edges.
   */
  summary: string | null;
  /** The newest drawn point (column index and value): the page writes the value beside it. */
  last: {index: number; value: number} | null;
}

/** A shaded area between two series (indexes into `series`). */
interface ChartBand {
  upper: number;
  lower: number;
  role: 'interval' | 'baseline';
  solution: number | null;
}

/** The y axis of a panel: its scale, range and tick values. */
export interface ChartAxis {
  /** `log` for speedups (a 39x solution beside a 1.0 baseline), `linear` for anything else (accuracy in [0, 1]). */
  scale: 'log' | 'linear';
  min: number;
  max: number;
  ticks: number[];
}

/** One split's chart. */
export interface ChartPanel {
  split: string;
  /** The axis label: the metric, and that it is logarithmic. */
  axisLabel: string;
  axis: ChartAxis;
  /** Ledger run ids of this split's scored runs, ascending: the x axis (evenly spaced, each labelled by its id). */
  runs: number[];
  /** Baseline band edges first (drawn beneath), then interval edges, scores, calibrate points. */
  series: ChartSeries[];
  bands: ChartBand[];
  /** Scored runs the panel cannot draw: a score of 0 (a failed eval) has no place on a log axis. */
  notDrawn: {id: number; score: number; solution: string}[];
}

/** The charts of one entry. */
export interface ChartData {
  /** dev, then test, then any other split; only splits with a scored run. */
  panels: ChartPanel[];
}

type Point = HistoryPoint;

/**
 * A solution's colour by its index in the entry (cycling): distinct hues, no
 * grey (the baseline's band is grey). The page's lines and the tables'
 * swatches use the same.
 */
const solutionColours = ['#1f6fb4', '#c2410c', '#15803d', '#7e22ce', '#b45309', '#0e7490', '#be185d', '#4d7c0f', '#1e3a8a'] as const;

/** The colour of the solution at `index` (null: the baseline band's grey). */
export function solutionColour(index: number | null): string {
  return index === null || index < 0 ? '#64748b' : solutionColours[index % solutionColours.length]!;
}

/** The charts of an entry's history, or null when it has no scored run. */
export function chartData(entry: Pick<EntryReport, 'history' | 'baselines' | 'solutions' | 'metric'>): ChartData | null {
  if (entry.history.length === 0) return null;
  const splits = [...new Set(entry.history.map((point) => point.split))].sort(bySplit);
  return {panels: splits.map((split) => chartPanel(entry, split))};
}

/** One split's panel: its runs, a series per solution, the baseline's band. */
function chartPanel(entry: Pick<EntryReport, 'history' | 'baselines' | 'solutions' | 'metric'>, split: string): ChartPanel {
  const history = entry.history.filter((point) => point.split === split);
  const runs = history.map((point) => point.id);
  const scale: ChartAxis['scale'] = entry.metric === 'speedup' && history.some((point) => (point.score ?? 0) > 0) ? 'log' : 'linear';
  const drawable = (value: number | null | undefined): number | null =>
    value === null || value === undefined || (scale === 'log' && value <= 0) ? null : value;
  const solutionIndex = (sha: string | null) => entry.solutions.findIndex((s) => s.sha256 === sha);
  const nameOf = (sha: string | null) => entry.solutions[solutionIndex(sha)]?.name ?? (sha ? sha.slice(0, 12) : 'unknown solution');
  const column = (own: (point: Point) => boolean, pick: (point: Point) => number | null | undefined) =>
    history.map((point) => (own(point) ? drawable(pick(point)) : null));
  const lastOf = (values: (number | null)[]) => {
    for (let k = values.length - 1; k >= 0; k--) if (values[k] !== null) return {index: k, value: values[k]!};
    return null;
  };
  const series: ChartSeries[] = [];
  const bands: ChartBand[] = [];
  const band = (role: ChartBand['role'], solution: number | null, hi: ChartSeries, lo: ChartSeries) => {
    series.push(hi, lo);
    bands.push({upper: series.length - 2, lower: series.length - 1, role, solution});
  };
  const edge = (label: string, role: SeriesRole, solution: number | null, values: (number | null)[]): ChartSeries => ({
    label,
    role,
    solution,
    values,
    summary: null,
    last: null,
  });

  for (const spread of entry.baselines.filter((s) => s.split === split)) {
    const constant = (value: number) => runs.map(() => drawable(value));
    const who = nameOf(spread.solutionSha256);
    band(
      'baseline',
      null,
      edge(`baseline spread high (${who})`, 'baseline-hi', null, constant(spread.hi)),
      edge(`baseline spread low (${who})`, 'baseline-lo', null, constant(spread.lo)),
    );
  }
  const evals = history.filter((point) => point.kind === 'eval');
  const inOrder = (points: Point[]) => [...new Set(points.map((point) => point.solutionSha256))].sort((a, b) => solutionIndex(a) - solutionIndex(b));
  const evalSolutions = inOrder(evals);
  const isEvalOf = (sha: string | null) => (point: Point) => point.kind === 'eval' && point.solutionSha256 === sha;
  for (const sha of evalSolutions) {
    if (!evals.some((point) => point.solutionSha256 === sha && point.interval)) continue;
    const index = solutionIndex(sha);
    band(
      'interval',
      index,
      edge(
        `${nameOf(sha)} interval high`,
        'interval-hi',
        index,
        column(isEvalOf(sha), (p) => p.interval?.[1]),
      ),
      edge(
        `${nameOf(sha)} interval low`,
        'interval-lo',
        index,
        column(isEvalOf(sha), (p) => p.interval?.[0]),
      ),
    );
  }
  for (const sha of evalSolutions) {
    const values = column(isEvalOf(sha), (p) => p.score);
    const newest = evals.filter((point) => point.solutionSha256 === sha).at(-1)!;
    series.push({label: nameOf(sha), role: 'score', solution: solutionIndex(sha), values, summary: runSummary(newest), last: lastOf(values)});
  }
  const calibrations = history.filter((point) => point.kind === 'calibrate');
  for (const sha of inOrder(calibrations)) {
    const isCalibrationOf = (point: Point) => point.kind === 'calibrate' && point.solutionSha256 === sha;
    const values = column(isCalibrationOf, (p) => p.score);
    const scores = calibrations.filter(isCalibrationOf).map((point) => point.score!);
    const range = `${scores.length} run${scores.length === 1 ? '' : 's'}, ${formatValue(Math.min(...scores))} to ${formatValue(Math.max(...scores))}`;
    series.push({label: `calibrate: ${nameOf(sha)}`, role: 'calibrate', solution: solutionIndex(sha), values, summary: range, last: null});
  }
  const notDrawn = history
    .filter((point) => point.score !== null && drawable(point.score) === null)
    .map((point) => ({id: point.id, score: point.score!, solution: nameOf(point.solutionSha256)}));
  const values = series.flatMap((s) => s.values).filter((v): v is number => v !== null);
  const metric = entry.metric ?? 'score';
  return {split, axisLabel: scale === 'log' ? `${metric} (log scale)` : metric, axis: axisFor(scale, values), runs, series, bands, notDrawn};
}

/** A run's score as the legend shows it: `1.45 [1.4, 1.5] #8`, `0 failed #7`. */
function runSummary(point: Pick<Point, 'id' | 'score' | 'interval' | 'status'>): string {
  if (point.score === null) return `error #${point.id}`;
  const interval = point.interval ? ` [${formatValue(point.interval[0])}, ${formatValue(point.interval[1])}]` : '';
  return `${formatValue(point.score)}${interval}${point.status === 'failed' ? ' failed' : ''} #${point.id}`;
}

/** A value with four significant digits, as the tables print it. */
function formatValue(value: number): string {
  return Number(value.toPrecision(4)).toString();
}

/**
 * The y axis over `values`: a little room above and below (on a log axis, as
 * a factor), and ticks at round numbers. With no values, [0, 1].
 */
export function axisFor(scale: ChartAxis['scale'], values: readonly number[]): ChartAxis {
  if (values.length === 0)
    return {scale, min: scale === 'log' ? 0.5 : 0, max: scale === 'log' ? 2 : 1, ticks: scale === 'log' ? logTicks(0.5, 2) : linearTicks(0, 1)};
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (scale === 'log') {
    const factor = lo === hi ? 1.25 : Math.max(1.03, (hi / lo) ** 0.08);
    lo /= factor;
    hi *= factor;
    return {scale, min: lo, max: hi, ticks: logTicks(lo, hi)};
  }
  const pad = lo === hi ? Math.max(Math.abs(hi) * 0.1, 0.05) : (hi - lo) * 0.08;
  // Scores that cannot go below 0 (accuracy, a failed eval's 0.0) get no negative room.
  const min = lo >= 0 ? Math.max(0, lo - pad) : lo - pad;
  return {scale, min, max: hi + pad, ticks: linearTicks(min, hi + pad)};
}

/** Mantissas of log-axis ticks, coarsest first. */
const logMantissas = [[1], [1, 2, 5], [1, 1.5, 2, 3, 5, 7], [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8]];

/**
 * Ticks for a log axis over [min, max]: the coarsest set of round numbers
 * (powers of ten, then 1-2-5, then finer) that gives at least four; over many
 * decades every few powers of ten; over a narrow range (a few percent), where
 * a log axis is nearly linear, linear ticks.
 */
export function logTicks(min: number, max: number): number[] {
  const round = (v: number) => Number(v.toPrecision(6));
  for (const mantissas of logMantissas) {
    const ticks: number[] = [];
    for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) {
      for (const m of mantissas) {
        const value = round(m * 10 ** e);
        if (value >= min && value <= max) ticks.push(value);
      }
    }
    if (ticks.length > 8 && mantissas.length === 1) return ticks.filter((_, k) => k % Math.ceil(ticks.length / 6) === 0);
    if (ticks.length >= 4) return ticks;
  }
  return linearTicks(min, max);
}

/** Ticks for a linear axis over [min, max]: about five, at steps of 1, 2, 2.5 or 5 times a power of ten. */
export function linearTicks(min: number, max: number, target = 5): number[] {
  const raw = (max - min) / target;
  if (!(raw > 0)) return [min];
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let k = Math.ceil(min / step - 1e-9); k * step <= max + step * 1e-9; k++) ticks.push(Number((k * step).toPrecision(12)));
  return ticks;
}
