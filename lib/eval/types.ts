/** The eval's options and its report (`--json FILE`), documented in lib/eval/README.md. */
import type {Clock, Plan, PlanOverride, PlanPoint, Split} from '../benchmark/plan.js';
import type {SandboxKind} from '../sandbox/index.js';

/** The part of the bundle runtime (lib/bundle) the pipeline calls; tests may pass their own. */
export type BundleApi = Pick<typeof import('../bundle/index.js'), 'loadBundle' | 'parsePoint' | 'makeWorkDir' | 'writeExpected' | 'verifyWorkDir'> &
  Partial<Pick<typeof import('../bundle/index.js'), 'withAuthored'>>;

/**
 * How an eval tells its progress: `line` is a finished step; `status` a
 * transient one (for a terminal display). Every caller (the CLI, the queue's
 * child, MCP, verify) passes one of these.
 */
export type EvalProgress = (kind: 'line' | 'status', text: string) => void;

/** A report with the plan it was scored under: plan.toml as read once for the eval (before the one eval's `planOverride`). */
export interface Planned<R> {
  report: R;
  plan: Plan;
}

/** Options of runEval. */
export interface EvalOptions {
  /** The benchmark folder (relative to cwd). */
  benchmark: string;
  split: string;
  /** Another solution file in place of the plan's (relative to cwd). */
  solution?: string;
  /** Path split: read the split's work directories from this folder instead of the plan's (relative to cwd); see also ARBOR_TEST_DATA. */
  data?: string;
  /** Keep the temporary folder (its path is in the report). */
  keep?: boolean;
  /** Run without the sandbox (also the only way to score `test` where bubblewrap cannot start). */
  unsandboxed?: boolean;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Progress: `line` is a finished step; `status` a transient one (for a terminal display). */
  onProgress?: EvalProgress;
  /** plan.toml as the caller already read it (checked): the eval does not read it again; `planOverride` still applies. */
  plan?: Plan;
  /** The bundle runtime (defaults to lib/bundle); tests may pass their own. */
  bundleApi?: BundleApi;
  /** Plan values replaced for this eval only (`verify --probe` keeps its runs short); arbor.lock is still checked against the files. */
  planOverride?: PlanOverride;
  /**
   * speedup: compare each side's answers byte for byte with the reference's answers to the same
   * cases; differences go in the report's `referenceDifferences`. verify runs the reference as the
   * solution this way, so two fresh runs of it on the same cases must agree (a deterministic reference).
   */
  compareWithReference?: boolean;
  /** Run although the protected files differ from arbor.lock: only for `lock`'s own checks before it vouches for them, never for a solution's eval. */
  beforeLock?: boolean;
}

/** Where a side's answer to a case differs from the reference's answer to the same case (EvalOptions.compareWithReference). */
export interface ReferenceDifference {
  point: Record<string, number>;
  /** The case's seed (a path split's case has none). */
  seed?: number;
  /** The case's index in its point. */
  case: number;
  /** The result (its file is `out/<case>/<result>.bin`). */
  result: string;
  /** The first differing byte, or -1 when one side gave no bytes for the result. */
  offset: number;
}

/** One solution of a multi-solution eval (`runSides`): the plan's editable files, with `solution` in place of its solution file, or those found in `folder`. */
export interface SideRequest {
  /** How progress lines name it (`baseline`, `candidate`). */
  label: string;
  /** A file in place of the plan's solution file (relative to cwd). */
  solution?: string;
  /** A folder holding the editable files at their paths relative to the benchmark (e.g. a git revision's, written out). */
  folder?: string;
}

/** Options of runSides: those of an eval, with the solutions to run side by side. */
export interface SidesOptions extends Omit<EvalOptions, 'solution'> {
  sides: SideRequest[];
  /** Repetitions never fewer than this (speedup). */
  minRepetitions?: number;
  /**
   * speedup, one side: race it against a recorded run (`eval --against`): its repetitions stop as
   * soon as raceInterval (stats.ts) against these per-point [rep][case] speedups decides, not when
   * its score is as precise as the plan asks.
   */
  race?: {recorded: number[][][]};
}

/** What runSides returns: one report per side, and with two speedup sides their paired ratios. */
export interface SidesOutcome {
  reports: EvalReport[];
  /** plan.toml as read once for this eval (before `planOverride`): what the reports were scored under, for the ledger. */
  plan: Plan;
  /** speedup, two sides: per point, [rep][case] first side's time / second side's on the eval's clock. */
  pairs: number[][][];
  /** Whether the stopping rule was met at every point. */
  precise: boolean;
  /** Whether the stopping rule was met at no point: the budget (or the cap) ended every point's repetitions. */
  budgetEnded: boolean;
  /** speedup, two sides: whether each case was timed on both sides back to back (`case`) or each side's segment of a repetition in turn (`run`). */
  pairedBy?: 'case' | 'run';
  /** speedup, two sides or a race: how many neighbouring repetitions shared their runs (kept runs; 1: a fresh run each), which the ratio's interval and sequence treat as correlated. */
  repetitionBlock?: number;
}

/** Outcome of one case: ok, or why it failed. */
export type CaseStatus = 'ok' | 'crashed' | 'timeout' | 'no-answer' | 'failed' | 'not-run' | 'tampered';

/** One repetition of one case. */
export interface RepetitionReport {
  /** Wall seconds from the delivery of the inputs to the arrival of the answer. */
  seconds: number | null;
  /** CPU seconds of the run's whole process tree over the same span (null without a cgroup). */
  cpuSeconds?: number | null;
  /** Instructions clock: the instructions the run executed in the case (callgrind's Ir; null when not counted). */
  instructions?: number | null;
  status: CaseStatus;
  passed: boolean;
  note?: string;
  /** A crash (in run(), init() or the import): where it was raised in the solution's own files (see CaseFrame). */
  where?: CaseFrame[];
}

/**
 * A frame of a crash's traceback in the solution's own files, innermost last
 * (at most 3): the file relative to the solution's folder as evaluated (the
 * plan's solution file by its own name, e.g. `solution.py`, whatever file
 * --solution named), the line, and the line's text as it is in that file
 * (read by the harness from its snapshot, stripped; left out when blank).
 */
export interface CaseFrame {
  file: string;
  line: number;
  text?: string;
}

/** One case of one point. */
export interface CaseReport {
  i: number;
  status: CaseStatus;
  passed: boolean;
  /** The verdict's metrics (of the worst repetition); a failed case's `first` names its first wrong element. */
  metrics?: Record<string, unknown>;
  /** A case that did not pass, when its verdict names its first wrong element: `y[0, 4] expected 17, got 18 (1 of 64 elements wrong)`. */
  failure?: string;
  note?: string;
  /** A crashed case: where its exception was raised in the solution's own files, innermost last (see CaseFrame). */
  where?: CaseFrame[];
  /**
   * A case that did not pass: the seed of its failing repetition's case, so
   * `arbor bundle make --seeds <seed>` makes it again (never for secret cases:
   * the test split's fresh or salted seeds).
   */
  seed?: number;
  /** Solution time on the eval's clock: the median over repetitions (null if none finished). */
  seconds: number | null;
  /** speedup: reference time on the eval's clock, the median over repetitions. */
  referenceSeconds?: number;
  /** speedup: the reference's seconds on the eval's clock in each repetition. */
  referenceRepetitions?: number[];
  /** speedup: the median over repetitions of the paired ratio reference / solution; accuracy: numerator / denominator (0 for a failed case). */
  ratio: number;
  repetitions: RepetitionReport[];
}

/** One point of the split. */
export interface PointReport {
  index: number;
  point: PlanPoint;
  score: number;
  cases: CaseReport[];
  /** Repetitions made for this point. */
  repetitions: number;
  seconds: number;
  /** Path split: the work directory the point's cases were read from. */
  folder?: string;
  /**
   * speedup on the cpu and wall clocks: what delivering one case costs, timed
   * with null cases in the reference's runs (the inputs delivered and a zero
   * answer taken back, the solution not called): the median on the eval's
   * clock (`seconds`) and on the wall clock; `solutionRatio` is the fastest
   * case's median time over it (under 10: the point warns).
   */
  overhead?: {seconds: number; wallSeconds: number; count: number; solutionRatio: number | null};
  /** speedup with a measured overhead: the point's harness floor (overhead.seconds) and the largest speedup it could show (floor.ts). */
  harnessFloor?: HarnessFloor;
  /** speedup: the first-case effect per side: the median over runs of the first timed case's time / the median of the other cases' (null: one case a run). */
  firstCase?: {solution: number | null; reference: number | null};
}

/** The full report (`--json FILE`). */
export interface EvalReport {
  benchmark: string;
  /** The plan's name (else the folder's): the benchmark's identity in the run ledger. */
  name: string;
  split: Split;
  metric: Plan['metric'];
  solution: string;
  /** SHA-256 over the editable files as evaluated (lib/ledger solutionDigest). */
  solutionSha256?: string;
  /** The machine, Python, numpy/BLAS and clock, with a fingerprint (lib/environment.ts). */
  environment?: import('../environment.js').Environment;
  score: number;
  /** Why the score is 0.0 when a failure forced it (the first failing case). */
  failure?: string;
  /**
   * Where the cases came from: the plan's seeds, seeds derived from
   * ARBOR_TEST_SALT, fresh seeds every repetition (speedup over seeds), or the
   * files of a path split; and how many (per point, a repetition, for seeds;
   * in all for files).
   */
  seeds: {source: 'published' | 'derived' | 'fresh' | 'files'; count: number};
  /** Repetitions made (speedup: the most any point needed; each point's own count is in points[].repetitions). */
  repetitions: number;
  /**
   * speedup: the clock cases were timed on ("cpu": CPU seconds of the run's process tree; "wall"; "instructions":
   * instructions executed, counted by callgrind; then a case's `seconds` and `referenceSeconds` are instruction counts).
   */
  clock?: Clock;
  /** speedup: why the clock is not the plan's (no cgroup for a CPU clock, no valgrind for the instructions clock). */
  clockNote?: string;
  /** speedup: the score's 95% interval from this eval's repetitions (percentile bootstrap over repetitions; the stopping rule's). */
  interval?: [number, number];
  /**
   * speedup: where a repeat eval of the same solution on this machine falls about 95% of the time: `interval`
   * widened by the next eval's own uncertainty and the spread between evals (stats.ts repeatInterval).
   */
  repeatInterval?: [number, number];
  /**
   * speedup, every point's overhead measured: seconds per case that are not the solution's (the mean over
   * cases of their point's floor) and the largest speedup this eval could show, aggregated as the score is (floor.ts).
   */
  harnessFloor?: HarnessFloor;
  /** speedup: the stopping rule: the plan's target, the half-width reached (relative to the score), and whether every point met it. */
  precision?: {target: number; halfWidth: number; reached: boolean};
  /** How runs were isolated: "bwrap" (bubblewrap sandbox) or "none". */
  sandbox: SandboxKind;
  /** Whether every run had its own cgroup (CPU times, and every process killed through it). */
  cgroup: boolean;
  /** Sandboxed runs: "own-uid" (arbor ran as root: each run a uid of its own, no capabilities) or "caller" (the caller's uid in a user namespace). */
  runUser?: 'own-uid' | 'caller';
  /** Sandboxed runs: the plan's limits of one run, and what enforces each ("cgroup", "rlimit", "size" for a sized tmpfs, or "none"). */
  limits?: {memoryMb: number; processes: number; tmpfsMb: number; enforcedBy: {memory: string; processes: string; tmpfs: string}};
  /** arbor.lock: "ok" (protected files match it) or "missing" (a lock that differs stops the eval: StaleLockError). */
  lock: 'ok' | 'missing';
  /** The CPU every run was pinned to (taskset), if any. */
  pinned: boolean;
  cpu?: string;
  points: PointReport[];
  /** Wall time of the whole eval. */
  seconds: number;
  /** Wall time spent inside solution and reference runs (sandbox start-up included). */
  processSeconds: number;
  /** Runs started (reference and solution processes, each in a fresh sandbox), those started ahead of their turn included. */
  runs?: number;
  /** Harness time by phase (s): load, make, expected, verify, check (tamper hashes without a sandbox). */
  phases?: Record<string, number>;
  /** The temporary folder, when kept. */
  kept?: string;
  /** What the eval warned about on stderr that bears on the score (a solution near the delivery overhead, a precision target missed). */
  warnings?: string[];
  /** EvalOptions.compareWithReference: every case whose answer differed from the reference's (empty when all agreed). */
  referenceDifferences?: ReferenceDifference[];
}

/** A floor and the ceiling it implies: seconds per case that are not the solution's, and the largest speedup the eval can show. */
export interface HarnessFloor {
  /** Seconds per case (on the eval's clock) spent delivering the case and taking its answer, not in the solution. */
  floorSeconds: number;
  /** The largest speedup this eval could show: the mean over cases of the reference's time over the floor. */
  maxSpeedup: number;
}
