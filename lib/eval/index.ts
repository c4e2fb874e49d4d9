/** The eval pipeline: plans, seeds, the runner and scoring. */
export {budgetSeconds, runEval, runSides, runnerPath} from './pipeline.js';
export type {
  BundleApi,
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
} from './pipeline.js';
export {HarnessError} from './errors.js';
export {checkPlan, loadPlan, overridePlan, parseSeedSpec, splits} from '../benchmark/plan.js';
export type {Plan, PlanOverride, PlanPoint, PlanSplit, Split} from '../benchmark/plan.js';
export {deriveSeeds, saltVariable, splitSeeds, warmupSeed} from './seeds.js';
export {accuracyRatio, formatScore, mean, minSeconds, speedupRatio} from './score.js';
export {pointSignature} from './signature.js';
export {computeLock, lockDifference, lockFile, protectedPaths, readLock, writeLock} from '../benchmark/lock.js';
export type {Lock} from '../benchmark/lock.js';
export type {SandboxKind} from '../sandbox/sandbox.js';
export type {PointSignature} from './signature.js';
