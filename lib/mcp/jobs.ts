/**
 * The evals `arbor mcp` runs: each in a child process (job-child.ts), each
 * with an id a client can poll (`get_run`) when its own call gave up waiting.
 * A job is cancelled by SIGTERM to its process (the pipeline's interrupt
 * cleanup: runs killed, work folder removed), then SIGKILL if it lingers.
 */
import {fork, type ChildProcess} from 'node:child_process';
import {EvalIsolation} from './isolation.js';
import {fileURLToPath} from 'node:url';
import type {JobMessage, JobRequest} from './job-child.js';

/** A job's state as `get_run` shows it. */
export type JobStatus = 'running' | 'done' | 'failed' | 'cancelled';

/** One eval or compare the server started. */
export interface Job {
  id: string;
  tool: string;
  status: JobStatus;
  started: string;
  /** Progress updates so far, and the last one's text (a sealed job's says nothing of its numbers). */
  updates: number;
  last: string | null;
  /** The tool's structured result once done. */
  result?: Record<string, unknown>;
  error?: string;
  /** Settles with the result (or the error) when the job ends. */
  done: Promise<Record<string, unknown>>;
  cancel: () => void;
}

/** How a job reports to whoever waits on it. */
export interface JobOptions {
  /**
   * Sealed (test split): the eval's progress is never passed on, not even its
   * count; the job's updates come from a clock (one every `heartbeatMs`), so
   * neither their text, their number nor their timing says anything of the eval.
   */
  sealed?: boolean;
  /** The eval process's environment (the server's less its secrets). */
  env: NodeJS.ProcessEnv;
  onProgress?: (job: Job) => void;
  /** Applied to every error text the job keeps or throws (a sealed job's blanks its test seeds). */
  redact?: (text: string) => string;
}

const childPath = fileURLToPath(new URL('./job-child.js', import.meta.url));
/** How long a cancelled eval gets to clean up before SIGKILL. */
const graceMs = 10_000;
/** A sealed job's clock-driven progress: one update this often. */
export const heartbeatMs = 5_000;

/** An eval process: its answer, and how to stop it. */
export interface EvalProcess {
  answer: Promise<JobMessage>;
  /** SIGTERM (the pipeline's cleanup), then SIGKILL if it lingers; the answer then rejects with `cancelled`. */
  stop: () => void;
  /** Whether stop was called. */
  stopped: () => boolean;
}

/** The jobs of one server (shared by every session of an HTTP server). */
export class JobStore {
  readonly #jobs = new Map<string, Job>();
  readonly #children = new Set<ChildProcess>();
  #next = 1;
  /** Who runs when: a sealed eval alone, dev evals side by side. */
  readonly isolation = new EvalIsolation();

  /** Start `request` in a child; `finish` turns its answer into the tool's result (recording it on the way). */
  start(tool: string, request: JobRequest, finish: (answer: JobMessage) => Promise<Record<string, unknown>>, options: JobOptions): Job {
    let job: Job | undefined;
    const child = this.fork(request, {
      ...options,
      onProgress: (text) => {
        job!.updates++;
        job!.last = text;
        options.onProgress?.(job!);
      },
    });
    job = this.track(tool, child.answer.then(finish), {...options, cancel: child.stop, cancelled: child.stopped});
    return job;
  }

  /**
   * Run `request` in an eval process of its own (job-child.ts), not yet a job:
   * a sealed job forks one and answers when it chooses. `onProgress` gets the
   * eval's progress text (never for a sealed request: the caller decides).
   */
  fork(request: JobRequest, options: {env: NodeJS.ProcessEnv; sealed?: boolean; onProgress?: (text: string) => void}): EvalProcess {
    let child: ChildProcess | undefined;
    let cancelled = false;
    let cancelWait: (error: Error) => void = () => {};
    const waitCancelled = new Promise<never>((_, reject) => (cancelWait = reject));
    waitCancelled.catch(() => {});
    const stop = () => {
      if (cancelled) return;
      // Still waiting for its turn (isolation.ts): it never starts.
      if (!child) {
        cancelled = true;
        cancelWait(new Error('cancelled'));
        return;
      }
      if (child.exitCode !== null || child.signalCode !== null) return;
      cancelled = true;
      child.kill('SIGTERM');
      const started = child;
      setTimeout(() => started.exitCode === null && started.signalCode === null && started.kill('SIGKILL'), graceMs).unref();
    };
    // A sealed eval runs alone, the dev evals side by side (isolation.ts).
    const answer = this.isolation.run(
      options.sealed === true,
      () => {
        if (cancelled) return Promise.reject(new Error('cancelled'));
        child = fork(childPath, [], {env: options.env, stdio: ['ignore', 'ignore', 'pipe', 'ipc']});
        return this.#answer(child, request, options, () => cancelled);
      },
      waitCancelled,
      // Told after fork returns (start then holds the job the progress belongs to).
      () =>
        queueMicrotask(() => {
          if (!options.sealed) options.onProgress?.('waiting for its turn: a sealed test eval runs alone on this machine');
        }),
    );
    return {answer, stop, stopped: () => cancelled};
  }

  /** What the eval process `child` answers to `request`: its report, or why it ended without one. */
  #answer(
    child: ChildProcess,
    request: JobRequest,
    options: {sealed?: boolean; onProgress?: (text: string) => void},
    cancelled: () => boolean,
  ): Promise<JobMessage> {
    this.#children.add(child);
    return new Promise<JobMessage>((resolve, reject) => {
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr = (stderr + text).slice(-2000)));
      let answer: JobMessage | undefined;
      child.on('message', (message: JobMessage) => {
        if (message.type !== 'progress') return void (answer = message);
        if (!options.sealed) options.onProgress?.(message.text);
      });
      child.on('error', (error) => reject(new Error(`cannot start the eval process: ${error.message}`)));
      child.on('close', (code, signal) => {
        this.#children.delete(child);
        if (cancelled()) return reject(new Error('cancelled'));
        if (answer?.type === 'error') return reject(new Error(answer.message));
        if (answer) return resolve(answer);
        const last = stderr.trim().split('\n').pop() ?? '';
        reject(
          new Error(
            `the eval process ended without a report (${signal ? `signal ${signal}` : `exit code ${code}`})${last && !options.sealed ? `: ${last}` : ''}`,
          ),
        );
      });
      child.send(request);
    });
  }

  /**
   * A job whose result is `work`: get_run shows it running until `work`
   * settles. `cancel` is what a client's cancellation does (nothing when
   * absent: a sealed job runs on to its answer); `cancelled` says whether it did.
   */
  track(tool: string, work: Promise<Record<string, unknown>>, options: Omit<JobOptions, 'env'> & {cancel?: () => void; cancelled?: () => boolean}): Job {
    const job: Job = {
      id: `run-${this.#next++}`,
      tool,
      status: 'running',
      started: new Date().toISOString(),
      updates: 0,
      last: null,
      done: Promise.resolve({}),
      cancel: () => {},
    };
    const cancelled = () => options.cancelled?.() ?? false;
    job.cancel = () => {
      if (job.status === 'running') options.cancel?.();
    };
    const heartbeat = options.sealed
      ? setInterval(() => {
          job.updates++;
          job.last = `test eval running (${job.updates} updates)`;
          options.onProgress?.(job);
        }, heartbeatMs)
      : undefined;
    heartbeat?.unref();
    job.done = work
      .catch((error: Error) => {
        const message = cancelled() ? `${job.id} was cancelled: its eval was stopped and its work folder removed` : error.message;
        throw new Error((options.redact ?? String)(message));
      })
      .finally(() => clearInterval(heartbeat));
    job.done.then(
      (result) => Object.assign(job, {status: 'done', result}),
      (error: Error) => Object.assign(job, {status: cancelled() ? 'cancelled' : 'failed', error: error.message}),
    );
    this.#jobs.set(job.id, job);
    return job;
  }

  get(id: string): Job | undefined {
    return this.#jobs.get(id);
  }

  /** Stop every running eval (the server is closing). */
  cancelAll(): void {
    for (const job of this.#jobs.values()) job.cancel();
    for (const child of this.#children) if (child.exitCode === null) child.kill('SIGTERM');
  }
}
