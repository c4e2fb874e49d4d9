/**
 * The eval plan: `plan.toml` in a benchmark folder says which bundle, solution,
 * reference and metric the eval uses, and which points and seeds make up the
 * dev and test splits. The format is documented in lib/eval/README.md.
 */
import {statSync} from 'node:fs';
import {readFile} from 'node:fs/promises';
import path from 'node:path';
import {parse as parseToml} from 'smol-toml';
import {UsageError} from '../errors.js';
import {parseSeeds} from '../bundle/point.js';
import {tomlProblem} from '../toml.js';
import {nearest} from '../nearest.js';
import {HarnessError} from './errors.js';

/** The two splits every plan has. */
export const splits = ['dev', 'test'] as const;
export type Split = (typeof splits)[number];

/** The clocks a speed plan may time cases on (README "The clock"). */
export const clocks = ['cpu', 'wall', 'instructions'] as const;
export type Clock = (typeof clocks)[number];

/** A point: the bundle's point parameters (integers). */
export type PlanPoint = Record<string, number>;

/**
 * One split of the plan: every point is run on every seed; or, in a plan with
 * `split_kind = "path"`, the made work directories in a folder (`path`).
 */
export interface PlanSplit {
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

const knownKeys = new Set([
  'name',
  'bundle',
  'solution',
  'editable',
  'direction',
  'split_kind',
  'test_budget',
  'metric',
  'interface',
  'reference',
  'repetitions',
  'clock',
  'precision',
  'max_seconds',
  'numerator',
  'denominator',
  'probe_floor',
  'fail_score',
  'timeout',
  'timeout_factor',
  'min_timeout',
  'init_timeout',
  'time_limit',
  'memory_mb',
  'processes',
  'tmpfs_mb',
  'dev',
  'test',
]);

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
  return checkPlan(data, dir, file, options);
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

/** One problem of a plan, as `checkPlan` found it (thrown inside, collected by `attempt`). */
class PlanProblem extends Error {}

/**
 * A plan.toml with problems: all of them, each a message naming its key (verify
 * reports each at its line); the error's own message joins them in one line.
 */
export class InvalidPlanError extends HarnessError {
  readonly problems: string[];

  constructor(file: string, problems: string[]) {
    super(`${file}: ${problems.join('; ')}`, 'bad-plan');
    this.problems = problems;
  }
}

/**
 * Check parsed plan data (exported for tests). `file` names the plan in
 * messages. Every problem is found, not only the first: each check that fails
 * records its message and the check goes on with the key's default.
 */
export function checkPlan(data: Record<string, unknown>, dir: string, file: string, options: CheckPlanOptions = {}): Plan {
  const problems: string[] = [];
  const files = options.files ?? plainFiles;
  const fail = (message: string): never => {
    throw new PlanProblem(message);
  };
  /** `work`'s value, or `fallback` once its problem is recorded. */
  const attempt = <T>(fallback: T, work: () => T): T => {
    try {
      return work();
    } catch (error) {
      if (!(error instanceof PlanProblem)) throw error;
      problems.push(error.message);
      return fallback;
    }
  };
  for (const key of Object.keys(data)) {
    if (knownKeys.has(key)) continue;
    const near = nearest(key, knownKeys);
    problems.push(near ? `unknown key "${key}", did you mean "${near}"?` : `unknown key "${key}", expected one of ${[...knownKeys].join(', ')}`);
  }
  const str = (key: string, fallback?: string): string | undefined => {
    const value = data[key];
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || value.trim() === '') fail(`"${key}" must be a non-empty string`);
    return value as string;
  };
  const num = (key: string, fallback: number, {integer = false, min = 0} = {}): number => {
    const value = data[key];
    if (value === undefined) return fallback;
    const n = typeof value === 'bigint' ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min) {
      fail(`"${key}" must be ${integer ? 'an integer' : 'a number'} >= ${min}, got ${JSON.stringify(String(value))}`);
    }
    return n as number;
  };
  const inside = (key: string, rel: string, kind: 'file' | 'dir'): string => {
    const abs = path.resolve(dir, rel);
    if (!(kind === 'file' ? files.isFile(abs) : files.isDir(abs))) {
      fail(`"${key}" = "${rel}": no such ${kind === 'file' ? 'file' : 'folder'} in the benchmark folder`);
    }
    return abs;
  };

  const metric = attempt(undefined, () => str('metric'));
  const splitKind = attempt('seed_range', () => {
    const value = str('split_kind', 'seed_range');
    if (value !== 'seed_range' && value !== 'path') fail(`"split_kind" must be "seed_range" or "path", got ${JSON.stringify(data.split_kind)}`);
    return value!;
  });
  const direction = attempt('maximize', () => {
    const value = str('direction', 'maximize');
    if (value !== 'maximize' && value !== 'minimize') fail(`"direction" must be "maximize" or "minimize", got ${JSON.stringify(data.direction)}`);
    if (value === 'minimize' && metric === 'speedup') fail('"direction" = "minimize" does not fit metric = "speedup": a speedup is higher-is-better');
    return value!;
  });
  const solutionRel = attempt('solution.py', () => str('solution', 'solution.py')!);
  attempt(undefined, () => {
    if (metric !== 'speedup' && metric !== 'accuracy') fail(`"metric" must be "speedup" or "accuracy", got ${JSON.stringify(data.metric ?? null)}`);
  });
  const named = typeof data.name === 'string';
  const split = (which: Split): PlanSplit =>
    attempt({seedsText: '', seeds: [], points: []}, () => (splitKind === 'path' ? readPathSplit(data, which, dir, fail) : readSplit(data, which, fail)));
  const plan: Plan = {
    dir,
    splitKind: splitKind as Plan['splitKind'],
    name: attempt(path.basename(dir), () => str('name') ?? path.basename(dir)),
    named,
    bundle: attempt(path.join(dir, 'bundle'), () => inside('bundle', str('bundle', 'bundle')!, 'dir')),
    solution: path.resolve(dir, solutionRel),
    editable: attempt([path.normalize(solutionRel)], () => readEditable(data.editable, solutionRel, fail)),
    metric: (metric ?? 'speedup') as Plan['metric'],
    interface: attempt('run', () => solveOrRun(str('interface', 'run')!, fail)),
    direction: direction as Plan['direction'],
    failScore: 0,
    testBudget: attempt(5, () => num('test_budget', 5, {integer: true, min: 0})),
    repetitions: attempt(3, () => num('repetitions', 3, {integer: true, min: 2})),
    clock: attempt('cpu', () => str('clock', 'cpu')) as Plan['clock'],
    precision: attempt(0.01, () => num('precision', 0.01, {min: 0})),
    maxSeconds: attempt(120, () => num('max_seconds', 120, {min: 0})),
    timeout: attempt(60, () => num('timeout', 60, {min: 0.001})),
    timeoutFactor: attempt(10, () => num('timeout_factor', 10, {min: 1})),
    minTimeout: attempt(1, () => num('min_timeout', 1, {min: 0.001})),
    initTimeout: attempt(60, () => num('init_timeout', 60, {min: 0.001})),
    timeLimit: attempt(3600, () => num('time_limit', 3600, {min: 1})),
    memoryMb: attempt(4096, () => num('memory_mb', 4096, {integer: true, min: 64})),
    processes: attempt(256, () => num('processes', 256, {integer: true, min: 8})),
    tmpfsMb: attempt(512, () => num('tmpfs_mb', 512, {integer: true, min: 1})),
    dev: split('dev'),
    test: split('test'),
  };
  if (metric === 'speedup') {
    attempt(undefined, () => {
      if (data.numerator !== undefined || data.denominator !== undefined) fail('"numerator" and "denominator" belong to metric = "accuracy"');
    });
    attempt(undefined, () => {
      if (data.probe_floor !== undefined) fail('"probe_floor" belongs to metric = "accuracy": a speedup probe must score 0.0');
    });
    attempt(undefined, () => {
      if (data.fail_score !== undefined) fail('"fail_score" belongs to metric = "accuracy": a speedup case that fails scores 0.0');
    });
    plan.reference = attempt(undefined, () => inside('reference', str('reference', 'reference.py')!, 'file'));
    attempt(undefined, () => {
      if (!(clocks as readonly string[]).includes(plan.clock)) fail(`"clock" must be "cpu", "wall" or "instructions", got ${JSON.stringify(data.clock)}`);
    });
  } else if (metric === 'accuracy') {
    readAccuracyKeys(plan, data, str, fail, attempt);
  }
  if (problems.length > 0) throw new InvalidPlanError(file, problems);
  if (options.disjoint !== false) {
    const overlap = seedOverlap(plan);
    if (overlap) throw new HarnessError(`${file}: ${overlap}`, 'seed-overlap');
  }
  return plan;
}

function solveOrRun(value: string, fail: (message: string) => never): Plan['interface'] {
  if (value !== 'run' && value !== 'solve')
    fail(`"interface" must be "run" (init/run, the default) or "solve" (AlgoTune's solve(problem)), got ${JSON.stringify(value)}`);
  return value as Plan['interface'];
}

/** An accuracy plan's own keys: the verifier's metric names, the probe floor and the score of a case that could not be scored. */
function readAccuracyKeys(
  plan: Plan,
  data: Record<string, unknown>,
  str: (key: string) => string | undefined,
  fail: (message: string) => never,
  attempt: <T>(fallback: T, work: () => T) => T,
): void {
  for (const key of ['reference', 'clock', 'precision', 'max_seconds', 'repetitions']) {
    attempt(undefined, () => {
      if (data[key] !== undefined) fail(`"${key}" belongs to metric = "speedup" (an accuracy eval runs once and is not timed)`);
    });
  }
  plan.numerator = attempt(undefined, () => str('numerator'));
  plan.denominator = attempt(undefined, () => str('denominator'));
  attempt(undefined, () => {
    if (!plan.numerator || !plan.denominator) fail('metric = "accuracy" needs "numerator" and "denominator" (metric names the verifier reports)');
  });
  const anyNumber = (key: string, what: string): number | undefined => {
    const value = data[key];
    if (value === undefined) return undefined;
    const n = typeof value === 'bigint' ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isFinite(n)) fail(`"${key}" must be a number (${what}), got ${JSON.stringify(String(value))}`);
    return n as number;
  };
  const floor = attempt(undefined, () => anyNumber('probe_floor', 'the score trivial answers reach on dev'));
  if (floor !== undefined) plan.probeFloor = floor;
  const worst = attempt(undefined, () => anyNumber('fail_score', 'the score of a case with no scorable answer'));
  if (worst !== undefined) plan.failScore = worst;
  else if (plan.direction === 'minimize' && data.fail_score === undefined) {
    attempt(undefined, () =>
      fail(
        'direction = "minimize" needs "fail_score": the score of a case with no scorable answer (crash, timeout, wrong shape), at least the worst score the verifier reports; without it such a case would score 0, the best',
      ),
    );
  }
}

/** Why the dev and test seeds of a plan are not disjoint, or undefined when they are. */
export function seedOverlap(plan: Pick<Plan, 'dev' | 'test'>): string | undefined {
  const dev = new Set(plan.dev.seeds);
  const shared = plan.test.seeds.find((seed) => dev.has(seed));
  return shared === undefined ? undefined : `dev and test seeds overlap (seed ${shared}); test seeds must be disjoint from dev`;
}

/** `editable`: relative paths inside the folder, the solution file among them. */
function readEditable(value: unknown, solution: string, fail: (message: string) => never): string[] {
  const entry = path.normalize(solution);
  if (entry.startsWith('..') || path.isAbsolute(entry)) fail(`"solution" = "${solution}" must be a path inside the benchmark folder`);
  if (value === undefined) return [entry];
  if (!Array.isArray(value) || value.length === 0 || value.some((item) => typeof item !== 'string' || item.trim() === '')) {
    fail('"editable" must be a non-empty array of file names, e.g. ["solution.py"]');
  }
  const files = (value as string[]).map((item) => {
    const rel = path.normalize(item);
    if (rel.startsWith('..') || path.isAbsolute(rel) || rel === '.') fail(`"editable" entry "${item}" must be a path inside the benchmark folder`);
    return rel;
  });
  const twice = files.find((file, index) => files.indexOf(file) !== index);
  if (twice !== undefined) fail(`"editable" names "${twice}" twice`);
  if (!files.includes(entry)) fail(`"editable" must include the solution file "${solution}"`);
  return files;
}

/** A path split: `[dev] path = "data/dev"`, a folder inside the benchmark. */
function readPathSplit(data: Record<string, unknown>, split: Split, dir: string, fail: (message: string) => never): PlanSplit {
  const table = data[split];
  if (table === undefined) fail(`missing [${split}] table with "path" (split_kind = "path")`);
  if (typeof table !== 'object' || table === null || Array.isArray(table)) fail(`[${split}] must be a table`);
  const t = table as Record<string, unknown>;
  for (const key of Object.keys(t)) {
    if (key !== 'path')
      fail(`unknown key "${split}.${key}" in a plan with split_kind = "path", expected path (the seeds and points are in each work directory)`);
  }
  if (typeof t.path !== 'string' || t.path.trim() === '') fail(`"${split}.path" must be a folder name like "data/${split}"`);
  const rel = path.normalize(t.path as string);
  // Under data/: the folder arbor.lock protects and no editable file may be in.
  if (!rel.startsWith(`data${path.sep}`) || rel.split(path.sep).includes('..'))
    fail(`"${split}.path" = "${t.path as string}" must be a folder under data/ (protected by arbor.lock), e.g. "data/${split}"`);
  return {seedsText: '', seeds: [], points: [], path: path.join(dir, rel)};
}

function readSplit(data: Record<string, unknown>, split: Split, fail: (message: string) => never): PlanSplit {
  const table = data[split];
  if (table === undefined) fail(`missing [${split}] table with "seeds" and "points"`);
  if (typeof table !== 'object' || table === null || Array.isArray(table)) fail(`[${split}] must be a table`);
  const t = table as Record<string, unknown>;
  for (const key of Object.keys(t)) {
    if (key === 'seeds' || key === 'points') continue;
    const near = nearest(key, ['seeds', 'points']);
    fail(`unknown key "${split}.${key}", ${near ? `did you mean "${split}.${near}"?` : 'expected seeds, points'}`);
  }
  if (typeof t.seeds !== 'string') fail(`"${split}.seeds" must be a seed spec string like "0-3"`);
  let seeds: number[] = [];
  try {
    seeds = parseSeedSpec(t.seeds as string, `${split}.seeds`);
  } catch (error) {
    fail((error as Error).message);
  }
  if (!Array.isArray(t.points) || t.points.length === 0) fail(`"${split}.points" must be a non-empty array of inline tables`);
  const points = (t.points as unknown[]).map((point, index) => {
    if (typeof point !== 'object' || point === null || Array.isArray(point)) fail(`"${split}.points[${index}]" must be a table like { N = 1024 }`);
    const out: PlanPoint = {};
    for (const [key, value] of Object.entries(point as Record<string, unknown>)) {
      const n = typeof value === 'bigint' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isSafeInteger(n)) fail(`"${split}.points[${index}].${key}" must be an integer`);
      out[key] = n as number;
    }
    return out;
  });
  return {seedsText: t.seeds as string, seeds, points};
}
