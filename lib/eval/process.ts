/**
 * One run: a fresh runner process (sandboxed or not, see sandbox.ts) that
 * receives each case's inputs over a socket and sends back its answer. The
 * clock is the harness's: a case's wall time runs from the moment its inputs
 * are written to the moment the last byte of its answer arrives, and its CPU
 * time is the run's cgroup counter over the same span. stdout and stderr are
 * captured (a bounded tail, never forwarded); a limit kills the whole run.
 */
import {spawn, spawnSync} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {accessSync, constants, existsSync, readFileSync, statSync} from 'node:fs';
import path from 'node:path';
import type {Duplex} from 'node:stream';
import {UsageError} from '../errors.js';
import type {CpuGroup} from './cgroup.js';
import {leaseFolder, leaseOneOf, LeaseUnavailable, type CpuLease} from './cpu-lease.js';
import {HarnessError} from './errors.js';
import type {Launch} from './sandbox.js';
import type {PointSignature} from './signature.js';

/** A case to deliver: its index (-1: the untimed warm-up) and its arguments' bytes in signature order. */
export interface CaseInput {
  i: number;
  inputs: Buffer;
}

/** How a run's processes start, before it is given a point or cases (a run may start ahead of its turn). */
export interface RunStart {
  launch: Launch;
  /** The run's cgroup: its processes join it before the sandbox starts; CPU times come from it. */
  group?: CpuGroup;
  /** The CPUs the run starts on (a `taskset -c` list), or undefined; the runner moves to `cpu` when served. */
  startCpus?: string;
  /** Limit for the interpreter and numpy to load (until the runner says "started"), and then for init(). */
  initTimeout: number;
  /** Instructions clock: read valgrind's log from this file descriptor of the run (RunOutcome.counterLog). */
  counterLogFd?: number;
}

/** What a started run serves, under which limits (seconds). */
export interface RunService {
  point: Record<string, number>;
  signature: PointSignature;
  /** The byte size of each result, in signature order. */
  resultBytes: number[];
  cases: CaseInput[];
  /** Limit of case i (-1: the warm-up case). */
  caseTimeout: (i: number) => number;
  /** Hard limit on the run, from the moment it is served. */
  totalTimeout: number;
  /** The CPU the runner moves every thread to before any solution code loads, or undefined (no pinning). */
  cpu?: string;
  /** The eval times on the CPU clock: a case whose CPU time cannot be its work is `tampered` (implausibleCpu). */
  checkCpu?: boolean;
  /** Seconds the runner has to exit after `end` before the run is killed (default 2). */
  exitGrace?: number;
  /**
   * The warm-up and the timed cases wait for this to settle: a run started
   * ahead of its turn loads its interpreter while this one loads its solution
   * and runs init(), never while the run warms up or a case is timed.
   */
  quiet?: Promise<unknown>;
  /**
   * How the warm-up case (i = -1) is repeated: at least `minCalls` calls
   * (fewer once `enoughSeconds` of warm-up passed) and until a call takes at
   * most `stableRatio` x the fastest before it, never more than `maxCalls`
   * calls or past `maxSeconds` of them. Default: one call.
   */
  warmup?: WarmupRule;
  /**
   * Null cases to time after the warm-up (trusted runs only: the reference's):
   * the warm-up case's inputs delivered and a zero answer of the results'
   * shapes taken back, without calling the solution: what the delivery alone
   * costs on each clock.
   */
  nullCases?: number;
  /**
   * Each case carries a fresh nonce its answer must echo (the runner's `n`), so
   * no answer can be written before its case arrived. Not under the
   * instructions clock, whose held byte orders the messages instead.
   */
  nonces?: boolean;
}

/** How a run's warm-up case is repeated until its time settles. */
export interface WarmupRule {
  minCalls: number;
  enoughSeconds: number;
  stableRatio: number;
  maxCalls: number;
  maxSeconds: number;
}

/**
 * The warm-up of the CPU and wall clocks: at least 3 calls (or 0.2 s of
 * them), then until a call is within 10% of the fastest before it, at most
 * 30 calls or 1 s of them. One call left the first timed case of a 5 ms
 * solution 2-3x slower than the others (caches, branch predictors and the
 * allocator's heap are not yet the steady state's).
 */
export const settlingWarmup: WarmupRule = {minCalls: 3, enoughSeconds: 0.2, stableRatio: 1.1, maxCalls: 30, maxSeconds: 1};

/** The instructions clock's warm-up (and a run given no rule): one call, which takes the first-call costs. */
const singleCall: WarmupRule = {minCalls: 1, enoughSeconds: 0, stableRatio: Infinity, maxCalls: 1, maxSeconds: Infinity};

/** Whether the warm-up goes on after the calls timed so far (wall seconds). */
export function warmupContinues(rule: WarmupRule, calls: number[]): boolean {
  const spent = calls.reduce((total, each) => total + each, 0);
  if (calls.length >= rule.maxCalls || spent >= rule.maxSeconds) return false;
  if (calls.length < rule.minCalls && spent < rule.enoughSeconds) return true;
  if (calls.length < 2) return false;
  const last = calls[calls.length - 1]!;
  return last > rule.stableRatio * Math.min(...calls.slice(0, -1));
}

/** One timing of a case that is not scored: a warm-up call or a null case. */
export interface UntimedCall {
  /** Wall seconds, inputs sent to answer received. */
  seconds: number;
  /** CPU seconds of the run's cgroup over the same span (null without one). */
  cpuSeconds: number | null;
}

/** A whole run at once: started, then served at once. */
export interface RunRequest extends Omit<RunStart, 'startCpus'>, Omit<RunService, 'cpu'> {
  /** Pin the run to this CPU, or undefined. */
  pin?: string;
}

/** One case of a run. */
export interface CaseOutcome {
  i: number;
  status: 'ok' | 'crashed' | 'timeout' | 'not-run' | 'tampered';
  /** Wall seconds, inputs sent to answer received. */
  seconds: number | null;
  /** CPU seconds of the whole run's process tree over the same span (null without a cgroup). */
  cpuSeconds: number | null;
  /** Instructions clock: the instructions counted in the case (set after the run, from valgrind's output). */
  instructions?: number | null;
  note?: string;
  /** The answer: one buffer per result, null where the runner could not convert it. */
  answer?: Array<Buffer | null>;
}

/** How a run ended. */
export interface RunOutcome {
  /** Whether the runner said it started (python and numpy work) before any solution code ran. */
  started: boolean;
  /** Set when the solution failed to import or init() raised. */
  startError?: string;
  /** Set when the harness killed the run at a limit. */
  killed?: {i: number | null; limit: number; reason: 'case' | 'start' | 'total'};
  exitCode: number | null;
  signal: string | null;
  wallSeconds: number;
  cases: CaseOutcome[];
  stdoutTail: string;
  stderrTail: string;
  /** Instructions clock: valgrind's whole log (undefined when it passed maxCounterLog, which no honest run does). */
  counterLog?: string;
  /** Set when the run hit a limit of its cgroup (the notes of its crashed cases say so). */
  limitHit?: 'memory' | 'processes';
  /** The warm-up calls, in order. */
  warmup: UntimedCall[];
  /** The null cases (RunService.nullCases), in order. */
  nullCalls: UntimedCall[];
}

const tailBytes = 8192;
/** The index a null case is delivered under (never a real case's, never the warm-up's). */
const nullCaseIndex = -2;
/** valgrind's -v log of an honest run is ~100 KB; a run that floods it past this has its log dropped (and its cases voided). */
const maxCounterLog = 16 << 20;
/** A header line longer than this is a protocol violation (the runner's are under 1 KiB). */
const maxHeaderBytes = 1 << 16;

/** Runs in flight, so an interrupted eval can kill them (see killActiveRuns). */
const active = new Set<() => void>();

/** Kill every run in flight (for SIGINT/SIGTERM handlers). */
export function killActiveRuns(): void {
  for (const kill of active) kill();
  active.clear();
}

/** ARBOR_EVAL_CPU: "auto" (the default), "none" or a CPU number; anything else is a usage error. */
function cpuSetting(env: NodeJS.ProcessEnv): string {
  const cpu = (env.ARBOR_EVAL_CPU ?? 'auto').trim();
  if (cpu !== 'none' && cpu !== 'auto' && !/^\d+$/.test(cpu)) {
    throw new UsageError(`ARBOR_EVAL_CPU=${env.ARBOR_EVAL_CPU} is not a CPU number, expected e.g. 0, "auto" (a free allowed CPU, leased for the eval; the default) or "none" (no pinning)`);
  }
  return cpu;
}

/** Whether `taskset -c <cpu>` works here (util-linux present, CPU allowed). */
function tasksetWorks(cpu: string): boolean {
  return spawnSync('taskset', ['-c', cpu, 'true'], {stdio: 'ignore'}).status === 0;
}

/** The CPU an eval pins its runs to, and the lease that keeps other evals off it until release(). */
export interface PinnedCpu {
  cpu?: string;
  /** Set when the CPU is leased (ARBOR_EVAL_CPU=auto). */
  lease?: CpuLease;
}

/**
 * The CPU to pin an eval's runs to with `taskset -c`: ARBOR_EVAL_CPU, a CPU
 * number (used as is, no lease), "none", or "auto" (the default): a CPU no
 * other eval on this host holds, leased until the eval releases it (the idlest
 * over the last 50 ms among the free ones); while every allowed CPU is
 * leased, the eval waits (`onWait` says how long so far). Only on Linux where
 * taskset works; where no lease can be taken (no flock), the idlest CPU
 * without one, and `onWarning` says why.
 */
export async function pinCpu(env: NodeJS.ProcessEnv = process.env, hooks: {onWait?: (text: string) => void; onWarning?: (text: string) => void} = {}): Promise<PinnedCpu> {
  const setting = cpuSetting(env);
  if (process.platform !== 'linux' || setting === 'none') return {};
  if (setting !== 'auto') return tasksetWorks(setting) ? {cpu: setting} : {};
  const allowed = allowedCpus();
  if (!allowed.length) return {};
  const order = byIdleness(allowed);
  let lease: CpuLease;
  try {
    lease = await leaseOneOf(leaseFolder(env), order, {
      onWait: (waited) =>
        hooks.onWait?.(`waiting for a CPU: every allowed CPU (${allowed.join(',')}) is leased by another eval on this host${waited ? ` (${Math.round(waited)} s so far)` : ''}; ARBOR_EVAL_CPU=<n> pins to one regardless`),
    });
  } catch (error) {
    if (!(error instanceof LeaseUnavailable)) throw error;
    hooks.onWarning?.(`no CPU lease (${error.message}): another eval on this host may time on the same CPU`);
    const cpu = String(order[0]);
    return tasksetWorks(cpu) ? {cpu} : {};
  }
  if (!tasksetWorks(String(lease.cpu))) {
    lease.release();
    return {};
  }
  return {cpu: String(lease.cpu), lease};
}

/**
 * Where the runs of an eval pinned to `cpu` start: every other allowed CPU, so
 * a run starting ahead of its turn loads Python beside the one being timed,
 * not on its core (the runner moves to `cpu` when served); `cpu` itself when
 * it is the only one.
 */
export function startCpusFor(cpu: string | undefined): string | undefined {
  if (cpu === undefined) return undefined;
  const others = allowedCpus().filter((other) => String(other) !== cpu);
  return others.length ? others.join(',') : cpu;
}

/** The CPUs this process may run on (Cpus_allowed_list of /proc/self/status). */
function allowedCpus(): number[] {
  try {
    const list = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '';
    return list.split(',').flatMap((part) => {
      const [from, to = from] = part.split('-').map(Number);
      return Number.isInteger(from) && Number.isInteger(to) ? Array.from({length: to! - from! + 1}, (_, k) => from! + k) : [];
    });
  } catch {
    return [];
  }
}

/** Idle + iowait ticks of every CPU, from /proc/stat. */
function idleTicks(): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
    const match = /^cpu(\d+) (.*)$/.exec(line);
    if (!match) continue;
    const fields = match[2]!.trim().split(/\s+/).map(Number);
    ticks.set(Number(match[1]), (fields[3] ?? 0) + (fields[4] ?? 0));
  }
  return ticks;
}

/**
 * The CPUs in the order an eval tries to lease them: those about as idle as
 * the idlest over the next 50 ms (within 40% of the window) first, the
 * highest-numbered first among them, then the rest by idleness. The tie-break
 * is fixed so that evals run one after another time on the same CPU, idle or
 * evenly loaded: the CPUs of a virtual machine differ by a few percent in
 * speed (two vCPUs here: 52.2-52.4 on one, 52.9-53.7 on the other, for one
 * solution under two busy loops), and the idlest pick alone made that a
 * coin toss per eval.
 */
export function leaseOrder(cpus: readonly number[], idle: (cpu: number) => number, window: number): number[] {
  if (cpus.length <= 1) return [...cpus];
  const most = Math.max(...cpus.map(idle));
  const close = (cpu: number) => idle(cpu) >= most - 0.4 * window;
  return [...cpus].sort((a, b) => Number(close(b)) - Number(close(a)) || (close(a) ? b - a : idle(b) - idle(a)));
}

function byIdleness(cpus: number[]): number[] {
  if (cpus.length <= 1) return cpus;
  try {
    const before = idleTicks();
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    const after = idleTicks();
    // /proc/stat counts in USER_HZ ticks (100 a second on Linux): 5 in 50 ms.
    return leaseOrder(cpus, (cpu) => (after.get(cpu) ?? 0) - (before.get(cpu) ?? 0), 5);
  } catch {
    return cpus;
  }
}

/**
 * Find python3 without starting it (ARBOR_PYTHON overrides the PATH lookup):
 * an absolute path, or a HarnessError with the fix.
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

interface Frame {
  header: Record<string, unknown>;
  payload: Buffer;
}

/**
 * The harness's end of the runner's socket: header lines, each followed by a
 * payload whose size the caller derives from the header. Anything malformed
 * ends the run (a protocol violation is the solution's failure).
 */
class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private waiting?: {size: (header: Record<string, unknown>) => number; resolve: (frame: Frame) => void; reject: (error: Error) => void};
  private header?: Record<string, unknown>;
  private need = 0;
  private closed?: Error;
  /** When the last byte of the last complete frame arrived. */
  lastAt = 0n;

  constructor(socket: Duplex) {
    socket.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
      this.pump();
    });
    const end = () => this.fail(new Error('the runner closed its channel'));
    socket.on('end', end);
    socket.on('close', end);
    socket.on('error', end);
  }

  /** Bytes received that no frame asked for yet: a runner sends nothing unasked. */
  get pending(): number {
    return this.buffered;
  }

  /** The next frame; `size` gives its payload size from its header, or -1 when the header is not acceptable. */
  next(size: (header: Record<string, unknown>) => number): Promise<Frame> {
    return new Promise((resolve, reject) => {
      this.waiting = {size, resolve, reject};
      this.pump();
    });
  }

  /** End the channel: a frame not complete by now never will be. */
  fail(error: Error): void {
    this.closed ??= error;
    this.pump();
  }

  /**
   * The next `size` bytes, in a buffer of their own: copied once, whether they
   * lie in one chunk or span many (an answer of megabytes arrives in 64 KiB
   * chunks, and joining every chunk buffered, then copying the frame out again,
   * cost an eval a tenth of a second per 100 MB). What follows stays queued.
   */
  private take(size: number): Buffer {
    const parts: Buffer[] = [];
    for (let got = 0; got < size; ) {
      const chunk = this.chunks[0]!;
      const want = size - got;
      if (chunk.length <= want) {
        parts.push(chunk);
        this.chunks.shift();
        got += chunk.length;
      } else {
        parts.push(chunk.subarray(0, want));
        this.chunks[0] = chunk.subarray(want);
        got = size;
      }
    }
    this.buffered -= size;
    // Buffer.concat copies even a single part, so no frame keeps a chunk (and the bytes after it) alive.
    return Buffer.concat(parts, size);
  }

  private settle(result: {frame: Frame} | {error: Error}): void {
    const waiting = this.waiting!;
    this.waiting = undefined;
    this.header = undefined;
    if ('frame' in result) waiting.resolve(result.frame);
    else waiting.reject(result.error);
  }

  private pump(): void {
    if (!this.waiting) return;
    if (this.header === undefined) {
      const newline = this.newline();
      if (newline < 0) {
        if (this.buffered > maxHeaderBytes) return this.violate('a header line longer than 64 KiB');
        if (this.closed) this.settle({error: this.closed});
        return;
      }
      const line = this.take(newline + 1).subarray(0, newline).toString('utf8');
      let header: unknown;
      try {
        header = JSON.parse(line);
      } catch {
        return this.violate('a header line that is not JSON');
      }
      if (!header || typeof header !== 'object' || Array.isArray(header)) return this.violate('a header that is not a JSON object');
      const size = this.waiting.size(header as Record<string, unknown>);
      if (!(size >= 0)) return this.violate(`an unexpected message ${line.slice(0, 120)}`);
      this.header = header as Record<string, unknown>;
      this.need = size;
    }
    if (this.buffered >= this.need) {
      const payload = this.take(this.need);
      this.lastAt = process.hrtime.bigint();
      this.settle({frame: {header: this.header!, payload}});
    } else if (this.closed) {
      this.settle({error: this.closed});
    }
  }

  private newline(): number {
    let offset = 0;
    for (const chunk of this.chunks) {
      const at = chunk.indexOf(10);
      if (at >= 0) return offset + at;
      offset += chunk.length;
    }
    return -1;
  }

  private violate(what: string): void {
    this.closed = new Error(`the runner's channel carried ${what}`);
    this.chunks = [];
    this.buffered = 0;
    this.settle({error: this.closed});
  }
}

/** Run the runner once over the given cases and wait for every process of the run to end. */
export function runCases(request: RunRequest): Promise<RunOutcome> {
  return startRun({...request, startCpus: request.pin}).serve({...request, cpu: request.pin});
}

/** A run whose processes are starting or waiting for their turn. */
export interface StartedRun {
  /** Settles once the interpreter and numpy loaded (true) or the run could not get that far (false). */
  started: Promise<boolean>;
  /** Serve the run's cases and wait for every process of the run to end (once). */
  serve(service: RunService): Promise<RunOutcome>;
  /** End a run that will not be served. */
  cancel(): void;
}

/**
 * Start a run: the runner loads Python and numpy (arbor's code only) and says
 * "started", then waits for its point; no solution code runs before `serve`.
 */
export function startRun(start: RunStart): StartedRun {
  const {launch, group} = start;
  let command = launch.command;
  let args = launch.args;
  if (group) {
    // Join the cgroup before the sandbox starts, so every process of the run is born in it.
    // `sh -c SCRIPT procs... command args...`: $0, $1, ... are the groups' files; then the command is all that is left.
    const joins = group.procs.map((_, k) => `echo $$ > "\${${k}}"`).join(' && ');
    args = ['-c', `${joins} && shift ${group.procs.length - 1} && exec "$@"`, ...group.procs, command, ...args];
    command = '/bin/sh';
  }
  if (start.startCpus) {
    args = ['-c', start.startCpus, command, ...args];
    command = 'taskset';
  }
  const stdio: Array<'ignore' | 'pipe'> = ['ignore', 'pipe', 'pipe', 'pipe'];
  while (start.counterLogFd !== undefined && stdio.length <= start.counterLogFd) stdio.push('pipe');
  while (launch.input && stdio.length <= launch.input.fd) stdio.push('ignore');
  if (launch.input) stdio[launch.input.fd] = 'pipe';
  const child = spawn(command, args, {cwd: launch.cwd, env: launch.env, detached: true, stdio});
  if (launch.input) {
    // Read whole before the sandbox starts (bwrap's seccomp program); the pipe is ended at once.
    const input = child.stdio[launch.input.fd] as Duplex;
    input.on('error', () => {});
    input.end(launch.input.bytes);
  }
  const counterLog = start.counterLogFd === undefined ? undefined : collect(child.stdio[start.counterLogFd] as Duplex, maxCounterLog);
  let stdoutTail = '';
  let stderrTail = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdoutTail = (stdoutTail + chunk.toString('utf8')).slice(-tailBytes);
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-tailBytes);
  });
  const exited = new Promise<{code: number | null; signal: string | null}>((resolve) => {
    child.on('error', (error) => {
      stderrTail += `\nspawn failed: ${error.message}`;
      resolve({code: null, signal: null});
    });
    child.on('exit', (code, signal) => resolve({code, signal}));
  });

  const socket = child.stdio[3] as Duplex;
  socket.on('error', () => {});
  const reader = new FrameReader(socket);
  let killed: RunOutcome['killed'];
  const killAll = () => {
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    group?.destroy();
  };
  active.add(killAll);
  let timer: NodeJS.Timeout | undefined;
  const arm = (seconds: number, info: NonNullable<RunOutcome['killed']>) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      killed ??= info;
      reader.fail(new Error('killed'));
      killAll();
    }, timerMs(seconds));
  };
  const headerOnly = (...events: string[]) => (header: Record<string, unknown>) => (events.includes(header.ev as string) ? 0 : -1);
  arm(start.initTimeout, {i: null, limit: start.initTimeout, reason: 'start'});
  const started = reader.next(headerOnly('started')).then(
    (frame) => {
      // Waiting for its turn is not a limit's business: the runner is blocked on the channel.
      if (timer) clearTimeout(timer);
      return frame.header.ev === 'started';
    },
    () => false,
  );
  let served = false;
  const end = () => {
    if (timer) clearTimeout(timer);
    killAll();
    active.delete(killAll);
    for (const stream of [child.stdout, child.stderr, socket]) stream?.destroy();
  };

  const serve = async (service: RunService): Promise<RunOutcome> => {
    if (served) throw new Error('a run is served once');
    served = true;
    const servedAt = process.hrtime.bigint();
    const total = setTimeout(() => {
      killed ??= {i: null, limit: service.totalTimeout, reason: 'total'};
      reader.fail(new Error('killed'));
      killAll();
    }, timerMs(service.totalTimeout));
    const outcome: RunOutcome = {started: false, exitCode: null, signal: null, wallSeconds: 0, cases: [], stdoutTail: '', stderrTail: '', warmup: [], nullCalls: []};
    const resultTotal = service.resultBytes.reduce((a, b) => a + b, 0);
    const timed = service.cases.filter((c) => c.i >= 0);
    let position = 0;
    try {
      outcome.started = await started;
      if (!outcome.started) throw new Error('the runner did not start');
      arm(start.initTimeout, {i: null, limit: start.initTimeout, reason: 'start'});
      const hello = {op: 'hello', point: service.point, signature: service.signature, ...(service.cpu === undefined ? {} : {cpu: Number(service.cpu)})};
      socket.write(`${JSON.stringify(hello)}\n`);
      const ready = await reader.next(headerOnly('ready', 'failed'));
      if (ready.header.ev === 'failed') {
        outcome.startError = String(ready.header.note ?? 'the solution failed to start');
      } else {
        if (service.quiet) {
          if (timer) clearTimeout(timer);
          await service.quiet.catch(() => {});
        }
        // One exchange: the inputs delivered, the answer taken; its wall and CPU seconds.
        const exchange = async (op: 'case' | 'null', item: CaseInput) => {
          if (reader.pending) throw new Error(`the runner sent ${reader.pending} byte(s) before case ${item.i} was delivered`);
          // A nonce the answer must echo: an answer written before its case arrived (by a thread, or during
          // the warm-up, for a case the solution could make itself) cannot carry it, however late it is read.
          const nonce = service.nonces ? randomBytes(8).toString('hex') : undefined;
          const limit = service.caseTimeout(item.i);
          arm(limit, {i: item.i, limit, reason: 'case'});
          const cpuBefore = group?.cpuSeconds() ?? NaN;
          const sentAt = process.hrtime.bigint();
          socket.write(`${JSON.stringify(nonce === undefined ? {op, i: item.i} : {op, i: item.i, n: nonce})}\n`);
          socket.write(item.inputs);
          const frame = await reader.next((header) => (nonce === undefined || header.n === nonce ? answerSize(header, item.i, service.resultBytes, resultTotal) : -1));
          const seconds = Number(reader.lastAt - sentAt) / 1e9;
          const cpu = group ? group.cpuSeconds() - cpuBefore : NaN;
          return {frame, seconds, cpu};
        };
        const untimed = (seconds: number, cpu: number): UntimedCall => ({seconds, cpuSeconds: Number.isFinite(cpu) ? cpu : null});
        for (const item of service.cases) {
          if (item.i < 0) {
            const rule = service.warmup ?? singleCall;
            do {
              const {seconds, cpu} = await exchange('case', item);
              outcome.warmup.push(untimed(seconds, cpu));
            } while (warmupContinues(rule, outcome.warmup.map((call) => call.seconds)));
            for (let k = 0; k < (service.nullCases ?? 0); k++) {
              const {seconds, cpu} = await exchange('null', {i: nullCaseIndex, inputs: item.inputs});
              outcome.nullCalls.push(untimed(seconds, cpu));
            }
            continue;
          }
          const {frame, seconds, cpu} = await exchange('case', item);
          position++;
          const implausible = service.checkCpu && Number.isFinite(cpu) ? implausibleCpu(cpu, seconds) : undefined;
          if (implausible) outcome.cases.push({i: item.i, status: 'tampered', seconds, cpuSeconds: cpu, note: implausible});
          else outcome.cases.push(caseFrom(frame, item.i, seconds, Number.isFinite(cpu) ? cpu : null, service.resultBytes));
        }
        arm(start.initTimeout, {i: null, limit: start.initTimeout, reason: 'start'});
        socket.write(`${JSON.stringify({op: 'end'})}\n`);
      }
    } catch (error) {
      // The run ended early: the case in flight failed, the rest did not run.
      const current = timed[position];
      if (current && outcome.started && !outcome.startError) {
        if (killed) {
          const what = killed.reason === 'total' ? 'whole-run' : killed.i === -1 ? 'warm-up case' : killed.i === nullCaseIndex ? 'null case' : killed.reason === 'start' ? 'start-up/init' : 'case';
          outcome.cases.push({i: current.i, status: 'timeout', seconds: null, cpuSeconds: null, note: `killed at the ${what} time limit of ${killed.limit.toFixed(3)} s`});
        } else {
          outcome.cases.push({i: current.i, status: 'crashed', seconds: null, cpuSeconds: null, note: `the process ended before answering (${crashNote(error, stderrTail)})`});
        }
        position++;
      }
    }
    if (outcome.startError && position === 0 && timed[0]) {
      outcome.cases.push({i: timed[0].i, status: 'crashed', seconds: null, cpuSeconds: null, note: `the solution failed to start (${outcome.startError})`});
      position = 1;
    }
    for (const item of timed.slice(position)) outcome.cases.push({i: item.i, status: 'not-run', seconds: null, cpuSeconds: null});

    // Give the runner a moment to free() and exit, then end whatever is left of the run.
    const grace = setTimeout(killAll, killed || !outcome.started ? 0 : timerMs(service.exitGrace ?? 2));
    const exit = await exited;
    clearTimeout(grace);
    clearTimeout(total);
    if (group) explainLimits(outcome, group);
    end();
    outcome.killed = killed;
    outcome.exitCode = exit.code;
    outcome.signal = exit.signal;
    outcome.wallSeconds = Number(process.hrtime.bigint() - servedAt) / 1e9;
    outcome.stdoutTail = stdoutTail;
    outcome.stderrTail = stderrTail;
    if (counterLog) {
      // Every process of the run is gone, so the log's writers are too; one that escaped (no sandbox, no cgroup) is not waited for.
      const stream = child.stdio[start.counterLogFd!] as Duplex;
      const wait = setTimeout(() => stream.destroy(), 2000);
      outcome.counterLog = await counterLog;
      clearTimeout(wait);
    }
    return outcome;
  };

  const cancel = () => {
    if (served) return;
    served = true;
    end();
    const stream = start.counterLogFd === undefined ? undefined : (child.stdio[start.counterLogFd] as Duplex);
    stream?.destroy();
  };
  return {started, serve, cancel};
}

/**
 * Why a case's CPU time cannot be the run's, or undefined when it can be. The
 * group's counter only grows and every process of the run is in it, so a
 * negative delta means it was reset. One under 1/100 of a wall time over half
 * a second means the counter missed the work, or the run slept: on the CPU
 * clock a wait costs nothing, so it is no score either. Below half a second a
 * small or zero delta proves nothing: the kernel charges a running task at
 * its next tick or switch, so a case shorter than a tick may read 0, and a
 * loaded machine may keep an honest run waiting for its CPU for tens of ms.
 */
export function implausibleCpu(cpuSeconds: number, wallSeconds: number): string | undefined {
  if (cpuSeconds < 0) return `the run's CPU counter went backwards over the case (${(cpuSeconds * 1e3).toFixed(3)} ms in ${(wallSeconds * 1e3).toFixed(3)} ms of wall time): it was tampered with`;
  if (wallSeconds > 0.5 && cpuSeconds < wallSeconds / 100) {
    return `the case took ${(cpuSeconds * 1e3).toFixed(3)} ms of CPU time in ${(wallSeconds * 1e3).toFixed(1)} ms of wall time, too little to be its work: the run waited instead of computing, or its CPU counter was tampered with`;
  }
  return undefined;
}

/**
 * A case that ended because the run hit a limit of its group says so: the
 * kernel's OOM kill at the memory limit, a fork refused at the process limit.
 */
function explainLimits(outcome: RunOutcome, group: CpuGroup): void {
  const memory = group.bounds.memory && group.overMemory();
  const processes = group.bounds.processes && group.overProcesses();
  if (!memory && !processes) return;
  const what = memory
    ? `the run went over its memory limit of ${Math.round((group.limits?.memoryBytes ?? 0) / 2 ** 20)} MiB (plan.toml memory_mb) and was killed`
    : `the run reached its limit of ${group.limits?.processes} processes and threads (plan.toml processes)`;
  outcome.limitHit = memory ? 'memory' : 'processes';
  for (const c of outcome.cases) {
    if (c.status === 'crashed') c.note = `${what}${c.note ? `; ${c.note}` : ''}`.slice(0, 1000);
  }
  if (outcome.startError) outcome.startError = `${what}; ${outcome.startError}`;
}

/** Everything a stream carries until it ends, or undefined past `limit` bytes. */
function collect(stream: Duplex, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  return new Promise((resolve) => {
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    const done = () => resolve(size <= limit ? Buffer.concat(chunks).toString('utf8') : undefined);
    stream.on('end', done);
    stream.on('close', done);
    stream.on('error', done);
  });
}

/** The payload size an answer header announces, or -1 when it is not a valid answer to case i. */
function answerSize(header: Record<string, unknown>, i: number, resultBytes: number[], total: number): number {
  if (header.ev !== 'answer' || header.i !== i) return -1;
  if (header.status === 'crashed') return 0;
  if (header.status !== 'ok' || !Array.isArray(header.sizes) || header.sizes.length !== resultBytes.length) return -1;
  let sum = 0;
  for (const [k, size] of header.sizes.entries()) {
    if (size !== 0 && size !== resultBytes[k]) return -1;
    sum += size as number;
  }
  return sum <= total ? sum : -1;
}

function caseFrom(frame: Frame, i: number, seconds: number, cpuSeconds: number | null, resultBytes: number[]): CaseOutcome {
  const note = typeof frame.header.note === 'string' ? frame.header.note.slice(0, 1000) : undefined;
  if (frame.header.status === 'crashed') return {i, status: 'crashed', seconds, cpuSeconds, note};
  const sizes = frame.header.sizes as number[];
  let offset = 0;
  const answer = resultBytes.map((_, k) => {
    if (sizes[k] === 0 && resultBytes[k] !== 0) return null;
    const part = frame.payload.subarray(offset, offset + sizes[k]!);
    offset += sizes[k]!;
    return part;
  });
  return {i, status: 'ok', seconds, cpuSeconds, note, answer};
}

function crashNote(error: unknown, stderrTail: string): string {
  const lines = stderrTail.trim().split('\n').filter((line) => !line.startsWith('runner.py: protocol error'));
  const last = lines[lines.length - 1]?.trim();
  const message = error instanceof Error ? error.message : String(error);
  return (last && message === 'the runner closed its channel' ? last : message).slice(0, 300);
}

/** setTimeout milliseconds for a limit in seconds: NaN or non-positive fire at once, never past 2^31-1 ms (which would overflow and fire at once too). */
function timerMs(seconds: number): number {
  if (!(seconds > 0)) return 0;
  return Math.min(Math.ceil(seconds * 1000), 2 ** 31 - 1);
}
