/** What every stage of an eval shares: the plan, the loaded bundle, the sandbox, the snapshots. */
import type {Bundle} from '../bundle/index.js';
import type {Clock, Plan} from '../benchmark/plan.js';
import type {Confinement, OpenedRun, PythonInstall, RunSession, SandboxKind} from '../sandbox/index.js';
import type {TreeHash} from './tamper.js';
import type {BundleApi, EvalOptions, EvalReport, ReferenceDifference} from './types.js';

/** A folder of snapshot files a run sees as its solution, and the file the runner imports. */
export interface RunFiles {
  dir: string;
  entry: string;
}

/** A run opened from the eval's spec (lib/sandbox openRun), with the files it runs (point-runs.ts). */
export interface PreparedRun extends OpenedRun {
  files: RunFiles;
}

/** A run kept across repetitions: its session, its folders, and how many repetitions it served. */
export interface KeptRun {
  prepared: PreparedRun;
  session: RunSession;
  served: number;
}

/** One solution an eval runs: an eval has one, a compare two (baseline, then candidate). */
export interface Side {
  label: string;
  files: RunFiles;
}

export interface EvalContext {
  plan: Plan;
  api: BundleApi;
  bundle: Bundle;
  /** The private copy of runner.py. */
  runner: string;
  /** The solutions under test, each a snapshot of the editable files. */
  sides: Side[];
  /** Repetitions never fewer than this (besides the plan's minimum): a compare against a recorded run matches its count. */
  minRepetitions?: number;
  /** SidesOptions.race: the recorded run's per-point speedups a one-side eval races against. */
  race?: {recorded: number[][][]};
  referenceFiles?: RunFiles;
  python: PythonInstall;
  sandbox: SandboxKind;
  /** The clock cases are timed on (speedup): the plan's, or a fallback (wall where no cgroup can count CPU, cpu where valgrind cannot count instructions). */
  clock: Clock;
  /** Instructions clock: the valgrind binary runs start under. */
  valgrind?: string;
  bwrap?: string;
  /** Sandboxed runs: the seccomp filter, the limits and whether each run drops to a uid of its own. */
  confinement?: Confinement;
  /** The plan's limits of one run, in bytes and processes (the run's cgroup enforces what it can). */
  limits: {memoryBytes: number; processes: number; tmpfsBytes: number};
  cpu?: string;
  tmp: string;
  protectedDir: string;
  /** Without a sandbox: hashes of the protected snapshots, checked after every solution run. */
  tamperCheck: boolean;
  protectedHash?: TreeHash;
  pointHashes?: Map<string, TreeHash>;
  /** The split's seeds (fixed cases; with fresh cases only their count matters). */
  seeds: number[];
  warmupSeed: number;
  /** EvalOptions.compareWithReference: the differences found so far, else undefined (nothing compared). */
  referenceDifferences?: ReferenceDifference[];
  /**
   * Fresh cases (drawsFreshCases): the eval's secret nonce, from which every
   * repetition's seeds are drawn (seeds.ts freshSeeds). Never given to a run.
   */
  nonce?: Buffer;
  /** Seeds a fresh draw never takes: the plan's published ones. */
  excludedSeeds: number[];
  /** Whether the cases are secret (salted or fresh test seeds): no message shows a seed or an input's value. */
  secretCases: boolean;
  /** Seeds no message may show: the derived or fresh test seeds and the warm-up seeds (empty for published seeds and on dev). */
  hiddenSeeds: number[];
  runCount: number;
  /** The run started ahead of its turn (point.ts), if any. */
  runAhead?: PreparedRun;
  /**
   * Speedup evals in the sandbox with a freezable cgroup, whose every repetition draws fresh cases
   * (never a path split: point-runs.ts keepsRuns): the runs kept across repetitions, by the files they run; each serves `repetitionsPerRun` repetitions. Null: runs
   * cannot be kept here (no freezer).
   */
  kept?: Map<RunFiles, KeptRun> | null;
  /** How many repetitions one run serves (1: a fresh run every repetition). */
  repetitionsPerRun: number;
  /**
   * How a compare's two sides take turns on kept runs: `case`, each case timed on both back to
   * back (ABBA from case to case); `run`, each side's whole segment of cases in turn.
   */
  pairing: 'case' | 'run';
  /** Whether a repetition's sides were served case by case (pairing `case`, on kept runs). */
  pairedByCase?: boolean;
  progress: NonNullable<EvalOptions['onProgress']>;
  report: EvalReport;
  deadline: () => number;
  timed: <T>(name: string, work: () => Promise<T> | T) => Promise<T>;
}
