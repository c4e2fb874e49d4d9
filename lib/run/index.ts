/**
 * Zoo-wide runs: every entry of a zoo evaluated here, one at a time (runLocal),
 * or as jobs on a Redis-backed BullMQ queue run by workers on other machines
 * (runQueue, startWorker), and compare jobs for `arbor mcp --sealed-queue`
 * (CompareQueue). bullmq and ioredis are loaded only by the queue
 * functions, never by importing this module.
 */
export type {RunEvent} from './events.js';
export {resolveQueueKey} from './auth.js';
export {
  encodeJob,
  findWorkerEntry,
  JobRefusedError,
  materializeJob,
} from './job.js';
export type {EvalJob, MaterializedJob} from './job.js';
export {runLocal} from './local.js';
export type {LocalRunOptions} from './local.js';
export type {RunResult} from './result.js';
export {runQueue, RunInterruptedError} from './submit.js';
export type {QueueRunOptions} from './submit.js';
export {planItems, resolveTargets} from './targets.js';
export type {ResolvedTargets, RunItem} from './targets.js';
export {startWorker} from './worker.js';
export type {QueueWorkerOptions, RunningWorker} from './worker.js';
