/**
 * The runs of `arbor mcp` (evaluate, compare, submit_test): each in a process
 * of its own (runner.ts), started detached so it outlives the server, its
 * state in the zoo's MCP store (store.ts), so any server on the zoo answers
 * `get_run` and MCP tasks for it, after a reconnect or a restart. A server
 * keeps nothing of a run in memory: it polls the store while a call waits.
 * A run is cancelled by SIGTERM to its process (the pipeline's interrupt
 * cleanup: runs killed, work folder removed), then SIGKILL if it lingers.
 */
import {fork} from 'node:child_process';
import {chmodSync, closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {evalEnvironment} from '../secrets.js';
import {RefusedError} from '../errors.js';
import {answerAt} from './release.js';
import {type RunnerSpec, sealedFailure} from './run-request.js';
import {alive, lastRelease, type McpStore, nextRelease, processStart, type ReleaseClock, type RunStatus, runnerAlive, type StoredRun} from './store.js';

const runnerPath = fileURLToPath(new URL('./runner.js', import.meta.url));
/** How long a cancelled eval gets to clean up before SIGKILL. */
const graceMs = 10_000;
/** A sealed run's clock-driven progress: one update this often. */
export const heartbeatMs = 5_000;
/** The most dev runs under way on a zoo at once (ARBOR_MCP_MAX_RUNS): each is a process that outlives its server. */
const defaultMaxRuns = 8;
/** How often a waiting call looks at the store. */
const pollMs = 250;

/** What an MCP task asked for: its ttl (ms; null: the store's own rule) and poll interval. */
export interface TaskOptions {
  ttlMs: number | null;
  pollMs: number;
}

/** A run as get_run and the tasks show it: a sealed run's progress comes from a clock, never from its eval. */
export interface RunView {
  /** Its public id, the one its client was given. */
  id: string;
  /** The store's row number: this server's handle, never shown. */
  number: number;
  tool: string;
  sealed: boolean;
  status: RunStatus;
  started: string;
  updated: string;
  progress: {updates: number; last: string | null};
  /** A sealed run still running: when its answer comes (ms since the epoch; the next release time). */
  answerAt?: number;
  result?: Record<string, unknown>;
  error?: string;
  task: TaskOptions | null;
}

/** The shape of a public run id (store.ts makes them): `run-` and 22 URL-safe characters. */
const publicIdShape = /^run-[A-Za-z0-9_-]{22}$/;

/**
 * The runs of one zoo, as one server sees them. A run belongs to the client
 * that started it, the client being the server's workspaces folder (the
 * folder its checkouts are made and accepted in: a client whose workspaces
 * another can read shares its solutions anyway); `find` is where that is
 * decided, for every tool and task call that names a run.
 */
export class Runs {
  readonly #store: McpStore;
  readonly #env: NodeJS.ProcessEnv;
  readonly #where: {zoo: string; workspaces: string};
  readonly #maxRuns: number;
  /** Counts a dev run against its session, or refuses it (session.ts); under the store's lock. */
  readonly #admit: (tool: string) => void;
  /** Whose runs this server's clients make and see. */
  readonly owner: string;

  constructor(store: McpStore, env: NodeJS.ProcessEnv, where: {zoo: string; workspaces: string}, admit: (tool: string) => void = () => {}) {
    this.#store = store;
    this.#admit = admit;
    this.#env = env;
    this.#where = where;
    this.owner = where.workspaces;
    const max = Number(env.ARBOR_MCP_MAX_RUNS);
    this.#maxRuns = Number.isSafeInteger(max) && max > 0 ? max : defaultMaxRuns;
  }

  /**
   * The run a client names by `id`: its row number when `id` is the public id
   * of a run of this owner; undefined for anything else: an unknown id, a
   * malformed one, a run of version 1 (numbered ids), another client's run.
   * Callers answer every undefined with one text, so none of them tells a run
   * that exists from one that does not.
   */
  find(id: string): number | undefined {
    return publicIdShape.test(id) ? this.#store.ownedRun(id, this.owner) : undefined;
  }

  /** The public id of run `id` (made by create). */
  publicId(id: number): string {
    return this.#store.run(id)?.publicId ?? 'run-?';
  }

  /**
   * Which ledger runs are another client's: recorded by a run of another
   * owner, or possibly so (recorded since such a run, still running, started:
   * its process writes the ledger first, then its owner). Runs recorded
   * outside MCP (the owner's, with the CLI) are nobody's: every client sees them.
   */
  othersLedgerRuns(): (run: {id: number; time: string}) => boolean {
    const owners = this.#store.ledgerOwners();
    const since = this.#store.othersRunningSince(this.owner);
    return (run) => {
      const owner = owners.get(run.id);
      return owner !== undefined ? owner !== this.owner : since !== null && run.time >= since;
    };
  }

  /**
   * Start a run in a detached process of its own (its environment: the
   * server's less its secrets); its number, once the process has its spec (a
   * server that exited before would lose it).
   */
  async launch(spec: Omit<RunnerSpec, 'store' | 'run' | 'id' | 'zoo' | 'workspaces'>, options: {sealed: boolean; task?: TaskOptions | null}): Promise<number> {
    let id: number;
    try {
      id = this.create(spec.tool, {...options, name: spec.name});
    } catch (error) {
      for (const folder of spec.scratch ?? []) rmSync(folder, {recursive: true, force: true});
      throw error;
    }
    return this.start(id, spec);
  }

  /**
   * A new run's row (running, no process yet: start gives it one within a
   * moment). A dev run past the most that may run at once is refused: each is
   * a process, and they outlive the server.
   */
  create(tool: string, options: {sealed: boolean; name?: string; key?: string | null; task?: TaskOptions | null; release?: ReleaseClock}): number {
    return this.#store.exclusive(() => {
      if (!options.sealed && this.#store.runningDevRuns() >= this.#maxRuns) {
        throw new RefusedError(
          `${tool}: ${this.#maxRuns} runs are under way on this zoo, the most at once (ARBOR_MCP_MAX_RUNS): wait for one (get_run) or cancel one`,
          'busy',
        );
      }
      if (!options.sealed) this.#admit(tool);
      return this.#store.createRun({
        owner: this.owner,
        tool,
        name: options.name,
        sealed: options.sealed,
        key: options.key ?? null,
        task: options.task ?? null,
        release: options.release,
      });
    });
  }

  /** Start the process of run `id` (made by create); its number once the process has its spec. */
  async start(id: number, spec: Omit<RunnerSpec, 'store' | 'run' | 'id' | 'zoo' | 'workspaces'>): Promise<number> {
    const publicId = this.publicId(id);
    const fd = this.#openLog(id, publicId);
    try {
      const child = fork(runnerPath, [], {detached: true, env: evalEnvironment(this.#env), stdio: ['ignore', 'ignore', fd, 'ipc']});
      if (child.pid !== undefined) this.#store.setRunner(id, child.pid, processStart(child.pid));
      await new Promise<void>((resolve) => {
        const failed = (why: string) => {
          this.#store.finish(id, 'failed', {error: `${publicId}: its process could not start: ${why}`});
          resolve();
        };
        child.once('message', () => resolve());
        child.once('error', (error) => failed(error.message));
        child.once('exit', (code, signal) => failed(signal ? `signal ${signal}` : `exit code ${code}`));
        child.send({...spec, ...this.#where, store: this.#store.file, run: id, id: publicId} satisfies RunnerSpec);
      });
      child.removeAllListeners('exit');
      // It has its spec: this server need not stay up for it.
      child.unref();
    } finally {
      closeSync(fd);
    }
    return id;
  }

  /** Run `id`'s log, created 0600 in its folder, which is made (or made again) 0700: the owner's alone. */
  #openLog(id: number, publicId: string): number {
    const folder = this.#store.logFolder();
    mkdirSync(folder, {recursive: true, mode: 0o700});
    const stats = statSync(folder);
    if (stats.uid === process.getuid?.() && (stats.mode & 0o077) !== 0) chmodSync(folder, 0o700);
    return openSync(this.#store.logFile({id, publicId}), 'w', 0o600);
  }

  /** A run whose work is `work` in this server (a queued sealed compare): stored as it ends; it ends with this server. */
  track(
    tool: string,
    work: (id: string) => Promise<Record<string, unknown>>,
    options: {sealed: boolean; name?: string; task?: TaskOptions | null; release?: ReleaseClock},
  ): number {
    const id = this.create(tool, options);
    this.#store.setRunner(id, process.pid, processStart(process.pid));
    const end = (status: 'done' | 'failed', outcome: {result?: Record<string, unknown>; error?: string}) => {
      const at = options.release ? lastRelease(options.release, Date.now()) : Date.now();
      try {
        this.#store.finish(id, status, outcome, at);
      } catch {
        // The store closed with the server: the run reads as failed to the next server (its process, this one, is gone).
      }
    };
    const publicId = this.publicId(id);
    work(publicId).then(
      (result) => end('done', {result: {id: publicId, ...result}}),
      (error: Error) => end('failed', {error: error.message}),
    );
    return id;
  }

  /** A run by number, as shown; a running one whose process is gone is failed on the way. */
  view(id: number): RunView | undefined {
    let run = this.#store.run(id);
    if (run?.status === 'running' && !runnerAlive(run)) {
      if (run.release) {
        // A sealed run's failure shows at a release time, never before: when its process died says nothing then.
        const failAt = run.failAt ?? nextRelease(run.release, Date.now());
        if (run.failAt === null) this.#store.setFailAt(id, failAt);
        if (Date.now() >= failAt) this.#store.finish(id, 'failed', {error: sealedFailure(run.name ?? 'the benchmark')}, failAt);
      } else {
        this.#store.finish(id, 'failed', {error: `${run.publicId ?? 'the run'}: its process ended without a result${lastLine(this.#store.logFile(run))}`});
      }
      run = this.#store.run(id);
    }
    if (!run) return undefined;
    const progress = run.sealed ? sealedProgress(run) : {updates: run.updates, last: run.last};
    return {
      id: run.publicId ?? 'run-?',
      number: run.id,
      tool: run.tool,
      sealed: run.sealed,
      status: run.status,
      started: run.started,
      updated: run.updated,
      progress,
      ...(run.sealed && run.release && run.status === 'running' ? {answerAt: nextRelease(run.release, Date.now())} : {}),
      ...(run.result ? {result: run.result} : {}),
      ...(run.error ? {error: run.error} : {}),
      task: run.task ? {ttlMs: run.ttlMs, pollMs: run.pollMs ?? 1000} : null,
    };
  }

  /** Wait until run `id` ends, telling `onUpdate` of each progress update, in order (a sealed run's: its clock's). */
  async wait(id: number, onUpdate?: (update: {n: number; text: string}) => void): Promise<RunView> {
    let seen = 0;
    for (;;) {
      const view = this.view(id);
      if (!view) throw new Error(`${this.publicId(id)} is gone from the store`);
      if (view.sealed) {
        if (view.progress.updates > seen && view.progress.last !== null) onUpdate?.({n: view.progress.updates, text: view.progress.last});
        seen = view.progress.updates;
      } else {
        for (const update of this.#store.progressSince(id, seen)) {
          seen = update.n;
          onUpdate?.(update);
        }
      }
      if (view.status !== 'running') return view;
      // Unref'd: a server whose client left does not stay up to watch.
      await new Promise((resolve) => setTimeout(resolve, pollMs).unref());
    }
  }

  /**
   * Cancel run `id`: stored as cancelled, its process stopped (SIGTERM, SIGKILL
   * after a grace). A sealed run is never cancelled (the call has counted, and
   * whether a cancel found its eval still running would say when it ended).
   * Whether it was cancelled.
   */
  cancel(id: number): boolean {
    const run = this.#store.run(id);
    if (!run || run.status !== 'running' || run.sealed) return false;
    if (!this.#store.finish(id, 'cancelled', {error: `${run.publicId ?? 'the run'} was cancelled: its eval was stopped and its work folder removed`}))
      return false;
    if (run.pid !== null && run.pid !== process.pid && alive(run.pid, run.pidStart)) {
      process.kill(run.pid, 'SIGTERM');
      const {pid, pidStart} = run;
      setTimeout(() => alive(pid, pidStart) && process.kill(pid, 'SIGKILL'), graceMs).unref();
    }
    return true;
  }

  /** Forget ended runs past their ttl or `keepMs`, and the logs of runs the store no longer holds. */
  sweep(keepMs: number): void {
    this.#store.sweepRuns(keepMs);
    const folder = this.#store.logFolder();
    let names: string[] = [];
    try {
      // Listed before the runs are read: a log made meanwhile is not listed, and its run (made before it) is read.
      names = readdirSync(folder);
    } catch {
      return;
    }
    const kept = new Set(this.#store.runIds().map((run) => path.basename(this.#store.logFile(run))));
    for (const name of names) if (/^run-[0-9a-z]+\.log$/.test(name) && !kept.has(name)) rmSync(path.join(folder, name), {force: true});
  }
}

/**
 * A sealed run's progress: one update per heartbeat since it started, while it
 * runs, each with the time left to its answer (a clock's, fixed at the call);
 * nothing of its eval.
 */
function sealedProgress(run: StoredRun): {updates: number; last: string | null} {
  // An ended run's count stops at its end, which is its release time: fixed, it says nothing of the eval.
  const now = run.status === 'running' ? Date.now() : Date.parse(run.updated);
  const updates = Math.max(0, Math.floor((now - run.startedMs) / heartbeatMs));
  if (updates === 0 || run.status !== 'running') return {updates, last: null};
  const left = run.release ? `, ${answerAt(nextRelease(run.release, now), now)}` : '';
  return {updates, last: `test eval running (${updates} updates)${left}`};
}

/** `: <the log's last line>`, or nothing. */
function lastLine(file: string): string {
  try {
    const last = readFileSync(file, 'utf8').trim().split('\n').pop() ?? '';
    return last ? `: ${last}` : '';
  } catch {
    return '';
  }
}
