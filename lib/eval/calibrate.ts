/**
 * `arbor benchmark calibrate`: evaluate the same solution several times and
 * report how much its score moves, each case's spread, and how many
 * repetitions one eval needs for the plan's precision, so an author can write
 * "how much the score varies" into PROVENANCE from a measurement.
 */
import type {Plan} from '../benchmark/plan.js';
import {runEvalPlanned} from './pipeline.js';
import {maxRepetitions} from './point.js';
import {repetitionSpeedups} from './score.js';
import {median, repetitionsForPrecision, spread, type Spread} from '../stats/index.js';
import type {EvalOptions, EvalReport, Planned} from './types.js';

export interface CalibrationReport {
  benchmark: string;
  split: string;
  solution: string;
  runs: number;
  clock?: EvalReport['clock'];
  scores: number[];
  score: Spread & {maxOverMin: number};
  /** Each case's ratio (speedup) or share (accuracy) across the evals. */
  cases: Array<{point: number; i: number} & Spread>;
  /** speedup: one repetition's score spread and seconds, and what an eval needs for the plan's precision. */
  repetition?: {
    cv: number;
    /** Seconds one repetition takes (median over the evals of seconds / repetitions, fixed costs included). */
    seconds: number;
    target: number;
    /** About how many repetitions an eval makes before its interval is within the target; null: more than the cap (100). */
    needed: number | null;
    /** About how long such an eval takes (needed x seconds); null with needed. */
    neededSeconds: number | null;
    /** About how many repetitions the plan's max_seconds allows (at most the cap). */
    budget: number;
    /** The plan's `repetitions`: the fewest an eval runs, whatever max_seconds allows. */
    minimum: number;
    /** The measured repetitions `needed` is read from (the fewest of any point, over every eval): few make it rough. */
    measured: number;
  };
  evals: Array<{score: number; interval?: [number, number]; repetitions: number; seconds: number; precisionReached?: boolean}>;
}

/** Per-repetition scores of one eval: mean over cases of each repetition's paired ratio (first point). */
function repetitionScores(report: EvalReport): number[] {
  return repetitionSpeedups(report.points[0]?.cases ?? [], report.clock)
    .map((ratios) => ratios.reduce((a, b) => a + b, 0) / ratios.length)
    .filter(Number.isFinite);
}

export async function calibrate(options: CalibrateOptions): Promise<CalibrationReport> {
  return (await calibratePlanned(options)).report;
}

/** Options of calibrate: an eval's, how many, and who hears of each eval as it ends. */
export type CalibrateOptions = EvalOptions & {runs: number; onEval?: (k: number, report: EvalReport) => void};

/** calibrate, with the plan every eval was scored under: read once, by the first eval, and handed to the others. */
export async function calibratePlanned(options: CalibrateOptions): Promise<Planned<CalibrationReport>> {
  const reports: EvalReport[] = [];
  let plan = options.plan;
  for (let k = 0; k < options.runs; k++) {
    const planned = await runEvalPlanned({...options, ...(plan ? {plan} : {})});
    plan = planned.plan;
    reports.push(planned.report);
    options.onEval?.(k, planned.report);
  }
  return {report: summarize(reports, plan!), plan: plan!};
}

/** The spread of the evals' scores, each case's, and (speedup) the repetitions a precision needs. */
function summarize(reports: EvalReport[], plan: Plan): CalibrationReport {
  const first = reports[0]!;
  const scores = reports.map((r) => r.score);
  const score = spread(scores);
  const cases = first.points.flatMap((point, p) => point.cases.map((c) => ({point: p, i: c.i, ...spread(reports.map((r) => r.points[p]!.cases[c.i]!.ratio))})));
  const result: CalibrationReport = {
    benchmark: first.benchmark,
    split: first.split,
    solution: first.solution,
    runs: reports.length,
    ...(first.clock ? {clock: first.clock} : {}),
    scores,
    score: {...score, maxOverMin: score.min > 0 ? score.max / score.min : Infinity},
    cases,
    evals: reports.map((r) => ({
      score: r.score,
      ...(r.interval ? {interval: r.interval} : {}),
      repetitions: r.repetitions,
      seconds: r.seconds,
      ...(r.precision ? {precisionReached: r.precision.reached} : {}),
    })),
  };
  if (first.metric === 'speedup' && first.precision) {
    const perRepetition = reports.flatMap(repetitionScores);
    const seconds = median(reports.map((r) => r.seconds / Math.max(1, r.repetitions)));
    // Every eval's repetitions of a point pooled: the draws behind `needed` come from all of them.
    const pools = first.points.map((_, p) =>
      reports.flatMap((r) => repetitionSpeedups(r.points[p]?.cases ?? [], r.clock)).filter((ratios) => ratios.every(Number.isFinite)),
    );
    const needed = repetitionsForPrecision(pools, first.precision.target, {from: plan.repetitions, cap: maxRepetitions});
    result.repetition = {
      cv: spread(perRepetition).cv,
      seconds,
      target: first.precision.target,
      needed,
      neededSeconds: needed === null ? null : needed * seconds,
      budget: Math.min(maxRepetitions, Math.floor(plan.maxSeconds / seconds)),
      minimum: plan.repetitions,
      measured: Math.min(...pools.map((pool) => pool.length)),
    };
  }
  return result;
}

/** The report as text: the spread of the scores, one repetition's, what an eval needs, and each case. */
export function formatCalibration(result: CalibrationReport): string {
  const pct = (value: number) => `${(100 * value).toFixed(2)}%`;
  const s = result.score;
  const lines = [
    `calibrate ${result.benchmark} ${result.split}: ${result.runs} evals${result.clock ? ` (${result.clock} clock)` : ''}`,
    `score: mean ${s.mean.toPrecision(6)}, sd ${s.sd.toPrecision(3)} (CV ${pct(s.cv)}), min ${s.min.toPrecision(6)}, max ${s.max.toPrecision(6)} (max/min ${s.maxOverMin.toFixed(4)})`,
  ];
  const r = result.repetition;
  if (r) {
    const needs = r.needed === null ? `more repetitions than the cap (${maxRepetitions})` : `about ${r.needed} repetitions (${r.neededSeconds!.toFixed(0)} s)`;
    lines.push(
      `one repetition: CV ${pct(r.cv)}, ${r.seconds.toFixed(2)} s; for +-${pct(r.target)} (plan's precision) an eval needs ${needs}; max_seconds allows about ${r.budget}${r.minimum > r.budget ? ` (the plan's ${r.minimum} repetitions run anyway)` : ''} (read from ${r.measured} measured repetitions)`,
    );
  }
  lines.push('point  case  mean       CV');
  for (const c of result.cases) lines.push(`${String(c.point).padEnd(5)}  ${String(c.i).padEnd(4)}  ${c.mean.toPrecision(6).padEnd(9)}  ${pct(c.cv)}`);
  return `${lines.join('\n')}\n`;
}
