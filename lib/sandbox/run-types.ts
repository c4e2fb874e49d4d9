/**
 * The types of one run (run.ts): how its processes start, what it is served
 * (its cases, limits and checks), and how it ended. A run's signature is the
 * runner's view of the bundle's at one point: the eval builds it
 * (lib/eval/signature.ts), the runner reads it from the `hello` message.
 */
import type {CpuGroup} from './cgroup.js';
import type {Launch} from './sandbox.js';

/** One tensor the runner reads or writes: its name, element type and concrete shape. */
export interface RunnerBinding {
  name: string;
  type: string;
  shape: number[];
}

/** The signature a run is served under, as runner.py reads it. */
export interface RunnerSignature {
  args: RunnerBinding[];
  results: RunnerBinding[];
  /** The plan's `interface = "solve"`: the runner calls `solve(problem)` on the decoded argument (lib/eval/objects.py). */
  interface?: 'solve';
}

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
  signature: RunnerSignature;
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
