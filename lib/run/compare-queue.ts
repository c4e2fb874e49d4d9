/**
 * Compare jobs on the queue (`arbor mcp --sealed-queue`): one signed compare
 * job per call (the candidate's editable files; the worker runs the entry's
 * own solution as the baseline from its own zoo, on its own salt), then wait
 * for the worker's signed answer and hand back the compare report, its paths
 * made this machine's (so it is recorded here as a local compare is). Nothing
 * is recorded nor printed here: the caller decides what to say.
 */
import type {Queue as BullQueue, QueueEvents as BullQueueEvents} from 'bullmq';
import type {CompareReport} from '../compare/index.js';
import type {Plan, Split} from '../benchmark/plan.js';
import {drawsFreshCases, labelOf, runName} from '../eval/index.js';
import {sign, verifySigned, type MacScope} from './auth.js';
import {encodeCompareJob} from './job.js';
import {checkRedis, connectionOptions, defaultQueueName, queueRefused, type QueueAddress} from './redis.js';

/** Options of a CompareQueue. */
export interface CompareQueueOptions {
  address: QueueAddress;
  /** The queue key: compare jobs are signed with it, and only an answer it verifies is taken. */
  key: Buffer;
  queueName?: string;
  /** How often (ms) the job's state is polled besides the queue's events (default 2000). */
  pollMs?: number;
  /** The option naming the queue, for messages (default --sealed-queue). */
  where?: string;
  /** How long (s) a finished job stays in Redis (default one day, as run --queue's). */
  keepSeconds?: number;
}

/** One compare to run on a worker. */
export interface CompareCall {
  /** The entry's folder name (the worker's zoo has one of that name). */
  entry: string;
  plan: Plan;
  split: Split;
  /** A solution file (in place of the plan's) or a folder of editable files. */
  candidate: string;
  /** The candidate's solution digest: the worker's report must be of exactly these files. */
  digest: string;
  /** Give up (the job taken off the queue when no worker started it) after this many ms. */
  waitMs: number;
}

/** What a worker answered: the compare report (paths this machine's), the worker's name and the job's id. */
export interface QueuedCompare {
  report: CompareReport;
  worker: string;
  jobId: string;
}

/** A queue that runs compares on `arbor benchmark worker`s. */
export class CompareQueue {
  readonly options: CompareQueueOptions;
  readonly name: string;
  readonly #closing = new AbortController();

  constructor(options: CompareQueueOptions) {
    this.options = options;
    this.name = options.queueName ?? defaultQueueName;
  }

  /** One connection attempt: a Redis that cannot be reached, or refuses what the queue needs, is a UsageError naming it. */
  check(): Promise<void> {
    return checkRedis(this.options.address, this.options.where ?? '--sealed-queue');
  }

  /** Stop every wait (the server is closing): each compare still waiting rejects. */
  close(): void {
    this.#closing.abort();
  }

  /** Submit the compare and wait for its answer; rejects with why there is none (the worker's refusal or error, an answer that does not verify, the wait's end). */
  async compare(call: CompareCall): Promise<QueuedCompare> {
    const {plan} = call;
    const id = `compare-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
    const scope: MacScope = {queue: this.name, jobId: id};
    const job = await encodeCompareJob({entry: call.entry, dir: plan.dir, shown: call.entry, split: call.split, candidate: call.candidate, plan});
    const data = sign(this.options.key, 'job', scope, job);
    const {Queue, QueueEvents, Job} = await import('bullmq');
    const connection = connectionOptions(this.options.address);
    const queue = new Queue(this.name, {connection});
    const events = new QueueEvents(this.name, {connection});
    queue.on('error', () => {});
    events.on('error', () => {});
    try {
      const state = await this.#wait(queue, events, id, data, call.waitMs);
      const found = await Job.fromId(queue, id);
      if (state === 'failed') throw new Error(`the compare job failed on its worker: ${found?.failedReason || 'no reason given'}`);
      if (!found) throw new Error('the compare job disappeared from the queue before it finished (removed from Redis?)');
      const answer = readCompareAnswer(this.options.key, scope, data.mac, found.returnvalue);
      const report = answer.report;
      checkReport(report, call, job.baseline!.sha256);
      localize(report, call);
      return {report, worker: answer.worker, jobId: id};
    } finally {
      await Promise.allSettled([events.close(), queue.close()]);
      await Promise.allSettled([events.disconnect(), queue.disconnect()]);
    }
  }

  /** Queue the job and wait until it is completed or failed (events, and a poll behind them); at the deadline or on close, take it off the queue if no worker started it. */
  async #wait(queue: BullQueue, events: BullQueueEvents, id: string, data: object, waitMs: number): Promise<'completed' | 'failed'> {
    let poll: NodeJS.Timeout | undefined;
    let deadline: NodeJS.Timeout | undefined;
    let onClose: (() => void) | undefined;
    try {
      await events.waitUntilReady();
      const keep = {age: this.options.keepSeconds ?? 86_400};
      await queue.add('compare', data, {jobId: id, attempts: 1, removeOnComplete: keep, removeOnFail: keep});
      return await new Promise<'completed' | 'failed'>((resolve, reject) => {
        const look = () =>
          void queue.getJobState(id).then(
            (state) => {
              if (state === 'completed' || state === 'failed') resolve(state);
              else if (state === 'unknown') reject(new Error('the compare job disappeared from the queue before it finished (removed from Redis?)'));
            },
            () => {},
          );
        events.on('completed', ({jobId}) => jobId === id && look());
        events.on('failed', ({jobId}) => jobId === id && look());
        poll = setInterval(look, this.options.pollMs ?? 2000);
        look();
        deadline = setTimeout(
          () =>
            reject(
              new Error(
                `no worker answered the compare job within ${Math.round(waitMs / 1000)} s (is an \`arbor benchmark worker\` taking jobs from queue ${this.name}?)`,
              ),
            ),
          waitMs,
        );
        onClose = () => reject(new Error('the server closed before a worker answered'));
        if (this.#closing.signal.aborted) onClose();
        else this.#closing.signal.addEventListener('abort', onClose, {once: true});
      });
    } catch (error) {
      // A job nobody started yet leaves the queue with the wait; one running finishes on its worker, unread.
      await queue.remove(id).catch(() => 0);
      throw queueRefused(this.options.address, error);
    } finally {
      clearInterval(poll);
      clearTimeout(deadline);
      if (onClose) this.#closing.signal.removeEventListener('abort', onClose);
    }
  }
}

/** The worker's answer once its MAC verified: the compare report, else why there is none. */
function readCompareAnswer(key: Buffer, scope: MacScope, jobMac: string, returned: unknown): {report: CompareReport; worker: string} {
  const verified = verifySigned(key, 'answer', scope, returned, {job: jobMac});
  if (!verified.ok)
    throw new Error(
      `the answer to the compare job is not authenticated (${verified.reason}): not recorded; a worker with another queue key, or a process without the key writing to this queue`,
    );
  const answer = verified.payload as {compare?: CompareReport; refused?: unknown; error?: unknown; worker?: unknown};
  const worker = typeof answer.worker === 'string' ? answer.worker : '?';
  if (typeof answer.refused === 'string') throw new Error(`worker ${worker}: ${answer.refused}`);
  if (typeof answer.error === 'string') throw new Error(`worker ${worker}: ${answer.error}`);
  const report = answer.compare;
  if (
    typeof report !== 'object' ||
    report === null ||
    typeof report.reports?.candidate?.score !== 'number' ||
    typeof report.reports?.baseline?.score !== 'number' ||
    !Array.isArray(report.cases)
  ) {
    throw new Error(`worker ${worker} returned no compare report (a different arbor version?)`);
  }
  return {report, worker};
}

/** A report of another compare than the one asked for (another entry, split or candidate, the worker's baseline, published test seeds) is refused. */
function checkReport(report: CompareReport, call: CompareCall, baseline: string): void {
  const candidate = report.reports.candidate;
  if (report.name !== call.plan.name || candidate.name !== call.plan.name) throw new Error(`the worker compared ${String(report.name)}, not ${call.plan.name}`);
  if (report.split !== call.split || candidate.split !== call.split) throw new Error(`the worker compared on split ${String(report.split)}, not ${call.split}`);
  if (candidate.solutionSha256 !== call.digest)
    throw new Error(
      `the worker's candidate is not the solution submitted (solution digest ${String(candidate.solutionSha256).slice(0, 12)}, submitted ${call.digest.slice(0, 12)})`,
    );
  if (report.reports.baseline!.solutionSha256 !== baseline)
    throw new Error(
      `the worker's baseline is not the entry's own solution (solution digest ${String(report.reports.baseline!.solutionSha256).slice(0, 12)}, expected ${baseline.slice(0, 12)})`,
    );
  const plan = call.plan;
  if (call.split === 'test' && plan.splitKind !== 'path' && !drawsFreshCases(plan) && candidate.seeds?.source !== 'derived') {
    throw new Error(`the worker ran ${call.entry}'s test split on ${String(candidate.seeds?.source)} seeds, not seeds derived from its ARBOR_TEST_SALT`);
  }
}

/** The report's folders and labels as this machine names them (the worker's were its temporary job folder and its zoo). */
function localize(report: CompareReport, call: CompareCall): void {
  const dir = call.plan.dir;
  report.benchmark = dir;
  report.reports.candidate.benchmark = dir;
  report.reports.candidate.solution = call.candidate;
  if (report.reports.baseline) {
    report.reports.baseline.benchmark = dir;
    report.reports.baseline.solution = call.plan.solution;
  }
  const named = (solution: string, digest: string | null) => {
    const {label, kind} = labelOf(runName(dir, solution, call.plan), digest);
    return {argument: solution, label, labelKind: kind};
  };
  report.candidate = {...report.candidate, ...named(call.candidate, report.reports.candidate.solutionSha256 ?? null)};
  report.baseline = {...report.baseline, ...named(call.plan.solution, report.reports.baseline?.solutionSha256 ?? null)};
}
