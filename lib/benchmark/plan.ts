/**
 * The eval plan: `plan.toml` in a benchmark folder says which bundle, solution,
 * reference and metric the eval uses, and which points and seeds make up the
 * dev and test splits. The format is documented in lib/eval/README.md.
 */
import {createHash} from 'node:crypto';
import {statSync} from 'node:fs';
import {readFile} from 'node:fs/promises';
import path from 'node:path';
import {parse as parseToml} from 'smol-toml';
import {UsageError} from '../errors.js';
import {parseSeeds} from '../bundle/point.js';
import {tomlProblem} from '../toml.js';
import {keyLine, planSchema} from './plan-schema.js';
import {HarnessError} from './errors.js';

/** The two splits every plan has. */
export const splits = ['dev', 'test'] as const;
export type Split = (typeof splits)[number];

/** The clocks a speed plan may time cases on (README "The clock"). */
const clocks = ['cpu', 'wall', 'instructions'] as const;
export type Clock = (typeof clocks)[number];

/** A point: the bundle's point parameters (integers). */
export type PlanPoint = Record<string, number>;

/**
 * One split of the plan: every point is run on every seed; or, in a plan with
 * `split_kind = "path"`, the made work directories in a folder (`path`).
 */
interface PlanSplit {
  /** The seed spec as written, e.g. `0-3` (empty for a path split). */
  seedsText: string;
  seeds: number[];
  points: PlanPoint[];
  /** Path split: the folder whose subfolders are made work directories (absolute; it may be missing until a platform provides it). */
  path?: string;
}

/** A parsed and checked plan.toml. */
export interface Plan {
  /** The benchmark folder (absolute). */
  dir: string;
  /** `seed_range`: cases generated from seeds and points; `path`: cases are files (made work directories). */
  splitKind: 'seed_range' | 'path';
  /** Name used to derive salted test seeds: `name`, else the folder's name. */
  name: string;
  /** Whether `name` was written in the plan (else the folder name stands in). */
  named: boolean;
  bundle: string;
  solution: string;
  /**
   * The files a solution may edit, relative to the folder (default: the
   * solution file). Only these are visible to a run; everything else of the
   * benchmark is protected.
   */
  editable: string[];
  metric: 'speedup' | 'accuracy';
  /**
   * How the runner calls the solution: `run` (init(point) / run(state, inputs), the default) or
   * `solve` (AlgoTune's solve(problem): the bundle's one u8 argument and one u8 result carry
   * objects in arbor's object encoding, lib/eval/objects.py).
   */
  interface: 'run' | 'solve';
  /** Distinct solutions that may be scored on test before evals warn (advisory, counted in the run ledger). */
  testBudget: number;
  /** Whether a higher or a lower score is better (informational for the eval; a speedup is always maximize). */
  direction: 'maximize' | 'minimize';
  /** speedup: the reference solver file (absolute). */
  reference?: string;
  /** speedup: the fewest timed repetitions (each a fresh sandbox) before the stopping rule may end them. */
  repetitions: number;
  /**
   * speedup: the clock cases are timed on: CPU seconds of the run's process tree (default), wall seconds, or
   * the instructions the run executes, counted by valgrind's callgrind (deterministic; lib/sandbox/instructions.ts).
   */
  clock: Clock;
  /** speedup: repeat until the half-width of the score's 95% interval is at most precision x score (default 0.01). */
  precision: number;
  /** speedup: the time budget (s) for repetitions past the minimum (default 120). */
  maxSeconds: number;
  /** accuracy: score = mean of metrics[numerator] / metrics[denominator]. */
  numerator?: string;
  denominator?: string;
  /**
   * accuracy: the score the author measured trivial answers reaching on a partial-credit task
   * (`probe_floor`): `verify --probe` accepts a trivial answer at or under it (for minimize: at or
   * over it) and reports one past it; absent, the bar is what all zeros scores plus 0.01.
   */
  probeFloor?: number;
  /**
   * accuracy: the score of a case the verifier could not score (a crash, a timeout, an answer of the
   * wrong shape, a touched protected file): `fail_score`, default 0, the worst a maximize metric gives.
   * A minimize plan must set it (its worst score), or a crash would score best.
   */
  failScore: number;
  /** Per-case limit (s) where no reference time bounds it: reference runs, accuracy runs. */
  timeout: number;
  /** speedup: per-case limit = max(minTimeout, timeoutFactor x reference time). */
  timeoutFactor: number;
  minTimeout: number;
  /** Limit (s) for one process to start, import the solution and run init(). */
  initTimeout: number;
  /** Limit (s) on the whole eval run (harness failure beyond it). */
  timeLimit: number;
  /** Memory one run may use (MiB), its tmpfs files included: over it, the run is killed and its case fails. */
  memoryMb: number;
  /** Processes and threads one run may have at once. */
  processes: number;
  /** Size of each of a run's tmpfs (/tmp, /dev/shm, HOME), MiB. */
  tmpfsMb: number;
  dev: PlanSplit;
  test: PlanSplit;
}

/** Plan values a caller may replace for one eval (`EvalOptions.planOverride`): the cost of a run, never what it measures. */
export type PlanOverride = Partial<Pick<Plan, 'repetitions' | 'maxSeconds' | 'timeout'>>;

/** `plan` with the defined values of `override` in place of its own. */
export function overridePlan(plan: Plan, override: PlanOverride = {}): Plan {
  const defined = Object.entries(override).filter(([, value]) => value !== undefined);
  return defined.length ? {...plan, ...Object.fromEntries(defined)} : plan;
}

/**
 * Parse a seed spec: a range `0-7`, a list `0,3,5`, or a mix `0-2,7,9`.
 * Same syntax as `arbor bundle make --seeds`. Duplicates are an error.
 */
export function parseSeedSpec(text: string, where = 'seeds'): number[] {
  try {
    return parseSeeds(text, where);
  } catch (error) {
    throw new HarnessError((error as Error).message);
  }
}

/** Read and check `<dir>/plan.toml`: a missing one is a UsageError, every other problem a HarnessError naming the key. */
export async function loadPlan(dir: string): Promise<Plan> {
  const file = path.join(dir, 'plan.toml');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      // Not a benchmark with an eval at all (a wrong folder): bad usage, not a broken harness.
      throw new UsageError(
        `${file}: no eval plan (plan.toml) in this folder; give a benchmark folder that has one (its format is in lib/eval/README.md)`,
        'no-plan',
      );
    }
    throw new HarnessError(`${file}: cannot read: ${(error as Error).message}`, 'no-plan');
  }
  return planFromText(text, dir, file);
}

/** Options of `planFromText` and `checkPlan`. */
export interface CheckPlanOptions {
  /** Refuse dev and test seeds that overlap (default true; verify reports the overlap as a finding of its own). */
  disjoint?: boolean;
  /** How the TOML is parsed (default smol-toml's `parse`; list passes one that remembers identical texts). */
  parse?: (text: string) => unknown;
  /** How the files the plan names are looked at, each answer as `statSync(file)` gives it (default: the file system). */
  files?: {isFile(file: string): boolean; isDir(file: string): boolean};
}

/** Parse and check the text of a plan.toml (synchronous: verify and list run it for every folder). */
export function planFromText(text: string, dir: string, file: string, options: CheckPlanOptions = {}): Plan {
  let data: Record<string, unknown>;
  try {
    data = (options.parse ?? parseToml)(text) as Record<string, unknown>;
  } catch (error) {
    throw new HarnessError(`${file}: not valid TOML: ${tomlProblem(error, text)}`, 'bad-plan-toml', {cause: error});
  }
  return checkPlan(data, dir, file, {...options, text});
}

const isKind = (file: string, kind: 'file' | 'dir'): boolean => {
  let info;
  try {
    info = statSync(file, {throwIfNoEntry: false});
  } catch {
    return false;
  }
  return info !== undefined && (kind === 'file' ? info.isFile() : info.isDirectory());
};
const plainFiles = {isFile: (file: string) => isKind(file, 'file'), isDir: (file: string) => isKind(file, 'dir')};

/** One problem of a plan: its message (naming its key) and the line of plan.toml the key is on, when it is written. */
export interface PlanProblem {
  message: string;
  line?: number;
}

/**
 * A plan.toml with problems: all of them, each a message naming its key (verify
 * reports each at its line); the error's own message joins them in one line,
 * each led by its line where known (`plan.toml: line 3: "timeout" must be …; line 7: …`).
 */
export class InvalidPlanError extends HarnessError {
  /** The messages alone. */
  readonly problems: string[];
  readonly placed: PlanProblem[];

  constructor(file: string, placed: PlanProblem[]) {
    super(`${file}: ${placed.map((each) => (each.line === undefined ? each.message : `line ${each.line}: ${each.message}`)).join('; ')}`, 'bad-plan');
    this.placed = placed;
    this.problems = placed.map((each) => each.message);
  }
}

/**
 * Check parsed plan data (exported for tests). `file` names the plan in
 * messages; `options.text`, the plan's text, places each problem at its line.
 * Every problem is found, not only the first: one zod parse (plan-schema.ts)
 * checks every key on its own.
 */
function checkPlan(data: Record<string, unknown>, dir: string, file: string, options: CheckPlanOptions & {text?: string} = {}): Plan {
  const parsed = planSchema(data, dir, options.files ?? plainFiles).safeParse(data);
  if (!parsed.success) {
    const seen = new Set<string>();
    const placed: PlanProblem[] = [];
    for (const issue of parsed.error.issues) {
      if (seen.has(issue.message)) continue;
      seen.add(issue.message);
      const line = options.text === undefined ? undefined : keyLine(options.text, issue.path);
      placed.push(line === undefined ? {message: issue.message} : {message: issue.message, line});
    }
    // In the order of the file, the keys not written (a missing table) last.
    placed.sort((a, b) => (a.line ?? Number.MAX_SAFE_INTEGER) - (b.line ?? Number.MAX_SAFE_INTEGER));
    throw new InvalidPlanError(file, placed);
  }
  const plan = planOf(parsed.data, data, dir);
  if (options.disjoint !== false) {
    const overlap = seedOverlap(plan);
    if (overlap) throw new HarnessError(`${file}: ${overlap}`, 'seed-overlap');
  }
  return plan;
}

/** The TOML keys of a checked plan, as the schema answers them (defaults filled in). */
interface CheckedSplit {
  seeds?: {spec: string; seeds: number[]};
  points?: PlanPoint[];
  path?: string;
}
interface Checked {
  metric: Plan['metric'];
  split_kind: Plan['splitKind'];
  name?: string;
  bundle: string;
  solution: string;
  editable: string[];
  interface: Plan['interface'];
  direction: Plan['direction'];
  test_budget: number;
  repetitions: number;
  precision: number;
  max_seconds: number;
  timeout: number;
  timeout_factor: number;
  min_timeout: number;
  init_timeout: number;
  time_limit: number;
  memory_mb: number;
  processes: number;
  tmpfs_mb: number;
  reference?: string;
  clock?: Clock;
  numerator?: string;
  denominator?: string;
  probe_floor?: number;
  fail_score?: number;
  dev: CheckedSplit;
  test: CheckedSplit;
}

/** The Plan of checked data: names of the TOML keys to the fields of Plan, defaults filled in, paths made absolute. */
function planOf(c: Checked, data: Record<string, unknown>, dir: string): Plan {
  const split = (which: Split): PlanSplit => {
    const table = c[which];
    if (c.split_kind === 'path') return {seedsText: '', seeds: [], points: [], path: path.join(dir, path.normalize(table.path!))};
    return {seedsText: table.seeds!.spec, seeds: table.seeds!.seeds, points: table.points!};
  };
  const plan: Plan = {
    dir,
    splitKind: c.split_kind,
    name: c.name ?? path.basename(dir),
    named: typeof data.name === 'string',
    bundle: path.resolve(dir, c.bundle),
    solution: path.resolve(dir, c.solution),
    editable: c.editable,
    metric: c.metric,
    interface: c.interface,
    direction: c.direction,
    failScore: c.fail_score ?? 0,
    testBudget: c.test_budget,
    repetitions: c.repetitions,
    clock: c.clock ?? 'cpu',
    precision: c.precision,
    maxSeconds: c.max_seconds,
    timeout: c.timeout,
    timeoutFactor: c.timeout_factor,
    minTimeout: c.min_timeout,
    initTimeout: c.init_timeout,
    timeLimit: c.time_limit,
    memoryMb: c.memory_mb,
    processes: c.processes,
    tmpfsMb: c.tmpfs_mb,
    dev: split('dev'),
    test: split('test'),
  };
  if (c.metric === 'speedup') plan.reference = path.resolve(dir, c.reference!);
  else {
    plan.numerator = c.numerator;
    plan.denominator = c.denominator;
    if (c.probe_floor !== undefined) plan.probeFloor = c.probe_floor;
  }
  return plan;
}

/** Why the dev and test seeds of a plan are not disjoint, or undefined when they are. */
export function seedOverlap(plan: Pick<Plan, 'dev' | 'test'>): string | undefined {
  const dev = new Set(plan.dev.seeds);
  const shared = plan.test.seeds.find((seed) => dev.has(seed));
  return shared === undefined ? undefined : `dev and test seeds overlap (seed ${shared}); test seeds must be disjoint from dev`;
}

/**
 * The digest of a parsed plan, the same on every machine that holds the entry: canonical JSON (keys sorted),
 * its folder `.` and each path inside it relative, `/`-separated. Two plans with the same digest score alike:
 * the queue's worker checks a job by it, and a race (`eval --against`) its recorded reference.
 */
export function planDigest(plan: Plan): string {
  const portable = (value: unknown): unknown => {
    if (typeof value === 'string') {
      if (value === plan.dir) return '.';
      return value.startsWith(`${plan.dir}${path.sep}`) ? path.relative(plan.dir, value).split(path.sep).join('/') : value;
    }
    if (Array.isArray(value)) return value.map(portable);
    if (typeof value !== 'object' || value === null) return value;
    const record = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .filter((key) => record[key] !== undefined)
        .sort()
        .map((key) => [key, portable(record[key])]),
    );
  };
  return createHash('sha256')
    .update(JSON.stringify(portable(plan)))
    .digest('hex');
}
