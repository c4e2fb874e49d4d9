/**
 * The queue worker: takes eval jobs from a Redis-backed BullMQ queue, checks
 * each job's MAC with the queue key, finds the entry the job names in its own
 * zoo (its protected files matching its own arbor.lock, that lock the job's),
 * writes the job's solution into a private temporary folder, runs the eval
 * here (with this machine's ARBOR_TEST_SALT, python and sandbox) and returns
 * the signed report, or a signed refusal or error. A compare job (`arbor mcp
 * --sealed-queue`) runs the entry's own solution, this zoo's copy, against the
 * job's in one paired compare and returns the signed compare report. It records nothing itself:
 * the submitter does. It never runs a protected file a job carries: a job
 * carries none.
 *
 * Each eval runs in a child process (eval-process.ts) that holds neither the
 * salt nor the key, so this process only talks to the queue and its locks
 * are renewed on time.
 *
 * A worker that dies mid-job loses nothing: its job's lock runs out and
 * BullMQ's stalled-job check, run by every other worker, puts the job back on
 * the queue. `stalledSeconds` sets both the lock's duration and the check's
 * interval, so a job comes back between one and two of them after its worker
 * died.
 */
import type {ChildProcess} from 'node:child_process';
import {mkdtemp, readdir, rm, stat} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {UsageError} from '../errors.js';
import {ownerAlive, ownerTag} from '../sandbox/index.js';
import {sign, verifySigned, type MacScope} from './auth.js';
import {drawsFreshCases, saltVariable} from '../eval/index.js';
import {HarnessError} from '../eval/index.js';
import {derivedTestSeeds, evalInChild, redactDeep, runInChild, seedRedactor} from './eval-process.js';
import {checkJob, describeJob, findWorkerEntry, JobRefusedError, materializeJob} from './job.js';
import {checkRedis, connectionOptions, defaultQueueName, queueRefused, type QueueAddress} from './redis.js';
import {describeFailure} from './result.js';
import type {JobAnswer, JobReturn} from './submit.js';

/** The stalled-job interval (s) when none is given: BullMQ's own default. */
const defaultStalledSeconds = 30;
/** The environment variable setting it. */
const stalledVariable = 'ARBOR_QUEUE_STALLED_SECONDS';

/** Options of startWorker. */
export interface QueueWorkerOptions {
  address: QueueAddress;
  /** The queue key (resolveQueueKey): jobs whose MAC does not verify with it are refused; answers are signed with it. */
  key: Buffer;
  /** The zoo folder (absolute) whose entries this worker evaluates: the only protected files it runs. */
  zoo: string;
  queueName?: string;
  /** Jobs run at once (default 1: timed evals share nothing then). */
  concurrency?: number;
  /** Lock duration and stalled-check interval, in seconds (default $ARBOR_QUEUE_STALLED_SECONDS, else 30). */
  stalledSeconds?: number;
  /** Run solutions without the bubblewrap sandbox. */
  unsandboxed?: boolean;
  env?: NodeJS.ProcessEnv;
  /** The worker's name on the jobs it takes (default `host:pid`). */
  name?: string;
  /** Log lines (job taken, scored, refused). */
  onLog?: (text: string) => void;
}

/** A worker taking jobs. */
export interface RunningWorker {
  name: string;
  /**
   * Stop taking jobs and stop the running evals. Their jobs stay with this
   * worker's lapsing locks, so the stalled-job check gives them to another
   * worker: nothing is lost, nothing fails.
   */
  stop(): Promise<void>;
}

/** The stalled interval from the option, else the environment, else the default; checked. */
export function resolveStalledSeconds(option: number | undefined, env: NodeJS.ProcessEnv = process.env): number {
  const fromEnv = env[stalledVariable];
  const value = option ?? (fromEnv !== undefined && fromEnv !== '' ? Number(fromEnv) : defaultStalledSeconds);
  const where = option !== undefined ? '--stalled-seconds' : stalledVariable;
  if (!Number.isFinite(value) || value < 1 || value > 86_400) throw new UsageError(`${where} ${option ?? fromEnv}: expected seconds between 1 and 86400`);
  return value;
}

/** Jobs run at once: the asked number, capped at this host's CPUs (said in the log). */
function workerConcurrency(asked: number, log: (text: string) => void): number {
  if (!Number.isInteger(asked) || asked < 1) throw new UsageError(`--concurrency ${asked}: expected a whole number of jobs, at least 1`);
  // Each timed eval leases a CPU of its own (lib/sandbox/cpu-lease.ts): more jobs than CPUs would only wait for one.
  const cpus = os.availableParallelism();
  const concurrency = Math.min(asked, cpus);
  if (concurrency < asked) log(`--concurrency ${asked} capped at ${cpus}: this host has ${cpus} CPU(s), and each eval leases one of its own`);
  return concurrency;
}

/** What every job of one worker shares. */
interface WorkerContext {
  options: QueueWorkerOptions;
  env: NodeJS.ProcessEnv;
  log: (text: string) => void;
  name: string;
  queueName: string;
  /** The running eval processes, killed by stop(). */
  children: Set<ChildProcess>;
  /** True once stop() was called. */
  stopping: () => boolean;
}

type QueueJob = {id?: string; data: unknown; updateProgress(value: object): Promise<void>};

/** One authenticated job's eval, set up: its entry in this zoo, its files, its test seeds and progress channel. */
interface PreparedJob {
  what: string;
  request: ReturnType<typeof checkJob>;
  entry: Awaited<ReturnType<typeof findWorkerEntry>>;
  files: Awaited<ReturnType<typeof materializeJob>>;
  testSeeds: number[] | undefined;
  forward: ReturnType<typeof progressForwarder>;
  redact: (text: string) => string;
}

/** A compare job: the entry's own solution (the worker's copy, checked against the job's digest) against the job's, in one paired eval. */
async function runCompareJob(context: WorkerContext, job: PreparedJob, root: string): Promise<JobAnswer> {
  const {entry, files, testSeeds, forward, redact, what} = job;
  const {env, options} = context;
  // A sealed compare on the published seeds would answer for cases anyone can look up.
  if (files.split === 'test' && entry.plan.splitKind !== 'path' && !drawsFreshCases(entry.plan) && !env[saltVariable]) {
    throw new JobRefusedError(
      `this worker has no ${saltVariable}: ${job.request.entry}'s test split would run its published seeds; set ${saltVariable} on the worker (a secret of its own)`,
    );
  }
  const child = await runInChild(
    {
      kind: 'compare',
      benchmark: entry.dir,
      split: files.split,
      baseline: entry.plan.solution,
      candidate: files.folder,
      unsandboxed: options.unsandboxed,
      ...(testSeeds ? {testSeeds} : {}),
      plan: entry.plan,
    },
    {env, cwd: root, children: context.children, onProgress: forward.send},
  );
  await forward.flush();
  if (child.type !== 'compare') throw new HarnessError(`the eval process answered a ${child.type} instead of a compare`);
  const compare = child.report;
  context.log(`${what}: ${compare.verdict}, ratio ${compare.ratio ?? '-'} in ${compare.seconds.toFixed(1)} s`);
  return {compare: redactDeep(compare, redact)};
}

/** An eval job: the job's solution on the entry's split. */
async function runEvalJob(context: WorkerContext, job: PreparedJob, root: string): Promise<JobAnswer> {
  const {entry, files, testSeeds, forward, redact, what} = job;
  const report = await evalInChild(
    {
      benchmark: entry.dir,
      split: files.split,
      folder: files.folder,
      unsandboxed: context.options.unsandboxed,
      ...(testSeeds ? {testSeeds} : {}),
      // The plan read once, by findWorkerEntry (checked against the job's digest): the eval process reads plan.toml no more.
      plan: entry.plan,
    },
    {env: context.env, cwd: root, children: context.children, onProgress: forward.send},
  );
  await forward.flush();
  context.log(`${what}: score ${report.score}${report.failure ? ` (${redact(report.failure)})` : ''} in ${report.seconds.toFixed(1)} s`);
  return {report: redactDeep(report, redact)};
}

/** The function BullMQ calls per job: authenticate it, run it in a private folder, answer signed. */
function jobProcessor(context: WorkerContext, UnrecoverableError: new (message: string) => Error): (job: QueueJob) => Promise<JobReturn> {
  const {options, env, log, name, queueName} = context;
  return async (job) => {
    const what = `job ${job.id} (${describeJob(job.data)})`;
    log(`${what}: started`);
    const scope: MacScope = {queue: queueName, jobId: String(job.id)};
    const verified = verifySigned(options.key, 'job', scope, job.data);
    if (!verified.ok) {
      // Not from a submitter holding the key: nothing of it is read, and nothing signed goes back.
      const message = `refused the job: it is not authenticated (${verified.reason}; a submitter with another queue key, or a job not made by arbor)`;
      log(`${what}: ${message}`);
      throw new UnrecoverableError(message);
    }
    const jobMac = (job.data as {mac: string}).mac;
    const answer = (body: JobAnswer): JobReturn => sign(options.key, 'answer', scope, {...body, worker: name}, {job: jobMac});
    let redact = (text: string) => text;
    const root = await mkdtemp(path.join(os.tmpdir(), `${jobFolderPrefix}${ownerTag()}-`));
    try {
      const request = checkJob(verified.payload);
      const entry = await findWorkerEntry(options.zoo, request);
      const files = await materializeJob(request, entry.plan, root);
      const testSeeds = await derivedTestSeeds(entry.plan, files.split, env);
      redact = seedRedactor(entry.plan, testSeeds);
      // Not through lib/run/door.ts: the job's eval runs a materialized folder of the job's files against this worker's entry,
      // its answer is signed for the queue and recorded by the submitter (submit.ts), not in this machine's ledger.
      const forward = progressForwarder(job, (update) => sign(options.key, 'progress', scope, {...update, text: redact(update.text)}));
      const prepared: PreparedJob = {what, request, entry, files, testSeeds, forward, redact};
      return answer(await (request.kind === 'compare' ? runCompareJob(context, prepared, root) : runEvalJob(context, prepared, root)));
    } catch (error) {
      // Stopped on purpose: leave the job unsettled, so it goes back on the queue once this worker's lock lapses.
      if (context.stopping()) return new Promise<never>(() => {});
      const message = redact(describeFailure(error));
      log(`${what}: ${error instanceof JobRefusedError ? '' : 'no score: '}${message}`);
      // Settled for good, the reason signed for the submitter (every worker should have the same zoo).
      return answer(error instanceof JobRefusedError ? {refused: message} : {error: message});
    } finally {
      await rm(root, {recursive: true, force: true}).catch(() => {});
    }
  };
}

/** Connect to the queue and start taking jobs. */
export async function startWorker(options: QueueWorkerOptions): Promise<RunningWorker> {
  const env = options.env ?? process.env;
  const log = options.onLog ?? (() => {});
  const stalledMs = Math.round(resolveStalledSeconds(options.stalledSeconds, env) * 1000);
  const concurrency = workerConcurrency(options.concurrency ?? 1, log);
  const name = options.name ?? `${os.hostname()}:${process.pid}`;
  if (!(await stat(options.zoo).catch(() => undefined))?.isDirectory())
    throw new UsageError(`zoo ${options.zoo} is not a folder: a worker evaluates the entries of its own zoo`, 'not-found');
  await checkRedis(options.address);
  await removeStaleJobFolders();
  const {Worker, UnrecoverableError} = await import('bullmq');
  let stopping = false;
  const queueName = options.queueName ?? defaultQueueName;
  const context: WorkerContext = {options, env, log, name, queueName, children: new Set(), stopping: () => stopping};
  const worker = new Worker<unknown, JobReturn>(queueName, jobProcessor(context, UnrecoverableError), {
    connection: connectionOptions(options.address),
    concurrency,
    name,
    lockDuration: stalledMs,
    stalledInterval: stalledMs,
    maxStalledCount: 1,
  });
  let lastError = '';
  worker.on('error', (error: Error) => {
    // Reconnect attempts repeat one message: say it once until it changes.
    if (error.message !== lastError) log(`queue: ${error.message}`);
    lastError = error.message;
  });
  try {
    await worker.waitUntilReady();
  } catch (error) {
    // Its connections would keep this process alive, retrying.
    await worker.close(true).catch(() => {});
    throw queueRefused(options.address, error);
  }
  return {
    name,
    async stop() {
      stopping = true;
      for (const child of context.children) child.kill('SIGTERM');
      await worker.close(true);
    },
  };
}

/** A job's private folder: `$TMPDIR/arbor-job-<owner>-XXXXXX`, the owner tag telling a killed worker's leftovers from a running one's. */
const jobFolderPrefix = 'arbor-job-';

/** Remove the job folders of workers that are gone (killed before they could clean up). */
async function removeStaleJobFolders(root = os.tmpdir()): Promise<void> {
  const names = await readdir(root).catch(() => [] as string[]);
  for (const name of names) {
    const match = /^arbor-job-(\d+\.\d+)-[^/]+$/.exec(name);
    if (match && !ownerAlive(match[1]!)) await rm(path.join(root, name), {recursive: true, force: true}).catch(() => {});
  }
}

/** Send an eval's progress to the job, signed: finished steps as they come, transient ones at most twice a second. */
function progressForwarder(
  job: {updateProgress(value: object): Promise<void>},
  seal: (update: {kind: 'line' | 'status'; text: string}) => object,
): {send: (kind: 'line' | 'status', text: string) => void; flush: () => Promise<void>} {
  let last = 0;
  let waiting: {kind: 'line' | 'status'; text: string} | undefined;
  let timer: NodeJS.Timeout | undefined;
  let sending: Promise<unknown> = Promise.resolve();
  const push = (update: {kind: 'line' | 'status'; text: string}) => {
    last = Date.now();
    sending = sending.then(() => job.updateProgress(seal(update))).catch(() => {});
  };
  return {
    send(kind, text) {
      if (kind === 'line') return push({kind, text});
      waiting = {kind, text};
      if (timer) return;
      timer = setTimeout(
        () => {
          timer = undefined;
          if (waiting) push(waiting);
          waiting = undefined;
        },
        Math.max(0, 500 - (Date.now() - last)),
      );
    },
    async flush() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      waiting = undefined;
      await sending;
    },
  };
}
