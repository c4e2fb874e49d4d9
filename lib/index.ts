/**
 * arbor's library API (`import {…} from 'arbor'`): the functions, classes and constants
 * docs/library.md documents, named one by one so that nothing reaches the package by accident
 * (test/library-api.test.ts pins the list against the built entry and the doc). The types of their
 * options and results come with them. The CLI is a thin shell around these modules.
 */
export {ArborError, ExitCode, isArborError, RefusedError, UsageError} from './errors.js';
import {checkReference} from './eval/index.js';
import {verifyBenchmarks as verifyZooBenchmarks} from './zoo/index.js';

export {checkoutBenchmark, lintRules, listZoo, listZooStream, resolveZoo, scaffoldBenchmark, verifyBenchmark} from './zoo/index.js';

/**
 * `arbor benchmark verify` as a library call: the lint rules and, with `determinism`, the cases made
 * twice and the plan's reference run twice through the eval. The zoo sits below the eval and is
 * handed the reference's check; here it is handed by default, so a library caller gets the same
 * check as the command line unless it passes its own.
 */
export function verifyBenchmarks(...[dirs, options = {}]: Parameters<typeof verifyZooBenchmarks>): ReturnType<typeof verifyZooBenchmarks> {
  return verifyZooBenchmarks(dirs, {checkReference, ...options});
}
export {
  BundleError,
  bundleInfo,
  canonicalSignature,
  compareFiles,
  countNaN,
  ELEMENT_TYPES,
  elementValue,
  loadBundle,
  makeWorkDir,
  parsePoint,
  parseSeedList,
  parseSeeds,
  readTensor,
  Stream,
  signatureFingerprint,
  TENSOR_ARRAYS,
  TensorLengthError,
  tensorBytes,
  verifyWorkDir,
  writeExpected,
  writeTensor,
} from './bundle/index.js';
export {calibrate, checkReference, HarnessError, loadPlan, runEval, StaleLockError} from './eval/index.js';
export {checkVerifier, checkVerifiers, probeBenchmark, probeBenchmarks, probes} from './probe/index.js';
export {GateError, parseGateArgs, runGate} from './gate/index.js';
export {describeEnvironment} from './environment.js';
export {exposureWarning, findChanges, gitState, LedgerError, ledgerPathFor, openLedger, recordRun, solutionDigest} from './ledger/index.js';
export {collectReport, loadChartLibrary, renderReport, ReportError, writeReport} from './report/index.js';
export {
  encodeJob,
  findWorkerEntry,
  JobRefusedError,
  materializeJob,
  planItems,
  resolveQueueKey,
  resolveTargets,
  RunInterruptedError,
  runLocal,
  runQueue,
  startWorker,
} from './run/index.js';
export type {ExitCodeValue} from './errors.js';
export type {
  BenchmarkReport,
  CheckoutResult,
  LintFinding,
  LintRule,
  ScaffoldOptions,
  ScaffoldResult,
  UnusableDir,
  VerifyOptions,
  VerifyResult,
  ZooListEntry,
  ZooListOptions,
  ZooListResult,
  ZooListSink,
  ZooListStart,
  ZooListSummary,
} from './zoo/index.js';
export type {ReferenceCheck, ReferenceRequest} from './zoo/determinism.js';
export type {Bundle, ElementType, Info, IntType, LoadOptions, MakeOptions, Manifest, Point, Seed, Tensor, Verdicts} from './bundle/index.js';
export type {CalibrateOptions, CalibrationReport, CaseReport, EvalOptions, EvalReport, Plan, PointReport, RepetitionReport} from './eval/index.js';
export type {CheckerOptions, CheckerReport, CheckersOptions, ProbeOptions, ProbeReport} from './probe/index.js';
export type {GateArgs} from './gate/index.js';
export type {Environment, EnvironmentOptions} from './environment.js';
export type {Change, FindChangesOptions, GitState, Ledger, LedgerRun, OpenOptions, RunRecord} from './ledger/index.js';
export type {ChartLibrary, CollectOptions, ReportModel} from './report/index.js';
export type {
  EvalJob,
  LocalRunOptions,
  MaterializedJob,
  QueueRunOptions,
  QueueWorkerOptions,
  ResolvedTargets,
  RunEvent,
  RunItem,
  RunningWorker,
  RunResult,
} from './run/index.js';
