/**
 * The queue submitter: one BullMQ job per run item on a Redis-backed queue,
 * each signed with the queue key, then wait for the workers, show their
 * (signed) progress, and put each report whose MAC verifies on record in this
 * machine's ledger, with the worker's environment. A report that is not
 * signed with the key is never recorded nor shown as a score: its item is an
 * error. A job is recorded once, by its id, however many times its
 * completion is seen (an event and the poll that backs events up may both
 * see it).
 */
import type {Job as BullJob, Queue as BullQueue, QueueEvents as BullQueueEvents} from 'bullmq';
import {ArborError, ExitCode} from '../errors.js';
import type {Plan} from '../benchmark/plan.js';
import type {EvalReport} from '../eval/index.js';
import type {CompareReport} from '../compare/index.js';
import type {RunEventSink} from './events.js';
import {sign, verifySigned, type MacScope, type Signed} from './auth.js';
import {encodeJobPlanned, type EvalJob} from './job.js';
import {checkRedis, connectionOptions, defaultQueueName, queueRefused, type QueueAddress} from './redis.js';
import {describeFailure, errorCodeOf, errorResult, recordReport, resultFromReport, type RunResult} from './result.js';
import type {RunItem} from './targets.js';

/** What a worker answers for a job it took: the eval's report (a compare job's: the compare's), why it refused the job, or why the eval gave no report. */
export type JobAnswer = {report: EvalReport} | {compare: CompareReport} | {refused: string} | {error: string};

/** A worker's answer as it sits in Redis: the answer, the worker's name (`host:pid`), and their MAC, bound to the job's own MAC. */
export type JobReturn = Signed<JobAnswer & {worker: string}>;

/** Options of runQueue. */
export interface QueueRunOptions {
  address: QueueAddress;
  /** The queue key (resolveQueueKey): jobs are signed with it, and only answers it verifies are recorded. */
  key: Buffer;
  queueName?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  onEvent?: RunEventSink;
  /** Aborting stops waiting: the jobs still waiting are taken off the queue and runQueue rejects. */
  signal?: AbortSignal;
  /** How often (ms) job states are polled besides the queue's events (default 2000). */
  pollMs?: number;
  /** How long (s) finished jobs stay in Redis for inspection (default one day). */
  keepSeconds?: number;
}

/** The run was stopped before every job finished (exit 1). */
export class RunInterruptedError extends ArborError {
  constructor(message: string) {
    super(message, 'interrupted', ExitCode.findings);
  }
}

/** Submit one job per item, wait for all of them, and return one result per item, in order. */
export async function runQueue(items: readonly RunItem[], options: QueueRunOptions): Promise<RunResult[]> {
  const emit = options.onEvent ?? (() => {});
  const cwd = options.cwd ?? process.cwd();
  await checkRedis(options.address);
  const results: (RunResult | undefined)[] = items.map(() => undefined);
  const finish: Finish = (item, result, warnings = []) => {
    results[item.index] = result;
    emit({type: 'finish', item, result, warnings});
  };
  const name = options.queueName ?? defaultQueueName;
  const jobs = await signJobs(items, options.key, name, emit, finish);
  if (jobs.length === 0) return results as RunResult[];

  const {Queue, QueueEvents, Job} = await import('bullmq');
  const connection = connectionOptions(options.address);
  const queue = new Queue(name, {connection});
  const events = new QueueEvents(name, {connection});
  // Connection trouble after the check surfaces as events; BullMQ reconnects, and the poll catches up.
  queue.on('error', () => {});
  events.on('error', () => {});
  const tracker = new JobTracker({queue, Job, name, jobs, options, cwd, emit, finish});
  tracker.listen(events);
  await waitForJobs(queue, events, jobs, tracker, options);
  return results as RunResult[];
}

/** An item's result is in: kept in its place and said as a `finish` event. */
type Finish = (item: RunItem, result: RunResult, warnings?: string[]) => void;

/** A job to queue: its id (unique to this submission), its item, its data signed with the queue key, and the plan it was made under. */
interface SignedJob {
  id: string;
  item: RunItem;
  data: Signed<EvalJob>;
  /** plan.toml as read once for the job: its digest travels with the job, and the worker's report is recorded with it. */
  plan: Plan;
}

/** Jobs first: an entry whose files cannot be read fails here (its result an error), before anything is queued. */
async function signJobs(items: readonly RunItem[], key: Buffer, queueName: string, emit: RunEventSink, finish: Finish): Promise<SignedJob[]> {
  const submission = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const jobs: SignedJob[] = [];
  for (const item of items) {
    try {
      const id = `${submission}-${item.index}`;
      const {job, plan} = await encodeJobPlanned(item);
      jobs.push({id, item, plan, data: sign(key, 'job', {queue: queueName, jobId: id}, job)});
    } catch (error) {
      emit({type: 'start', item});
      finish(item, errorResult(item, describeFailure(error), null, errorCodeOf(error)));
    }
  }
  return jobs;
}

/** What a JobTracker needs: the queue and BullMQ's Job class (loaded lazily), the jobs, and where results go. */
interface TrackerSetup {
  queue: BullQueue;
  Job: typeof BullJob;
  name: string;
  jobs: SignedJob[];
  options: QueueRunOptions;
  cwd: string;
  emit: RunEventSink;
  finish: Finish;
}

/**
 * The submitter's view of its jobs: which are pending, started, recorded.
 * Each finished job is recorded once, by its id, whether an event or the
 * poll saw it finish first; `done` settles once none is pending.
 */
class JobTracker {
  readonly pending: Map<string, RunItem>;
  readonly done: Promise<void>;
  private readonly setup: TrackerSetup;
  private readonly jobMacs: Map<string, string>;
  private readonly plans: Map<string, Plan>;
  private readonly started = new Set<string>();
  private readonly recorded = new Set<string>();
  private readonly settling = new Set<string>();
  private allDone!: () => void;

  constructor(setup: TrackerSetup) {
    this.setup = setup;
    this.jobMacs = new Map(setup.jobs.map((job) => [job.id, job.data.mac]));
    this.plans = new Map(setup.jobs.map((job) => [job.id, job.plan]));
    this.pending = new Map(setup.jobs.map((job) => [job.id, job.item]));
    this.done = new Promise<void>((resolve) => (this.allDone = resolve));
  }

  private scope(jobId: string): MacScope {
    return {queue: this.setup.name, jobId};
  }

  /** Follow the queue's events: a job started (or started again), its signed progress, a stalled worker, a job finished. */
  listen(events: BullQueueEvents): void {
    const {emit, options} = this.setup;
    events.on('active', ({jobId}) => void this.onActive(jobId));
    events.on('progress', ({jobId, data}) => {
      const item = this.pending.get(jobId);
      if (!item) return;
      // Progress no worker with the key signed is not shown.
      const verified = verifySigned(options.key, 'progress', this.scope(jobId), data);
      if (!verified.ok) return;
      const update = verified.payload as {kind?: unknown; text?: unknown};
      if (typeof update.text !== 'string') return;
      emit({type: 'progress', item, kind: update.kind === 'line' ? 'line' : 'status', text: update.text});
    });
    events.on('stalled', ({jobId}) => {
      const item = this.pending.get(jobId);
      if (item) emit({type: 'progress', item, kind: 'line', text: 'its worker stopped answering: the job goes back on the queue for another worker'});
    });
    events.on('completed', ({jobId}) => void this.settle(jobId));
    events.on('failed', ({jobId}) => void this.settle(jobId));
  }

  private async onActive(id: string): Promise<void> {
    const item = this.pending.get(id);
    if (!item) return;
    const job = await this.setup.Job.fromId(this.setup.queue, id).catch(() => undefined);
    const worker = job?.processedBy;
    if (this.started.has(id)) {
      this.setup.emit({type: 'progress', item, kind: 'line', text: `started again${worker ? ` on ${worker}` : ''} (its previous worker stopped)`});
      return;
    }
    this.started.add(id);
    this.setup.emit({type: 'start', item, ...(worker ? {worker} : {})});
  }

  /** Record a finished job once; a job that is not finished yet is left for later. */
  async settle(id: string): Promise<void> {
    const {queue, Job, finish} = this.setup;
    const item = this.pending.get(id);
    if (!item || this.recorded.has(id) || this.settling.has(id)) return;
    this.settling.add(id);
    try {
      // The state first, then the job: a job read before it completed and asked for its state
      // after would say "completed" with no return value yet.
      const state = await queue.getJobState(id);
      if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return;
      const job = await Job.fromId(queue, id);
      if (this.recorded.has(id)) return;
      this.recorded.add(id);
      this.pending.delete(id);
      try {
        await this.finishJob(id, item, state, job);
      } catch (error) {
        // Taken off the pending list already: a report that cannot be read or recorded is this item's error, never a hang.
        finish(item, errorResult(item, `the worker's result could not be recorded: ${describeFailure(error)}`, null, {jobId: id}));
      }
      if (this.pending.size === 0) this.allDone();
    } catch {
      // Redis trouble: the next poll tries again.
    } finally {
      this.settling.delete(id);
    }
  }

  /** Record what a finished job gave. */
  private async finishJob(id: string, item: RunItem, state: string, job: BullJob | undefined): Promise<void> {
    const {options, cwd, emit, finish} = this.setup;
    if (!this.started.has(id)) emit({type: 'start', item, ...(job?.processedBy ? {worker: job.processedBy} : {})});
    const worker = job?.processedBy;
    const extra = {jobId: id, ...(worker ? {worker} : {})};
    if (state === 'completed') {
      const answer = readAnswer(options.key, this.scope(id), this.jobMacs.get(id)!, job!.returnvalue, item);
      if ('problem' in answer) finish(item, errorResult(item, answer.problem, null, {jobId: id}));
      else if ('report' in answer) {
        const report = answer.report;
        // Named and recorded with the plan the job was made under (plan.toml is not read again).
        const plan = this.plans.get(id)!;
        report.benchmark = item.target.dir;
        report.solution = item.solution ?? plan.solution;
        const recordedRun = await recordReport(report, {env: options.env, cwd, plan});
        finish(item, resultFromReport(item, report, {runId: recordedRun.runId ?? undefined, jobId: id, worker: answer.worker}), recordedRun.warnings);
      } else
        finish(
          item,
          errorResult(item, answer.failure, job!.finishedOn && job!.processedOn ? (job!.finishedOn - job!.processedOn) / 1000 : null, {
            jobId: id,
            worker: answer.worker,
          }),
        );
    } else if (state === 'failed') {
      finish(
        item,
        errorResult(
          item,
          job!.failedReason || 'the job failed without a reason',
          job!.finishedOn && job!.processedOn ? (job!.finishedOn - job!.processedOn) / 1000 : null,
          extra,
        ),
      );
    } else {
      finish(item, errorResult(item, 'the job disappeared from the queue before it finished (removed from Redis?)', null, extra));
    }
  }
}

/**
 * Queue the jobs and wait until every one is recorded, polling their states
 * besides the events. Aborted, the jobs still waiting are taken off the queue
 * and RunInterruptedError says how many; the connections are closed in every case.
 */
async function waitForJobs(queue: BullQueue, events: BullQueueEvents, jobs: SignedJob[], tracker: JobTracker, options: QueueRunOptions): Promise<void> {
  const {pending} = tracker;
  let poll: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new RunInterruptedError('interrupted'));
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, {once: true});
  });
  aborted.catch(() => {});
  try {
    await events.waitUntilReady();
    const keep = {age: options.keepSeconds ?? 86_400};
    await queue.addBulk(jobs.map((job) => ({name: 'eval', data: job.data, opts: {jobId: job.id, attempts: 1, removeOnComplete: keep, removeOnFail: keep}})));
    // Only once every job exists: before that, a job not found would count as gone.
    poll = setInterval(() => {
      for (const id of pending.keys()) void tracker.settle(id);
    }, options.pollMs ?? 2000);
    await Promise.race([tracker.done, aborted]);
  } catch (error) {
    if (!(error instanceof RunInterruptedError)) throw queueRefused(options.address, error);
    // Take the jobs nobody runs yet off the queue; running ones finish on their workers, unrecorded here.
    let removed = 0;
    for (const id of pending.keys()) if ((await queue.remove(id).catch(() => 0)) === 1) removed++;
    throw new RunInterruptedError(
      `interrupted: took ${removed} waiting job(s) off the queue; ${pending.size - removed} running job(s) finish on their workers without being recorded here`,
    );
  } finally {
    clearInterval(poll);
    if (onAbort) options.signal?.removeEventListener('abort', onAbort);
    await Promise.allSettled([events.close(), queue.close()]);
    // A connection whose Redis refused a command (NOPERM) can outlive close(), holding the process open.
    await Promise.allSettled([events.disconnect(), queue.disconnect()]);
  }
}

/**
 * A worker's answer to a job, once its MAC verified: the report (checked to
 * be an eval report of the job's split), or the worker's refusal or error;
 * else the problem, which makes the item an error.
 */
function readAnswer(
  key: Buffer,
  scope: MacScope,
  jobMac: string,
  returned: unknown,
  item: RunItem,
): {report: EvalReport; worker: string} | {failure: string; worker: string} | {problem: string} {
  const verified = verifySigned(key, 'answer', scope, returned, {job: jobMac});
  if (!verified.ok) {
    return {
      problem: `the answer to this job is not authenticated (${verified.reason}): not recorded; a worker with another queue key, or a process without the key writing to this queue`,
    };
  }
  const answer = verified.payload as {report?: EvalReport; refused?: unknown; error?: unknown; worker?: unknown};
  const worker = typeof answer.worker === 'string' ? answer.worker : '?';
  if (typeof answer.refused === 'string') return {failure: answer.refused, worker};
  if (typeof answer.error === 'string') return {failure: answer.error, worker};
  const report = answer.report;
  if (typeof report !== 'object' || report === null || typeof report.score !== 'number' || typeof report.name !== 'string' || !Array.isArray(report.points)) {
    return {problem: 'the worker returned no eval report (a different arbor version?)'};
  }
  if (report.split !== item.split) return {problem: `the worker scored split ${String(report.split)}, not ${item.split}`};
  return {report, worker};
}
