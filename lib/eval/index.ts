/**
 * The eval, as everything outside lib/eval sees it (docs/architecture.md, rule f): no file of lib/ or cli/
 * imports another file of this folder. What runs an eval (the pipeline, calibrate) is loaded when it is
 * first called, so that a command that only needs a type, a seed or a score does not load the sandbox,
 * the runner and the bundle runtime behind it.
 */
import type {CalibrateOptions, CalibrationReport} from './calibrate.js';
import type {EvalOptions, EvalReport, Planned, SidesOptions, SidesOutcome} from './types.js';
import type {ReferenceCheck, ReferenceRequest} from '../zoo/determinism.js';

/** Run the eval of one split and return the report (pipeline.ts). */
export async function runEval(options: EvalOptions): Promise<EvalReport> {
  return (await import('./pipeline.js')).runEval(options);
}

/** runEval, with the plan the report was scored under. */
export async function runEvalPlanned(options: EvalOptions): Promise<Planned<EvalReport>> {
  return (await import('./pipeline.js')).runEvalPlanned(options);
}

/** Run one or more solutions in one eval, interleaved (pipeline.ts). */
export async function runSides(options: SidesOptions): Promise<SidesOutcome> {
  return (await import('./pipeline.js')).runSides(options);
}

/** Evaluate a solution several times: the spread of its score (calibrate.ts). */
export async function calibrate(options: CalibrateOptions): Promise<CalibrationReport> {
  return (await import('./calibrate.js')).calibrate(options);
}

/** calibrate, with the plan every eval was scored under. */
export async function calibratePlanned(options: CalibrateOptions): Promise<Planned<CalibrationReport>> {
  return (await import('./calibrate.js')).calibratePlanned(options);
}

/** verify's and lock's reference check: the plan's reference run twice on the same cases (reference-check.ts), for the zoo's `checkReference` option. */
export async function checkReference(request: ReferenceRequest): Promise<ReferenceCheck> {
  return (await import('./reference-check.js')).checkReference(request);
}

/** A calibration as text (calibrate.ts; loaded with it). */
export async function formatCalibration(result: CalibrationReport): Promise<string> {
  return (await import('./calibrate.js')).formatCalibration(result);
}

export type {CalibrateOptions, CalibrationReport} from './calibrate.js';
export type {
  CaseReport,
  CaseStatus,
  EvalOptions,
  EvalProgress,
  EvalReport,
  Planned,
  PointReport,
  RepetitionReport,
  SideRequest,
  SidesOptions,
  SidesOutcome,
} from './types.js';
export {HarnessError, StaleLockError} from './errors.js';
export {
  loadPlan,
  /** @public read by test/probe/probe-cli.test.ts through the built index */
  overridePlan,
  parseSeedSpec,
} from '../benchmark/plan.js';
export type {Plan, PlanOverride} from '../benchmark/plan.js';
export {deriveSeeds, drawsFreshCases, saltVariable, splitSeeds, warmupSeed} from './seeds.js';
export {accuracyRatio, flatCases, formatScore, repetitionSpeedups, speedupRatio, timeOnClock} from './score.js';
export {checkLabel, labelOf, recordEvalRun, runName, sideName, solutionLabel} from './record.js';
export type {RunName} from './record.js';
export {checkReportPath, progressPrinter, writeReport} from './report.js';
export {dataFolder, splitPoints} from './data.js';
export {explainFailure, withoutValues} from './failure.js';
export {copyRegularFiles} from './snapshot.js';
export {createWorkFolder} from './workspace.js';
export {pointSignature} from './signature.js';
export type {PointSignature} from './signature.js';
export {ceilingLine} from './floor.js';
