/**
 * The evals `arbor mcp` runs: each in a child process (job-child.ts), each
 * with an id a client can poll (`get_run`) when its own call gave up waiting.
 * A job is cancelled by SIGTERM to its process (the pipeline's interrupt
 * cleanup: runs killed, work folder removed), then SIGKILL if it lingers.
 */
import {fork, type ChildProcess} from 'node:child_process';
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
  /** Sealed (test split): progress says only that the eval is running, never its text. */
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

/** The jobs of one server (shared by every session of an HTTP server). */
export class JobStore {
  readonly #jobs = new Map<string, Job>();
  readonly #children = new Set<ChildProcess>();
  #next = 1;

  /** Start `request` in a child; `finish` turns its answer into the tool's result (recording it on the way). */
  start(tool: string, request: JobRequest, finish: (answer: JobMessage) => Promise<Record<string, unknown>>, options: JobOptions): Job {
    const child = fork(childPath, [], {env: options.env, stdio: ['ignore', 'ignore', 'pipe', 'ipc']});
    this.#children.add(child);
    const job: Job = {id: `run-${this.#next++}`, tool, status: 'running', started: new Date().toISOString(), updates: 0, last: null, done: Promise.resolve({}), cancel: () => {}};
    let cancelled = false;
    job.cancel = () => {
      if (job.status !== 'running' || cancelled) return;
      cancelled = true;
      child.kill('SIGTERM');
      setTimeout(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'), graceMs).unref();
    };
    job.done = new Promise<JobMessage>((resolve, reject) => {
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr = (stderr + text).slice(-2000)));
      let answer: JobMessage | undefined;
      child.on('message', (message: JobMessage) => {
        if (message.type !== 'progress') return void (answer = message);
        job.updates++;
        job.last = options.sealed ? `test eval running (${job.updates} updates)` : message.text;
        options.onProgress?.(job);
      });
      child.on('error', (error) => reject(new Error(`cannot start the eval process: ${error.message}`)));
      child.on('close', (code, signal) => {
        this.#children.delete(child);
        if (cancelled) return reject(new Error(`${job.id} was cancelled: its eval was stopped and its work folder removed`));
        if (answer?.type === 'error') return reject(new Error(answer.message));
        if (answer) return resolve(answer);
        const last = stderr.trim().split('\n').pop() ?? '';
        reject(new Error(`the eval process ended without a report (${signal ? `signal ${signal}` : `exit code ${code}`})${last && !options.sealed ? `: ${last}` : ''}`));
      });
      child.send(request);
    })
      .then(finish)
      .catch((error: Error) => {
        throw new Error((options.redact ?? String)(error.message));
      });
    job.done.then(
      (result) => Object.assign(job, {status: 'done', result}),
      (error: Error) => Object.assign(job, {status: cancelled ? 'cancelled' : 'failed', error: error.message}),
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
