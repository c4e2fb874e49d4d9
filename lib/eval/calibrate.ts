/**
 * `arbor benchmark calibrate`: evaluate the same solution several times and
 * report how much its score moves, each case's spread, and how many
 * repetitions one eval needs for the plan's precision, so an author can write
 * "how much the score varies" into PROVENANCE from a measurement.
 */
import {runEval} from './pipeline.js';
import {repetitionSpeedups} from './score.js';
import {repetitionsNeeded} from './stats.js';
import type {EvalOptions, EvalReport} from './types.js';

/** Mean, standard deviation and coefficient of variation of a list. */
export interface Spread {
  mean: number;
  sd: number;
  cv: number;
  min: number;
  max: number;
}

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
  /** speedup: the spread of single-repetition scores, and the repetitions one eval needs for the plan's precision. */
  repetition?: {cv: number; target: number; needed: number};
  evals: Array<{score: number; interval?: [number, number]; repetitions: number; seconds: number; precisionReached?: boolean}>;
}

export function spread(values: number[]): Spread {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const sd = values.length > 1 ? Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1)) : 0;
  return {mean, sd, cv: mean ? sd / mean : 0, min: Math.min(...values), max: Math.max(...values)};
}

/** Per-repetition scores of one eval: mean over cases of each repetition's paired ratio (first point). */
function repetitionScores(report: EvalReport): number[] {
  return repetitionSpeedups(report.points[0]?.cases ?? [], report.clock).map((ratios) => ratios.reduce((a, b) => a + b, 0) / ratios.length).filter(Number.isFinite);
}

export async function calibrate(options: EvalOptions & {runs: number; onEval?: (k: number, report: EvalReport) => void}): Promise<CalibrationReport> {
  const reports: EvalReport[] = [];
  for (let k = 0; k < options.runs; k++) {
    const report = await runEval(options);
    reports.push(report);
    options.onEval?.(k, report);
  }
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
    evals: reports.map((r) => ({score: r.score, ...(r.interval ? {interval: r.interval} : {}), repetitions: r.repetitions, seconds: r.seconds, ...(r.precision ? {precisionReached: r.precision.reached} : {})})),
  };
  if (first.metric === 'speedup' && first.precision) {
    const perRepetition = reports.flatMap(repetitionScores);
    result.repetition = {cv: spread(perRepetition).cv, target: first.precision.target, needed: repetitionsNeeded(perRepetition, first.precision.target)};
  }
  return result;
}
