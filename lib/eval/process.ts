/**
 * One run: a runner process (sandboxed or not, see lib/sandbox/sandbox.ts) that
 * receives each case's inputs over a socket and sends back its answer; served
 * once, or kept for several segments of cases and frozen between them (keep). The
 * clock is the harness's: a case's wall time runs from the moment its inputs
 * are written to the moment the last byte of its answer arrives, and its CPU
 * time is the run's cgroup counter over the same span. stdout and stderr are
 * captured (a bounded tail, never forwarded); a limit kills the whole run.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import type {Duplex} from 'node:stream';
import {collect, type CpuGroup, type Frame, FrameReader, type Launch} from '../sandbox/index.js';
import {HarnessError} from './errors.js';
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
  /**
   * The cases are secret (salted or fresh test data): a crash's note keeps
   * the exception's type (when it is one of Python's or numpy's own) but
   * not its message, nor a line of the run's output, which may carry a
   * value of the case.
   */
  secretCases?: boolean;
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
  /** A crash the runner reported: where the exception was raised, as the runner says (see RunnerFrame). */
  where?: RunnerFrame[];
}

/**
 * A frame of a crash's traceback in the solution's own files, as the runner
 * reports it: the file relative to the solution's folder, and the line. Taken
 * on no trust (the solution shares the runner's process): only the shape is
 * checked here; failure.ts keeps a frame only when it names a line of a file
 * of the solution as evaluated, and reads that line's text itself.
 */
export interface RunnerFrame {
  file: string;
  line: number;
}

/** How a run ended. */
export interface RunOutcome {
  /** Whether the runner said it started (python and numpy work) before any solution code ran. */
  started: boolean;
  /** Set when the solution failed to import or init() raised. */
  startError?: string;
  /** Where the import or init() raised, as the runner says (see RunnerFrame). */
  startWhere?: RunnerFrame[];
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

/** Runs in flight, so an interrupted eval can kill them (see killActiveRuns). */
const active = new Set<() => void>();

/** Kill every run in flight (for SIGINT/SIGTERM handlers). */
export function killActiveRuns(): void {
  for (const kill of active) kill();
  active.clear();
}

/** The HarnessError for a run whose runner never started (python, numpy or the runner itself broken). */
export function startFailure(python: string, outcome: RunOutcome): HarnessError {
  if (/No module named .?numpy|numpy is not installed/.test(outcome.stderrTail)) {
    return new HarnessError(
      `numpy is not installed for ${python}: run '${python} -m pip install numpy' (or set ARBOR_PYTHON; arbor doctor says which python arbor picks)`,
      'no-numpy',
    );
  }
  const last = outcome.stderrTail.trim().split('\n').pop() || `exit code ${outcome.exitCode ?? outcome.signal}`;
  return new HarnessError(`${python} could not start arbor's runner: ${last.slice(0, 300)}`, 'no-python');
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
  /** Keep the run for several segments of cases instead of serving it once (the run needs a freezable cgroup). */
  keep(): RunSession;
}

/**
 * A run kept for several segments of cases (one per repetition), frozen in
 * between: the harness never times anything of another run while one of its
 * processes could take the CPU, and the kept run does nothing at all while
 * frozen. Every case still carries its own nonce, limit and checks.
 */
export interface RunSession {
  /**
   * Serve one segment: the handshake first (on the first segment), then the
   * service's cases, the warm-up case included; then freeze the run and keep
   * it. A failed case, a failed start or a run that cannot be frozen ends it
   * (the outcome says how, as a run served once does).
   */
  serve(service: RunService): Promise<RunOutcome>;
  /** Whether the run can serve another segment. */
  readonly alive: boolean;
  /** End the run: thawed, told `end`, its exit awaited (killed after the grace). */
  close(exitGrace?: number): Promise<void>;
}

/**
 * Start a run: the runner loads Python and numpy (arbor's code only) and says
 * "started", then waits for its point; no solution code runs before `serve`.
 */
export function startRun(start: RunStart): StartedRun {
  const run = new RunControl(spawnRunner(start), start);
  run.arm(start.initTimeout, {i: null, limit: start.initTimeout, reason: 'start'});
  const started = run.reader.next(headerOnly('started')).then(
    (frame) => {
      // Waiting for its turn is not a limit's business: the runner is blocked on the channel.
      run.disarm();
      return frame.header.ev === 'started';
    },
    () => false,
  );
  let served = false;
  const serve = async (service: RunService): Promise<RunOutcome> => {
    if (served) throw new Error('a run is served once');
    served = true;
    return serveRun(run, started, service);
  };
  const cancel = () => {
    if (served) return;
    served = true;
    run.end();
    const stream = start.counterLogFd === undefined ? undefined : (run.child.stdio[start.counterLogFd] as Duplex);
    stream?.destroy();
  };
  const keep = (): RunSession => {
    if (served) throw new Error('a run is served once');
    served = true;
    return new KeptRun(run, started);
  };
  return {started, serve, cancel, keep};
}

/** A kept run (RunSession): served segment by segment, frozen between them, ended once. */
class KeptRun implements RunSession {
  #opened = false;
  #alive = true;
  #frozen = false;

  constructor(
    readonly run: RunControl,
    readonly started: Promise<boolean>,
  ) {}

  get alive(): boolean {
    return this.#alive;
  }

  async serve(service: RunService): Promise<RunOutcome> {
    if (!this.#alive) throw new Error('a kept run that ended serves no more cases');
    const {run} = this;
    const servedAt = process.hrtime.bigint();
    const total = setTimeout(() => run.kill({i: null, limit: service.totalTimeout, reason: 'total'}), timerMs(service.totalTimeout));
    const outcome = emptyOutcome();
    const timed = service.cases.filter((c) => c.i >= 0);
    let failed = false;
    try {
      if (this.#frozen) this.#thaw();
      outcome.started = await this.started;
      if (!outcome.started) throw new Error('the runner did not start');
      if (!this.#opened) {
        this.#opened = true;
        if (!(await handshake(run, service, outcome))) failed = true;
      }
      if (!failed) await deliverSegment(run, service, outcome);
    } catch (error) {
      caseInFlight(run, outcome, timed, error, service.secretCases);
      failed = true;
    }
    casesNotRun(outcome, timed);
    if (failed) {
      this.#alive = false;
      await endRun(run, service, outcome, total);
    } else {
      clearTimeout(total);
      // A case that failed (a crash the runner caught, a wrong answer's shape) ends the run: the
      // next segment starts from a fresh process. A run that cannot be frozen is ended too: it
      // could go on computing beside another run's timed cases.
      if (outcome.cases.some((c) => c.status !== 'ok') || !run.group?.freeze()) await this.close(service.exitGrace);
      else this.#frozen = true;
    }
    outcome.wallSeconds = Number(process.hrtime.bigint() - servedAt) / 1e9;
    outcome.stdoutTail = run.stdoutTail;
    outcome.stderrTail = run.stderrTail;
    return outcome;
  }

  async close(exitGrace = 2): Promise<void> {
    if (!this.#alive) return;
    this.#alive = false;
    const {run} = this;
    if (this.#frozen) this.#thaw();
    if (this.#opened && (await this.started)) {
      run.arm(run.start.initTimeout, {i: null, limit: run.start.initTimeout, reason: 'start'});
      run.socket.write(`${JSON.stringify({op: 'end'})}\n`);
      const grace = setTimeout(run.killAll, timerMs(exitGrace));
      await run.exited;
      clearTimeout(grace);
    }
    run.end();
  }

  #thaw(): void {
    this.run.group?.thaw();
    this.#frozen = false;
  }
}

/** The command line of a run: the launch, joined to its cgroup before the sandbox starts, on its start CPUs. */
function runCommand(start: RunStart): {command: string; args: string[]} {
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
  return {command, args};
}

/** Spawn a run in a process group of its own: stdout, stderr, the channel (fd 3), the counter log's and the launch input's fds piped. */
function spawnRunner(start: RunStart): ChildProcess {
  const {launch} = start;
  const {command, args} = runCommand(start);
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
  return child;
}

/** A frame size function that accepts a header-only message of one of these events and nothing else. */
function headerOnly(...events: string[]): (header: Record<string, unknown>) => number {
  return (header) => (events.includes(header.ev as string) ? 0 : -1);
}

/**
 * The harness's hold on a spawned run: its captured output, its channel, the
 * limit armed over it, and the one way to end it. From construction until
 * end() it is in `active`, so an interrupted eval kills it (killActiveRuns).
 */
class RunControl {
  readonly child: ChildProcess;
  readonly start: RunStart;
  readonly group?: CpuGroup;
  readonly socket: Duplex;
  readonly reader: FrameReader;
  /** Settles when the run's first process exits (or could not be spawned). */
  readonly exited: Promise<{code: number | null; signal: string | null}>;
  /** Instructions clock: valgrind's whole log, once every writer closed it. */
  readonly counterLog?: Promise<string | undefined>;
  stdoutTail = '';
  stderrTail = '';
  /** The limit that killed the run, the first one to fire. */
  killed: RunOutcome['killed'];
  private timer: NodeJS.Timeout | undefined;

  constructor(child: ChildProcess, start: RunStart) {
    this.child = child;
    this.start = start;
    this.group = start.group;
    this.counterLog = start.counterLogFd === undefined ? undefined : collect(child.stdio[start.counterLogFd] as Duplex, maxCounterLog);
    child.stdout!.on('data', (chunk: Buffer) => {
      this.stdoutTail = (this.stdoutTail + chunk.toString('utf8')).slice(-tailBytes);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-tailBytes);
    });
    this.exited = new Promise((resolve) => {
      child.on('error', (error) => {
        this.stderrTail += `\nspawn failed: ${error.message}`;
        resolve({code: null, signal: null});
      });
      child.on('exit', (code, signal) => resolve({code, signal}));
    });
    this.socket = child.stdio[3] as Duplex;
    this.socket.on('error', () => {});
    this.reader = new FrameReader(this.socket);
    active.add(this.killAll);
  }

  /** Kill every process of the run: its process group, then its cgroup (which holds any that left the group). */
  readonly killAll = (): void => {
    if (this.child.pid !== undefined) {
      try {
        process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    this.group?.destroy();
  };

  /** The run hit a limit: the first one to fire is the one reported; the channel fails and every process is killed. */
  kill(info: NonNullable<RunOutcome['killed']>): void {
    this.killed ??= info;
    this.reader.fail(new Error('killed'));
    this.killAll();
  }

  /** Arm the limit of what the run does next (replacing the one armed before). */
  arm(seconds: number, info: NonNullable<RunOutcome['killed']>): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.kill(info), timerMs(seconds));
  }

  /** No limit while the run waits on the harness (its turn, the quiet before the warm-up). */
  disarm(): void {
    if (this.timer) clearTimeout(this.timer);
  }

  /** End the run for good: no limit left, every process killed, out of `active`, its pipes closed. */
  end(): void {
    this.disarm();
    this.killAll();
    active.delete(this.killAll);
    for (const stream of [this.child.stdout, this.child.stderr, this.socket]) stream?.destroy();
  }
}

/** A run's outcome before anything of it is known. */
function emptyOutcome(): RunOutcome {
  return {started: false, exitCode: null, signal: null, wallSeconds: 0, cases: [], stdoutTail: '', stderrTail: '', warmup: [], nullCalls: []};
}

/** Serve a started run once: deliver its cases, account for those it did not answer, then end it. */
async function serveRun(run: RunControl, started: Promise<boolean>, service: RunService): Promise<RunOutcome> {
  const servedAt = process.hrtime.bigint();
  const total = setTimeout(() => run.kill({i: null, limit: service.totalTimeout, reason: 'total'}), timerMs(service.totalTimeout));
  const outcome = emptyOutcome();
  const timed = service.cases.filter((c) => c.i >= 0);
  try {
    outcome.started = await started;
    if (!outcome.started) throw new Error('the runner did not start');
    await deliverCases(run, service, outcome);
  } catch (error) {
    // The run ended early: the case in flight failed, the rest did not run.
    caseInFlight(run, outcome, timed, error, service.secretCases);
  }
  casesNotRun(outcome, timed);
  await endRun(run, service, outcome, total);
  outcome.wallSeconds = Number(process.hrtime.bigint() - servedAt) / 1e9;
  outcome.stdoutTail = run.stdoutTail;
  outcome.stderrTail = run.stderrTail;
  if (run.counterLog) {
    // Every process of the run is gone, so the log's writers are too; one that escaped (no sandbox, no cgroup) is not waited for.
    const stream = run.child.stdio[run.start.counterLogFd!] as Duplex;
    const wait = setTimeout(() => stream.destroy(), 2000);
    outcome.counterLog = await run.counterLog;
    clearTimeout(wait);
  }
  return outcome;
}

/** The handshake and the cases: `hello` with the point, then (unless the solution failed to start) every case in order, then `end`. */
async function deliverCases(run: RunControl, service: RunService, outcome: RunOutcome): Promise<void> {
  if (!(await handshake(run, service, outcome))) return;
  if (service.quiet) {
    run.disarm();
    await service.quiet.catch(() => {});
  }
  await deliverSegment(run, service, outcome);
  const {initTimeout} = run.start;
  run.arm(initTimeout, {i: null, limit: initTimeout, reason: 'start'});
  run.socket.write(`${JSON.stringify({op: 'end'})}\n`);
}

/** `hello` with the point, answered `ready` (true) or `failed` (false: the import or init() raised, said in the outcome). */
async function handshake(run: RunControl, service: Pick<RunService, 'point' | 'signature' | 'cpu'>, outcome: RunOutcome): Promise<boolean> {
  const {initTimeout} = run.start;
  run.arm(initTimeout, {i: null, limit: initTimeout, reason: 'start'});
  const hello = {op: 'hello', point: service.point, signature: service.signature, ...(service.cpu === undefined ? {} : {cpu: Number(service.cpu)})};
  run.socket.write(`${JSON.stringify(hello)}\n`);
  const ready = await run.reader.next(headerOnly('ready', 'failed'));
  if (ready.header.ev === 'failed') {
    // init() sees the point, never a case: its exception is said whole, on secret cases too.
    outcome.startError = String(ready.header.note ?? 'the solution failed to start').slice(0, 1000);
    const where = framesOf(ready.header.where);
    if (where.length) outcome.startWhere = where;
    return false;
  }
  return true;
}

/** The service's cases in order (a warm-up case repeated under its rule); the run is left waiting for more. */
async function deliverSegment(run: RunControl, service: RunService, outcome: RunOutcome): Promise<void> {
  const resultTotal = service.resultBytes.reduce((a, b) => a + b, 0);
  for (const item of service.cases) {
    if (item.i < 0) {
      await warmUp(run, service, item, outcome, resultTotal);
      continue;
    }
    const {frame, seconds, cpu} = await exchange(run, service, 'case', item, resultTotal);
    const implausible = service.checkCpu && Number.isFinite(cpu) ? implausibleCpu(cpu, seconds) : undefined;
    if (implausible) outcome.cases.push({i: item.i, status: 'tampered', seconds, cpuSeconds: cpu, note: implausible});
    else outcome.cases.push(caseFrom(frame, item.i, seconds, Number.isFinite(cpu) ? cpu : null, service.resultBytes, service.secretCases));
  }
  // Between segments the run waits on the harness, under no limit (a kept run is frozen meanwhile).
  run.disarm();
}

/** The warm-up case, repeated under the service's rule until its time settles, then the null cases on its inputs. */
async function warmUp(run: RunControl, service: RunService, item: CaseInput, outcome: RunOutcome, resultTotal: number): Promise<void> {
  const untimed = (seconds: number, cpu: number): UntimedCall => ({seconds, cpuSeconds: Number.isFinite(cpu) ? cpu : null});
  const rule = service.warmup ?? singleCall;
  do {
    const {seconds, cpu} = await exchange(run, service, 'case', item, resultTotal);
    outcome.warmup.push(untimed(seconds, cpu));
  } while (
    warmupContinues(
      rule,
      outcome.warmup.map((call) => call.seconds),
    )
  );
  for (let k = 0; k < (service.nullCases ?? 0); k++) {
    const {seconds, cpu} = await exchange(run, service, 'null', {i: nullCaseIndex, inputs: item.inputs}, resultTotal);
    outcome.nullCalls.push(untimed(seconds, cpu));
  }
}

/** One exchange: the inputs delivered under the case's limit, the answer taken; its wall and CPU seconds (NaN without a cgroup). */
async function exchange(
  run: RunControl,
  service: RunService,
  op: 'case' | 'null',
  item: CaseInput,
  resultTotal: number,
): Promise<{frame: Frame; seconds: number; cpu: number}> {
  const {reader, socket, group} = run;
  if (reader.pending) throw new Error(`the runner sent ${reader.pending} byte(s) before case ${item.i} was delivered`);
  // A nonce the answer must echo: an answer written before its case arrived (by a thread, or during
  // the warm-up, for a case the solution could make itself) cannot carry it, however late it is read.
  const nonce = service.nonces ? randomBytes(8).toString('hex') : undefined;
  const limit = service.caseTimeout(item.i);
  run.arm(limit, {i: item.i, limit, reason: 'case'});
  const cpuBefore = group?.cpuSeconds() ?? NaN;
  const sentAt = process.hrtime.bigint();
  socket.write(`${JSON.stringify(nonce === undefined ? {op, i: item.i} : {op, i: item.i, n: nonce})}\n`);
  socket.write(item.inputs);
  // Only a timed case's answer is read (verified); the warm-up's and the null cases' are consumed unread.
  const frame = await reader.next(
    (header) => (nonce === undefined || header.n === nonce ? answerSize(header, item.i, service.resultBytes, resultTotal) : -1),
    op === 'case' && item.i >= 0,
  );
  const seconds = Number(reader.lastAt - sentAt) / 1e9;
  const cpu = group ? group.cpuSeconds() - cpuBefore : NaN;
  return {frame, seconds, cpu};
}

/**
 * The timed case in flight when the run ended early: a timeout when a limit
 * killed the run, else a crash. Every timed case before it has its outcome
 * (deliverCases pushes one per case answered), so it is timed[cases.length].
 */
function caseInFlight(run: RunControl, outcome: RunOutcome, timed: CaseInput[], error: unknown, secret = false): void {
  const current = timed[outcome.cases.length];
  if (!current || !outcome.started || outcome.startError) return;
  const {killed} = run;
  if (killed) {
    const what =
      killed.reason === 'total'
        ? 'whole-run'
        : killed.i === -1
          ? 'warm-up case'
          : killed.i === nullCaseIndex
            ? 'null case'
            : killed.reason === 'start'
              ? 'start-up/init'
              : 'case';
    outcome.cases.push({
      i: current.i,
      status: 'timeout',
      seconds: null,
      cpuSeconds: null,
      note: `killed at the ${what} time limit of ${killed.limit.toFixed(3)} s`,
    });
  } else {
    // On secret cases the run's last line of output is not shown: the solution writes it, and it may carry the case.
    const why = secret ? '' : ` (${crashNote(error, run.stderrTail)})`;
    outcome.cases.push({i: current.i, status: 'crashed', seconds: null, cpuSeconds: null, note: `the process ended before answering${why}`});
  }
}

/** The timed cases without an outcome: the first crashed when the solution failed to start, the rest not run. */
function casesNotRun(outcome: RunOutcome, timed: CaseInput[]): void {
  if (outcome.startError && outcome.cases.length === 0 && timed[0]) {
    const where = outcome.startWhere ? {where: outcome.startWhere} : {};
    outcome.cases.push({
      i: timed[0].i,
      status: 'crashed',
      seconds: null,
      cpuSeconds: null,
      note: `the solution failed to start (${outcome.startError})`,
      ...where,
    });
  }
  for (const item of timed.slice(outcome.cases.length)) outcome.cases.push({i: item.i, status: 'not-run', seconds: null, cpuSeconds: null});
}

/** Give the runner a moment to free() and exit, then end whatever is left of the run; how it ended goes into the outcome. */
async function endRun(run: RunControl, service: RunService, outcome: RunOutcome, total: NodeJS.Timeout): Promise<void> {
  const grace = setTimeout(run.killAll, run.killed || !outcome.started ? 0 : timerMs(service.exitGrace ?? 2));
  const exit = await run.exited;
  clearTimeout(grace);
  clearTimeout(total);
  if (run.group) explainLimits(outcome, run.group);
  run.end();
  outcome.killed = run.killed;
  outcome.exitCode = exit.code;
  outcome.signal = exit.signal;
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
  if (cpuSeconds < 0)
    return `the run's CPU counter went backwards over the case (${(cpuSeconds * 1e3).toFixed(3)} ms in ${(wallSeconds * 1e3).toFixed(3)} ms of wall time): it was tampered with`;
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

function caseFrom(frame: Frame, i: number, seconds: number, cpuSeconds: number | null, resultBytes: number[], secret = false): CaseOutcome {
  const note = typeof frame.header.note === 'string' ? frame.header.note.slice(0, 1000) : undefined;
  if (frame.header.status === 'crashed') {
    const where = framesOf(frame.header.where);
    return {i, status: 'crashed', seconds, cpuSeconds, note: secret ? secretCrashNote(frame.header.error) : note, ...(where.length ? {where} : {})};
  }
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

/** The most frames of a crash kept (the innermost), and the longest file name taken. */
const maxFrames = 3;
const maxFrameFile = 200;

/** The runner's `where` as frames of the right shape (a relative file name and a line), the innermost maxFrames; anything else is left out. */
export function framesOf(value: unknown): RunnerFrame[] {
  if (!Array.isArray(value)) return [];
  const frames: RunnerFrame[] = [];
  for (const item of value.slice(-maxFrames)) {
    if (typeof item !== 'object' || item === null) continue;
    const {file, line} = item as Record<string, unknown>;
    if (typeof file !== 'string' || !file || file.length > maxFrameFile || !Number.isSafeInteger(line) || (line as number) < 1) continue;
    frames.push({file, line: line as number});
  }
  return frames;
}

/**
 * The names of Python's built-in exceptions and numpy's own: on secret cases a
 * crash is named by its exception's type only when it is one of these. A name
 * the solution chose could spell out a value of the case.
 */
const knownExceptions = new Set([
  ...'ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup BlockingIOError BrokenPipeError BufferError BytesWarning ChildProcessError'.split(
    ' ',
  ),
  ...'ConnectionAbortedError ConnectionError ConnectionRefusedError ConnectionResetError DeprecationWarning EOFError EncodingWarning EnvironmentError Exception'.split(
    ' ',
  ),
  ...'ExceptionGroup FileExistsError FileNotFoundError FloatingPointError FutureWarning GeneratorExit IOError ImportError ImportWarning IndentationError IndexError'.split(
    ' ',
  ),
  ...'InterruptedError IsADirectoryError KeyError KeyboardInterrupt LookupError MemoryError ModuleNotFoundError NameError NotADirectoryError NotImplementedError'.split(
    ' ',
  ),
  ...'OSError OverflowError PendingDeprecationWarning PermissionError ProcessLookupError PythonFinalizationError RecursionError ReferenceError ResourceWarning'.split(
    ' ',
  ),
  ...'RuntimeError RuntimeWarning StopAsyncIteration StopIteration SyntaxError SyntaxWarning SystemError SystemExit TabError TimeoutError TypeError UnboundLocalError'.split(
    ' ',
  ),
  ...'UnicodeDecodeError UnicodeEncodeError UnicodeError UnicodeTranslateError UnicodeWarning UserWarning ValueError Warning ZeroDivisionError'.split(' '),
  // numpy's (numpy.exceptions, numpy.linalg, and the private classes its ufuncs and allocator raise)
  ...'AxisError ComplexWarning DTypePromotionError LinAlgError TooHardError UFuncTypeError VisibleDeprecationWarning RankWarning _ArrayMemoryError'.split(' '),
  ...'_UFuncBinaryResolutionError _UFuncCastingError _UFuncInputCastingError _UFuncNoLoopError _UFuncOutputCastingError'.split(' '),
]);

/** A crash's note on secret cases: the exception's type when it is Python's or numpy's own, never its message (which may carry a value of the case). */
export function secretCrashNote(error: unknown): string {
  const name = typeof error === 'string' && knownExceptions.has(error) ? error : "an exception of the solution's own class";
  return `${name}: message withheld (secret test cases)`;
}

function crashNote(error: unknown, stderrTail: string): string {
  const lines = stderrTail
    .trim()
    .split('\n')
    .filter((line) => !line.startsWith('runner.py: protocol error'));
  const last = lines[lines.length - 1]?.trim();
  const message = error instanceof Error ? error.message : String(error);
  return (last && message === 'the runner closed its channel' ? last : message).slice(0, 300);
}

/** setTimeout milliseconds for a limit in seconds: NaN or non-positive fire at once, never past 2^31-1 ms (which would overflow and fire at once too). */
function timerMs(seconds: number): number {
  if (!(seconds > 0)) return 0;
  return Math.min(Math.ceil(seconds * 1000), 2 ** 31 - 1);
}
