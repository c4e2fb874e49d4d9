/**
 * Zoo-wide runs: every entry of a zoo evaluated here, one at a time (runLocal),
 * or as jobs on a Redis-backed BullMQ queue run by workers on other machines
 * (runQueue, startWorker), and compare jobs for `arbor mcp --sealed-queue`
 * (CompareQueue). bullmq and ioredis are loaded only by the queue
 * functions, never by importing this module.
 */
export type {RunEvent, RunEventSink} from './events.js';
export {checkQueueMac, queueKeyFileVariable, queueKeyMinLength, queueKeyVariable, queueMac, resolveQueueKey} from './auth.js';
export type {MacPurpose, MacScope} from './auth.js';
export {derivedTestSeeds, evalEnvironment, secretVariables} from './eval-process.js';
export {
  checkJob,
  describeJob,
  editableDigest,
  encodeCompareJob,
  encodeJob,
  findWorkerEntry,
  JobRefusedError,
  jobFormat,
  jobVersion,
  materializeJob,
  readableJobVersions,
} from './job.js';
export type {CompareItem, EvalJob, JobFile, MaterializedJob} from './job.js';
export {CompareQueue} from './compare-queue.js';
export type {CompareCall, CompareQueueOptions, QueuedCompare} from './compare-queue.js';
export {runLocal} from './local.js';
export type {LocalRunOptions} from './local.js';
export {runDisplay, formatDuration, estimateLeft} from './progress.js';
export type {DisplayOptions, DisplayStream, RunDisplay} from './progress.js';
export {checkRedis, connectionOptions, defaultQueueName, parseQueueUrl, sealedQueueVariable} from './redis.js';
export type {QueueAddress} from './redis.js';
export {errorResult, recordReport, resultFromReport} from './result.js';
export type {RunResult, RunResultStatus} from './result.js';
export {runQueue, RunInterruptedError} from './submit.js';
export type {JobAnswer, JobReturn, QueueRunOptions} from './submit.js';
export {countStatuses, formatSummary, runDocument, writeRunDocument} from './summary.js';
export type {RunDocument} from './summary.js';
export {itemLabel, parseSolutions, parseSplits, planItems, resolveTargets} from './targets.js';
export type {ResolvedTargets, RunItem, RunTarget} from './targets.js';
export {defaultStalledSeconds, resolveStalledSeconds, stalledVariable, startWorker} from './worker.js';
export type {QueueWorkerOptions, RunningWorker} from './worker.js';
