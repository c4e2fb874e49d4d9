/**
 * The queue worker: takes eval jobs from a Redis-backed BullMQ queue, writes
 * each job's files into a private temporary folder, checks their hashes, runs
 * the eval here (with this machine's ARBOR_TEST_SALT, python and sandbox) and
 * returns the report. It records nothing itself: the submitter does.
 *
 * Each eval runs in a child process (eval-child.ts), so this process only
 * talks to the queue and its locks are renewed on time.
 *
 * A worker that dies mid-job loses nothing: its job's lock runs out and
 * BullMQ's stalled-job check, run by every other worker, puts the job back on
 * the queue. `stalledSeconds` sets both the lock's duration and the check's
 * interval, so a job comes back between one and two of them after its worker
 * died.
 */
import {fork, type ChildProcess} from 'node:child_process';
import {mkdtemp, readdir, rm} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {UsageError} from '../errors.js';
import {HarnessError} from '../eval/errors.js';
import {ownerAlive, ownerTag} from '../eval/owner.js';
import type {EvalReport} from '../eval/types.js';
import type {EvalChildMessage, EvalChildRequest} from './eval-child.js';
import {describeJob, JobRefusedError, materializeJob} from './job.js';
import {checkRedis, connectionOptions, defaultQueueName, type QueueAddress} from './redis.js';
import {describeFailure} from './result.js';
import type {JobReturn} from './submit.js';

/** The stalled-job interval (s) when none is given: BullMQ's own default. */
export const defaultStalledSeconds = 30;
/** The environment variable setting it. */
export const stalledVariable = 'ARBOR_QUEUE_STALLED_SECONDS';

/** Options of startWorker. */
export interface QueueWorkerOptions {
  address: QueueAddress;
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

/** Connect to the queue and start taking jobs. */
export async function startWorker(options: QueueWorkerOptions): Promise<RunningWorker> {
  const env = options.env ?? process.env;
  const log = options.onLog ?? (() => {});
  const stalledMs = Math.round(resolveStalledSeconds(options.stalledSeconds, env) * 1000);
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError(`--concurrency ${concurrency}: expected a whole number of jobs, at least 1`);
  const name = options.name ?? `${os.hostname()}:${process.pid}`;
  await checkRedis(options.address);
  await removeStaleJobFolders();
  const {Worker, UnrecoverableError} = await import('bullmq');
  const children = new Set<ChildProcess>();
  let stopping = false;

  const processJob = async (job: {id?: string; data: unknown; updateProgress(value: object): Promise<void>}): Promise<JobReturn> => {
    const what = `job ${job.id} (${describeJob(job.data)})`;
    log(`${what}: started`);
    const root = await mkdtemp(path.join(os.tmpdir(), `${jobFolderPrefix}${ownerTag()}-`));
    try {
      const files = await materializeJob(job.data, root);
      const forward = progressForwarder(job);
      const request: EvalChildRequest = {benchmark: files.dir, split: files.split, solution: files.solution, unsandboxed: options.unsandboxed};
      const report = await evalInChild(request, {env, cwd: root, children, onProgress: forward.send});
      await forward.flush();
      log(`${what}: score ${report.score}${report.failure ? ` (${report.failure})` : ''} in ${report.seconds.toFixed(1)} s`);
      return {report, worker: name};
    } catch (error) {
      // Stopped on purpose: leave the job unsettled, so it goes back on the queue once this worker's lock lapses.
      if (stopping) return new Promise<never>(() => {});
      const message = describeFailure(error);
      log(`${what}: ${error instanceof JobRefusedError ? '' : 'no score: '}${message}`);
      // A refused job or a harness failure fails the job for good: another worker would see the same files.
      throw new UnrecoverableError(message);
    } finally {
      await rm(root, {recursive: true, force: true}).catch(() => {});
    }
  };

  const worker = new Worker(options.queueName ?? defaultQueueName, processJob as never, {
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
  await worker.waitUntilReady();
  return {
    name,
    async stop() {
      stopping = true;
      for (const child of children) child.kill('SIGTERM');
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

/** Where the eval child's module is: next to this one. */
const evalChildPath = fileURLToPath(new URL('./eval-child.js', import.meta.url));

/** Run one eval in a child process; resolves with its report, rejects with its error (or why it ended without either). */
function evalInChild(
  request: EvalChildRequest,
  options: {env: NodeJS.ProcessEnv; cwd: string; children: Set<ChildProcess>; onProgress: (kind: 'line' | 'status', text: string) => void},
): Promise<EvalReport> {
  return new Promise((resolve, reject) => {
    const child = fork(evalChildPath, [], {cwd: options.cwd, env: options.env, stdio: ['ignore', 'ignore', 'pipe', 'ipc']});
    options.children.add(child);
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (text: string) => {
      stderr = (stderr + text).slice(-2000);
    });
    let answer: EvalChildMessage | undefined;
    child.on('message', (message: EvalChildMessage) => {
      if (message.type === 'progress') options.onProgress(message.kind, message.text);
      else answer = message;
    });
    child.on('error', (error) => {
      options.children.delete(child);
      reject(new HarnessError(`cannot start the eval process: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      options.children.delete(child);
      if (answer?.type === 'report') return resolve(answer.report);
      if (answer?.type === 'error') return reject(new HarnessError(answer.message, 'eval'));
      const last = stderr.trim().split('\n').pop() ?? '';
      reject(new HarnessError(`the eval process ended without a report (${signal ? `signal ${signal}` : `exit code ${code}`})${last ? `: ${last}` : ''}`));
    });
    child.send(request);
  });
}

/** Send an eval's progress to the job: finished steps as they come, transient ones at most twice a second. */
function progressForwarder(job: {updateProgress(value: object): Promise<void>}): {send: (kind: 'line' | 'status', text: string) => void; flush: () => Promise<void>} {
  let last = 0;
  let waiting: {kind: 'line' | 'status'; text: string} | undefined;
  let timer: NodeJS.Timeout | undefined;
  let sending: Promise<unknown> = Promise.resolve();
  const push = (update: {kind: 'line' | 'status'; text: string}) => {
    last = Date.now();
    sending = sending.then(() => job.updateProgress(update)).catch(() => {});
  };
  return {
    send(kind, text) {
      if (kind === 'line') return push({kind, text});
      waiting = {kind, text};
      if (timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        if (waiting) push(waiting);
        waiting = undefined;
      }, Math.max(0, 500 - (Date.now() - last)));
    },
    async flush() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      waiting = undefined;
      await sending;
    },
  };
}
