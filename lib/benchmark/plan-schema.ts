/**
 * The checks of a plan.toml as one zod schema. The schema is built for the
 * parsed data it checks: which keys belong depends on the plan's own `metric`
 * and `split_kind`, and every message quotes the value written, so each key's
 * schema is made knowing them. Every key is checked on its own, so one parse
 * finds every problem at once (zod skips a refinement over the whole object
 * once a key has failed, which is why no check here spans two keys' schemas).
 */
import path from 'node:path';
import {z} from '../zod.js';
import {parseSeeds} from '../bundle/point.js';
import {nearest} from '../nearest.js';

/** The keys a plan may have at its top level. */
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

/** How the files a plan names are looked at. */
export interface PlanFiles {
  isFile(file: string): boolean;
  isDir(file: string): boolean;
}

type Data = Record<string, unknown>;
type Shape = Record<string, z.ZodType>;

/** A key that must be absent: any value written is `message`. */
const absent = (message: string) => z.undefined({error: message}).optional();
/** A TOML integer may come as a bigint: checked as the number it is. */
const asNumber = (value: unknown) => (typeof value === 'bigint' ? Number(value) : value);

function text(key: string, fallback?: string) {
  const schema = z
    .string({error: `"${key}" must be a non-empty string`})
    .refine((value) => value.trim() !== '', {error: `"${key}" must be a non-empty string`});
  return fallback === undefined ? schema : schema.default(fallback);
}

function oneOf<const T extends readonly [string, ...string[]]>(values: T, fallback: T[number], message: string) {
  return z.enum(values, {error: message}).default(fallback);
}

function number(data: Data, key: string, fallback: number, {integer = false, min = 0} = {}) {
  const message = `"${key}" must be ${integer ? 'an integer' : 'a number'} >= ${min}, got ${JSON.stringify(String(data[key]))}`;
  const base = integer ? z.number({error: message}).int({error: message}) : z.number({error: message});
  return z
    .preprocess(asNumber, base.min(min, {error: message}))
    .optional()
    .transform((value) => value ?? fallback);
}

/** A number of any size (an accuracy plan's scores), or absent. */
function anyNumber(data: Data, key: string, what: string) {
  return z.preprocess(asNumber, z.number({error: `"${key}" must be a number (${what}), got ${JSON.stringify(String(data[key]))}`})).optional();
}

/** A path relative to the folder, naming an existing file or folder there. */
function inside(key: string, fallback: string, kind: 'file' | 'dir', dir: string, files: PlanFiles) {
  return text(key, fallback).superRefine((rel, ctx) => {
    const abs = path.resolve(dir, rel);
    if (!(kind === 'file' ? files.isFile(abs) : files.isDir(abs)))
      ctx.addIssue({code: 'custom', message: `"${key}" = "${rel}": no such ${kind === 'file' ? 'file' : 'folder'} in the benchmark folder`});
  });
}

/** A relative path that stays inside the benchmark folder. */
const staysInside = (rel: string) => !rel.startsWith('..') && !path.isAbsolute(rel) && rel !== '.';

/** `editable`: relative paths inside the folder, the solution file among them (default: the solution file alone). */
function editable(solution: string) {
  const message = '"editable" must be a non-empty array of file names, e.g. ["solution.py"]';
  return z
    .array(
      z.string({error: message}).refine((item) => item.trim() !== '', {error: message}),
      {error: message},
    )
    .min(1, {error: message})
    .optional()
    .superRefine((value, ctx) => {
      if (value === undefined) return;
      const files = value.map((item) => path.normalize(item));
      for (const [k, rel] of files.entries())
        if (!staysInside(rel)) ctx.addIssue({code: 'custom', message: `"editable" entry "${value[k]}" must be a path inside the benchmark folder`});
      const twice = files.find((file, index) => files.indexOf(file) !== index);
      if (twice !== undefined) ctx.addIssue({code: 'custom', message: `"editable" names "${twice}" twice`});
      if (typeof solution === 'string' && !files.includes(path.normalize(solution)))
        ctx.addIssue({code: 'custom', message: `"editable" must include the solution file "${solution}"`});
    })
    .transform((value) => (value ?? [solution]).map((item) => path.normalize(item)));
}

/** A seed-range split: `[dev] seeds = "0-3"; points = [{ N = 8 }]`. */
function seedSplit(data: Data, split: 'dev' | 'test') {
  const table = data[split];
  const extra: Shape = {};
  if (typeof table === 'object' && table !== null && !Array.isArray(table)) {
    for (const key of Object.keys(table)) {
      if (key === 'seeds' || key === 'points') continue;
      const near = nearest(key, ['seeds', 'points']);
      extra[key] = absent(`unknown key "${split}.${key}", ${near ? `did you mean "${split}.${near}"?` : 'expected seeds, points'}`);
    }
  }
  const point = (index: number) => {
    const integer = (issue: {path?: readonly PropertyKey[]}) => `"${split}.points[${index}].${String(issue.path?.at(-1))}" must be an integer`;
    return z.record(z.string(), z.preprocess(asNumber, z.number({error: integer}).refine(Number.isSafeInteger, {error: integer})), {
      error: `"${split}.points[${index}]" must be a table like { N = 1024 }`,
    });
  };
  const points = Array.isArray((table as Data | undefined)?.points) ? ((table as Data).points as unknown[]) : [];
  return z.object(
    {
      seeds: z.string({error: `"${split}.seeds" must be a seed spec string like "0-3"`}).transform((spec, ctx) => {
        try {
          return {spec, seeds: parseSeeds(spec, `${split}.seeds`)};
        } catch (error) {
          ctx.addIssue({code: 'custom', message: (error as Error).message});
          return z.NEVER;
        }
      }),
      points: z
        .tuple([point(0), ...points.slice(1).map((_, index) => point(index + 1))], {
          error: `"${split}.points" must be a non-empty array of inline tables`,
        })
        .refine((list) => list.length > 0, {error: `"${split}.points" must be a non-empty array of inline tables`}),
      ...extra,
    },
    {error: (issue) => (issue.input === undefined ? `missing [${split}] table with "seeds" and "points"` : `[${split}] must be a table`)},
  );
}

/** A path split: `[dev] path = "data/dev"`, a folder under data/ (the one arbor.lock protects and no editable file may be in). */
function pathSplit(data: Data, split: 'dev' | 'test') {
  const table = data[split];
  const extra: Shape = {};
  if (typeof table === 'object' && table !== null && !Array.isArray(table)) {
    for (const key of Object.keys(table)) {
      if (key !== 'path')
        extra[key] = absent(
          `unknown key "${split}.${key}" in a plan with split_kind = "path", expected path (the seeds and points are in each work directory)`,
        );
    }
  }
  return z.object(
    {
      path: z
        .string({error: `"${split}.path" must be a folder name like "data/${split}"`})
        .refine((rel) => rel.trim() !== '', {error: `"${split}.path" must be a folder name like "data/${split}"`})
        .superRefine((rel, ctx) => {
          const normal = path.normalize(rel);
          if (!normal.startsWith(`data${path.sep}`) || normal.split(path.sep).includes('..'))
            ctx.addIssue({
              code: 'custom',
              message: `"${split}.path" = "${rel}" must be a folder under data/ (protected by arbor.lock), e.g. "data/${split}"`,
            });
        }),
      ...extra,
    },
    {error: (issue) => (issue.input === undefined ? `missing [${split}] table with "path" (split_kind = "path")` : `[${split}] must be a table`)},
  );
}

/** The keys of one metric only: on a plan of the other metric each is a problem naming the metric it belongs to. */
function metricKeys(data: Data, metric: unknown, dir: string, files: PlanFiles): Shape {
  if (metric === 'speedup') {
    const pair = '"numerator" and "denominator" belong to metric = "accuracy"';
    return {
      reference: inside('reference', 'reference.py', 'file', dir, files),
      clock: oneOf(['cpu', 'wall', 'instructions'], 'cpu', `"clock" must be "cpu", "wall" or "instructions", got ${JSON.stringify(data.clock)}`),
      // One problem for the pair, said at the first of them written.
      numerator: absent(pair),
      denominator: data.numerator === undefined ? absent(pair) : z.unknown(),
      probe_floor: absent('"probe_floor" belongs to metric = "accuracy": a speedup probe must score 0.0'),
      fail_score: absent('"fail_score" belongs to metric = "accuracy": a speedup case that fails scores 0.0'),
    };
  }
  if (metric !== 'accuracy') return {};
  const timed: Shape = {};
  for (const key of ['reference', 'clock', 'precision', 'max_seconds', 'repetitions'])
    timed[key] = absent(`"${key}" belongs to metric = "speedup" (an accuracy eval runs once and is not timed)`);
  const needs = 'metric = "accuracy" needs "numerator" and "denominator" (metric names the verifier reports)';
  const minimize = data.direction === 'minimize';
  return {
    ...timed,
    numerator: data.numerator === undefined ? z.string({error: needs}) : text('numerator'),
    // Both missing is one problem, said once (at numerator).
    denominator: data.denominator === undefined ? (data.numerator === undefined ? z.unknown() : z.string({error: needs})) : text('denominator'),
    probe_floor: anyNumber(data, 'probe_floor', 'the score trivial answers reach on dev'),
    fail_score: minimize
      ? z
          .unknown()
          .transform(asNumber)
          .pipe(
            z.number({
              error: (issue) =>
                issue.input === undefined
                  ? 'direction = "minimize" needs "fail_score": the score of a case with no scorable answer (crash, timeout, wrong shape), at least the worst score the verifier reports; without it such a case would score 0, the best'
                  : `"fail_score" must be a number (the score of a case with no scorable answer), got ${JSON.stringify(String(data.fail_score))}`,
            }),
          )
      : anyNumber(data, 'fail_score', 'the score of a case with no scorable answer'),
  };
}

/** The schema that checks `data`, the parsed plan.toml of the benchmark folder `dir`. */
export function planSchema(data: Data, dir: string, files: PlanFiles) {
  const unknown: Shape = {};
  for (const key of Object.keys(data)) {
    if (knownKeys.has(key)) continue;
    const near = nearest(key, knownKeys);
    unknown[key] = absent(near ? `unknown key "${key}", did you mean "${near}"?` : `unknown key "${key}", expected one of ${[...knownKeys].join(', ')}`);
  }
  const solution = typeof data.solution === 'string' ? data.solution : 'solution.py';
  const split = data.split_kind === 'path' ? pathSplit : seedSplit;
  return z.object({
    metric: z.enum(['speedup', 'accuracy'], {error: `"metric" must be "speedup" or "accuracy", got ${JSON.stringify(data.metric ?? null)}`}),
    split_kind: oneOf(['seed_range', 'path'], 'seed_range', `"split_kind" must be "seed_range" or "path", got ${JSON.stringify(data.split_kind)}`),
    direction: oneOf(['maximize', 'minimize'], 'maximize', `"direction" must be "maximize" or "minimize", got ${JSON.stringify(data.direction)}`).refine(
      (direction) => !(direction === 'minimize' && data.metric === 'speedup'),
      {error: '"direction" = "minimize" does not fit metric = "speedup": a speedup is higher-is-better'},
    ),
    solution: text('solution', 'solution.py').refine((rel) => staysInside(path.normalize(rel)), {
      error: `"solution" = "${solution}" must be a path inside the benchmark folder`,
    }),
    name: text('name').optional(),
    bundle: inside('bundle', 'bundle', 'dir', dir, files),
    editable: editable(solution),
    interface: oneOf(
      ['run', 'solve'],
      'run',
      `"interface" must be "run" (init/run, the default) or "solve" (AlgoTune's solve(problem)), got ${JSON.stringify(data.interface)}`,
    ),
    test_budget: number(data, 'test_budget', 5, {integer: true, min: 0}),
    repetitions: number(data, 'repetitions', 3, {integer: true, min: 2}),
    precision: number(data, 'precision', 0.01, {min: 0}),
    max_seconds: number(data, 'max_seconds', 120, {min: 0}),
    timeout: number(data, 'timeout', 60, {min: 0.001}),
    timeout_factor: number(data, 'timeout_factor', 10, {min: 1}),
    min_timeout: number(data, 'min_timeout', 1, {min: 0.001}),
    init_timeout: number(data, 'init_timeout', 60, {min: 0.001}),
    time_limit: number(data, 'time_limit', 3600, {min: 1}),
    memory_mb: number(data, 'memory_mb', 4096, {integer: true, min: 64}),
    processes: number(data, 'processes', 256, {integer: true, min: 8}),
    tmpfs_mb: number(data, 'tmpfs_mb', 512, {integer: true, min: 1}),
    dev: split(data, 'dev'),
    test: split(data, 'test'),
    ...metricKeys(data, data.metric, dir, files),
    ...unknown,
  });
}

/**
 * The line of plan.toml a problem's key is written on. smol-toml gives no
 * places for values, only for syntax errors, so the text is scanned: the
 * first line `key =` at the top level (before any table header), or inside
 * `[table]` for a key of a table (`dev.seeds`; a point `dev.points[0].N` is
 * placed at its `points` line); a table's own problem at its header.
 * Undefined for a key not written (a missing table or metric).
 */
export function keyLine(text: string, keyPath: readonly PropertyKey[]): number | undefined {
  const [first, second] = keyPath.map(String);
  if (first === undefined) return undefined;
  const escaped = (key: string) => key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const lines = text.split(/\r?\n/);
  let table: string | undefined;
  for (const [k, line] of lines.entries()) {
    const header = /^\s*\[([^\]]+)\]/.exec(line);
    if (header) {
      table = header[1]!.trim();
      if (second === undefined && table === first) return k + 1;
      continue;
    }
    const wanted = second === undefined ? (table === undefined ? first : undefined) : table === first ? second : undefined;
    if (wanted !== undefined && new RegExp(`^\\s*["']?${escaped(wanted)}["']?\\s*=`).test(line)) return k + 1;
  }
  return undefined;
}
