/**
 * One point of an eval, in three stages:
 *
 * 1. make (point-make.ts): the bundle makes the cases (never expected/) and,
 *    for speedup, a warm-up case; their inputs are read into memory, ready to
 *    deliver.
 * 2. run (point-run.ts): each repetition is a fresh sandboxed run of the
 *    reference (speedup), then of the solution, on the same cases; the harness
 *    delivers every case and times it from outside (lib/sandbox/run.ts).
 * 3. verify (point-verify.ts): with every process of every run gone, the
 *    answers received are written out, the oracle writes expected/, and the
 *    bundle verifies each repetition's answers.
 */
import type {PointSource} from './data.js';
import type {UntimedCall} from '../sandbox/index.js';
import type {EvalContext} from './context.js';
import {timeOnClock} from './score.js';
import {median, type PointRatios} from '../stats/index.js';
import type {CaseReport} from './types.js';
import {checkedMake, makePoint} from './point-make.js';
import {runRepetitions, type RunStage} from './point-run.js';
import {endPointRuns} from './point-runs.js';
import {verifyPoint} from './point-verify.js';

// Part of what a point is to the pipeline and the calibration: the stages' own exports.
export {bundleFailure} from './point-make.js';
export {maxRepetitions} from './point-run.js';
export {casePairing, repetitionBlock, repetitionsPerRun} from './point-runs.js';

/** Make, run and verify one point; returns its case reports, one set per side. */
export async function runPoint(
  ctx: EvalContext,
  index: number,
  source: PointSource,
  count: number,
  budget: number,
  earlier?: PointRatios[],
): Promise<PointOutcome> {
  const made = await makePoint(ctx, index, source, count);
  let stage: RunStage;
  let checkError: unknown;
  try {
    stage = await runRepetitions(ctx, made, budget, earlier);
  } finally {
    await endPointRuns(ctx);
    // The determinism check's make (accuracy: beside the runs) ends before verify, and before a run's error goes up.
    checkError = await checkedMake(made);
  }
  if (checkError !== undefined) throw checkError;
  const sides: SideOutcome[] = [];
  for (const side of stage.sides)
    sides.push({cases: await verifyPoint(ctx, made, side, stage.reference), ratios: side.ratios, firstCase: firstCaseEffect(side.firstCase)});
  const overhead = overheadOf(ctx, stage.nullCalls);
  return {
    sides,
    pairs: stage.pairs,
    repetitions: stage.repetitions,
    precise: stage.precise,
    ...(overhead ? {overhead} : {}),
    referenceFirstCase: firstCaseEffect(stage.referenceFirstCase),
  };
}

/** What delivering one case costs, from the null cases of the reference's runs (speedup, not under the instructions clock). */
interface Overhead {
  /** Median over the null cases, on the eval's clock. */
  seconds: number;
  /** Median over the null cases, on the wall clock. */
  wallSeconds: number;
  /** How many null cases were timed. */
  count: number;
}

function overheadOf(ctx: EvalContext, calls: UntimedCall[]): Overhead | undefined {
  const onClock = calls.map((call) => timeOnClock(ctx.clock, call)).filter((value): value is number => typeof value === 'number' && Number.isFinite(value));
  if (!onClock.length) return undefined;
  return {seconds: median(onClock), wallSeconds: median(calls.map((call) => call.seconds)), count: calls.length};
}

/** The median over runs of a run's first timed case / the median of its other cases (null with fewer than two cases a run). */
function firstCaseEffect(perRun: number[]): number | null {
  return perRun.length ? median(perRun) : null;
}

/** One side's cases of a point, and for speedup the paired ratios behind its score's interval. */
interface SideOutcome {
  cases: CaseReport[];
  ratios: PointRatios;
  /** speedup: the median over runs of the first timed case's time / the median of the others' (null: one case a run). */
  firstCase: number | null;
}

/** A point's outcome: per side; with two sides, the paired ratios baseline time / candidate time. */
export interface PointOutcome {
  sides: SideOutcome[];
  /** speedup with two sides: [rep][case] time of the first side / time of the second on the eval's clock. */
  pairs: PointRatios;
  repetitions: number;
  /** Whether the stopping rule was met (false: the budget or the cap ended the repetitions). */
  precise: boolean;
  /** speedup on the cpu and wall clocks: what delivering a case costs (the reference's null cases). */
  overhead?: Overhead;
  /** speedup: the reference's first-case effect (SideOutcome.firstCase). */
  referenceFirstCase: number | null;
}
