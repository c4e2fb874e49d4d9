/**
 * Process control for solution and reference runs: every run is a fresh
 * process in its own process group (detached spawn), its stdout and stderr
 * are captured (a bounded tail, never forwarded), and a time limit kills the
 * whole group with SIGKILL.
 */
import {spawn, spawnSync} from 'node:child_process';
import {accessSync, constants, existsSync, statSync} from 'node:fs';
import {readFile} from 'node:fs/promises';
import path from 'node:path';
import type {Duplex} from 'node:stream';
import {UsageError} from '../errors.js';
import {HarnessError} from './errors.js';

/** The runner's out/results.json. */
export interface RunnerResults {
  init_s: number | null;
  warmup_s?: number;
  error?: string;
  cases: Array<{i: number; seconds: number | null; status: 'ok' | 'crashed'; note: string | null}>;
}

/** What to run and under which limits. Limits are in seconds. */
export interface RunRequest {
  python: string;
  runner: string;
  solution: string;
  manifest: string;
  cases: string;
  signature: string;
  /** The run folder: the process's cwd; results go to `<cwd>/out`. */
  cwd: string;
  warmup?: string;
  only?: number[];
  /** Cases in the work directory: events for other indices are ignored (forged). */
  caseCount: number;
  /** Start-up (interpreter, imports, init()) and the gaps between cases. */
  initTimeout: number;
  /** Limit of case i (i = -1 is the warm-up case). */
  caseTimeout: (i: number) => number;
  /** Hard limit on the whole process, whatever it reports. */
  totalTimeout: number;
  /** Prefix the command with `taskset -c <pin>` (a CPU number), or undefined. */
  pin?: string;
  env: NodeJS.ProcessEnv;
}

/** How a run ended. */
export interface RunOutcome {
  /** Exit code, or null when killed by a signal. */
  exitCode: number | null;
  signal: string | null;
  /** Set when the harness killed the process at a limit: which case (-1 warm-up, null start-up) and the limit. */
  killed?: {i: number | null; limit: number; reason: 'case' | 'start' | 'total'};
  /** Whether the runner said it started (python and numpy work) before any solution code ran. */
  started: boolean;
  /** Wall time of the process, spawn to exit. */
  wallSeconds: number;
  /**
   * Seconds of each case as arbor saw them: from the first `start` event of the
   * case to its last `done` event. The runner's own times come from inside the
   * solution's process, where the solution can patch the clock; this span does
   * not depend on that clock. It is not proof against a solution that takes over
   * the event socket itself (it runs in the same process): see lib/eval/README.md.
   */
  observedSeconds: Map<number, number>;
  /** The runner's results.json (null when it never wrote one). */
  results: RunnerResults | null;
  stdoutTail: string;
  stderrTail: string;
}

const tailBytes = 8192;

/** Process groups of the runs in flight, so an interrupted eval can kill them (see killActiveRuns). */
const activeGroups = new Set<number>();

/** Kill every run in flight with its whole process group (for SIGINT/SIGTERM handlers). */
export function killActiveRuns(): void {
  for (const pid of activeGroups) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  activeGroups.clear();
}

/** Environment for every solution and reference process: one thread for BLAS and OpenMP. */
export function singleThreadEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...base,
    OMP_NUM_THREADS: '1',
    OPENBLAS_NUM_THREADS: '1',
    MKL_NUM_THREADS: '1',
    NUMEXPR_NUM_THREADS: '1',
    VECLIB_MAXIMUM_THREADS: '1',
    BLIS_NUM_THREADS: '1',
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONUNBUFFERED: '1',
    PYTHONHASHSEED: '0',
  };
}

/**
 * The CPU to pin runs to with `taskset -c`, or undefined when pinning is off or
 * unavailable: ARBOR_EVAL_CPU (a CPU number, or "none"), default 0; only on
 * Linux where `taskset -c <cpu> true` works (util-linux present, CPU allowed).
 */
export function pinnedCpu(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const cpu = (env.ARBOR_EVAL_CPU ?? '0').trim();
  if (cpu !== 'none' && !/^\d+$/.test(cpu)) {
    throw new UsageError(`ARBOR_EVAL_CPU=${env.ARBOR_EVAL_CPU} is not a CPU number, expected e.g. 0 or "none" (no pinning)`);
  }
  if (process.platform !== 'linux' || cpu === 'none') return undefined;
  const result = spawnSync('taskset', ['-c', cpu, 'true'], {stdio: 'ignore'});
  return result.status === 0 ? cpu : undefined;
}

/**
 * Find python3 without starting it (ARBOR_PYTHON overrides the PATH lookup):
 * an absolute path, or a HarnessError with the fix. Whether numpy imports is
 * learnt from the first run (the runner's "started" event), which saves a
 * whole interpreter start per eval.
 */
export function findPython(env: NodeJS.ProcessEnv = process.env): string {
  const python = env.ARBOR_PYTHON || 'python3';
  const executable = (file: string) => {
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  };
  if (python.includes('/')) {
    if (executable(path.resolve(python))) return path.resolve(python);
    if (existsSync(python)) {
      throw new HarnessError(`ARBOR_PYTHON=${python} is not an executable file: set it to a python3 that has numpy`, 'no-python');
    }
  } else {
    for (const dir of (env.PATH ?? '').split(path.delimiter)) {
      if (dir && executable(path.join(dir, python))) return path.join(dir, python);
    }
  }
  throw new HarnessError(`${python} not found: install Python 3 with numpy, or set ARBOR_PYTHON to a python3 that has numpy`, 'no-python');
}

/** The HarnessError for a run whose runner never started (python, numpy or the runner itself broken). */
export function startFailure(python: string, outcome: RunOutcome): HarnessError {
  if (/No module named .?numpy|numpy is not installed/.test(outcome.stderrTail)) {
    return new HarnessError(`numpy is not installed for ${python}: run '${python} -m pip install numpy' (or set ARBOR_PYTHON)`, 'no-numpy');
  }
  const last = outcome.stderrTail.trim().split('\n').pop() || `exit code ${outcome.exitCode ?? outcome.signal}`;
  return new HarnessError(`${python} could not start arbor's runner: ${last.slice(0, 300)}`, 'no-python');
}

/** Run the protected runner once and wait for it to end (never throws for solution failures). */
export async function runSolution(request: RunRequest): Promise<RunOutcome> {
  const args = [
    '-B',
    request.runner,
    '--solution',
    request.solution,
    '--manifest',
    request.manifest,
    '--cases',
    request.cases,
    '--out',
    path.join(request.cwd, 'out'),
    '--signature',
    request.signature,
    '--events-fd',
    '3',
  ];
  if (request.warmup) args.push('--warmup', request.warmup);
  if (request.only) args.push('--only', request.only.join(','));
  const command = request.pin ? 'taskset' : request.python;
  const argv = request.pin ? ['-c', request.pin, request.python, ...args] : args;

  const spawnedAt = process.hrtime.bigint();
  const child = spawn(command, argv, {
    cwd: request.cwd,
    env: request.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  if (child.pid !== undefined) activeGroups.add(child.pid);
  let stdoutTail = '';
  let stderrTail = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdoutTail = (stdoutTail + chunk.toString('utf8')).slice(-tailBytes);
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-tailBytes);
  });

  let killed: RunOutcome['killed'];
  const killGroup = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  const kill = (info: NonNullable<RunOutcome['killed']>) => {
    if (!killed) killed = info;
    killGroup();
  };

  let timer: NodeJS.Timeout | undefined;
  const arm = (seconds: number, info: NonNullable<RunOutcome['killed']>) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => kill(info), timerMs(seconds));
  };
  arm(request.initTimeout, {i: null, limit: request.initTimeout, reason: 'start'});
  const total = setTimeout(
    () => kill({i: null, limit: request.totalTimeout, reason: 'total'}),
    timerMs(request.totalTimeout),
  );

  let pending = '';
  let started = false;
  const caseStarts = new Map<number, bigint>();
  const observedSeconds = new Map<number, number>();
  const events = child.stdio[3] as Duplex | null;
  events?.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    let newline: number;
    while ((newline = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      let event: {ev?: string; i?: number};
      try {
        event = JSON.parse(line) as {ev?: string; i?: number};
      } catch {
        continue;
      }
      if (event.ev === 'started') started = true;
      const now = process.hrtime.bigint();
      // Indices outside the work directory's cases (and -1 only with a warm-up) cannot come from the runner.
      const i = event.i;
      const known = typeof i === 'number' && Number.isInteger(i) && i >= (request.warmup ? -1 : 0) && i < request.caseCount;
      if (event.ev === 'start' && known) {
        // Only the first start of a case counts, is armed and is answered: the runner waits for
        // "go" before calling run(), so the span starts no later than the call however late this
        // loop reads the socket. A repeated (forged) start gets nothing, so flooding starts can
        // neither re-arm the limit nor pile up unread answers.
        if (caseStarts.has(i)) continue;
        caseStarts.set(i, now);
        const limit = request.caseTimeout(i);
        arm(limit, {i, limit, reason: 'case'});
        events!.write('go\n');
      } else if (event.ev === 'done' || event.ev === 'ready') {
        if (event.ev === 'done' && known && caseStarts.has(i)) {
          // The last done counts: a forged early one is followed by the runner's own.
          observedSeconds.set(i, Number(now - caseStarts.get(i)!) / 1e9);
        }
        arm(request.initTimeout, {i: null, limit: request.initTimeout, reason: 'start'});
      }
    }
    if (pending.length > 65536) pending = '';
  });
  events?.on('error', () => {});

  const exit = await new Promise<{code: number | null; signal: string | null}>((resolve) => {
    child.on('error', (error) => {
      stderrTail += `\nspawn failed: ${error.message}`;
      resolve({code: null, signal: null});
    });
    child.on('exit', (code, signal) => resolve({code, signal}));
  });
  const wallSeconds = Number(process.hrtime.bigint() - spawnedAt) / 1e9;
  if (timer) clearTimeout(timer);
  clearTimeout(total);
  // Children the solution left behind in its group go too.
  killGroup();
  if (child.pid !== undefined) activeGroups.delete(child.pid);
  // Stop waiting on pipes a detached grandchild may still hold open.
  for (const stream of [child.stdout, child.stderr, events]) stream?.destroy();

  let results: RunnerResults | null = null;
  try {
    results = JSON.parse(await readFile(path.join(request.cwd, 'out', 'results.json'), 'utf8')) as RunnerResults;
    if (!results || !Array.isArray(results.cases)) results = null;
  } catch {
    results = null;
  }
  return {exitCode: exit.code, signal: exit.signal, killed, started, wallSeconds, observedSeconds, results, stdoutTail, stderrTail};
}

/** setTimeout milliseconds for a limit in seconds: NaN or non-positive fire at once, never past 2^31-1 ms (which would overflow and fire at once too). */
function timerMs(seconds: number): number {
  if (!(seconds > 0)) return 0;
  return Math.min(Math.ceil(seconds * 1000), 2 ** 31 - 1);
}
