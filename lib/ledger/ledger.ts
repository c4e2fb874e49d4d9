/**
 * The run ledger: one SQLite database (better-sqlite3) holding a row per eval,
 * compare or calibrate run. better-sqlite3 is a native addon, so it is loaded
 * on the first `openLedger`, never when this module is imported.
 */
import {existsSync, mkdirSync, readFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import {ArborError} from '../errors.js';
import {LedgerError, ledgerFailure} from './errors.js';
import {ledgerFolder} from './location.js';
import {writeFileAtomic} from '../files.js';

/** What produced a run. */
type RunKind = 'eval' | 'compare' | 'calibrate';
/** `ok`: scored; `failed`: scored 0.0 because a case failed; `error`: the harness gave no score. */
export type RunStatus = 'ok' | 'failed' | 'error';
/** Where a run's cases came from: published seeds, seeds derived from the test salt, or the files of a path split. */
type SeedSource = 'published' | 'derived' | 'fresh' | 'files';
const seedSources: readonly string[] = ['published', 'derived', 'fresh', 'files'];

/** How a solution label was made (schema 4): `given` (`--label`), `commit`, `entry` (the entry's own solution), `file` (any other path: never a best). */
export type LabelKind = 'given' | 'commit' | 'entry' | 'file';
const labelKinds: readonly string[] = ['given', 'commit', 'entry', 'file'];

/** The verdict of a compare run (`undecided`: a race, `eval --against`, that formed no interval). */
export type CompareVerdict = 'better' | 'worse' | 'same' | 'undecided';

/** The environment as recorded: any JSON object carrying its fingerprint (`describeEnvironment` in lib/environment.ts). */
export interface RecordedEnvironment {
  fingerprint: string;
}

/** The outcome of a compare run: candidate over baseline. */
export interface CompareOutcome {
  verdict: CompareVerdict;
  /** Candidate score over baseline score (above 1 is better); null when undefined (a side scored 0.0). */
  ratio: number | null;
  /** The ratio's 95% interval. */
  interval: [number, number] | null;
  /** The baseline's `solution_sha256` (the candidate's is the run's). */
  baselineSha256: string | null;
  /** The ledger run reused as the baseline (`--baseline-run`), if any. */
  baselineRun: number | null;
  /** How the baseline was named: its solution file or folder (`solutionLabel`), `commit …` for a revision, `ledger run #N` with `--baseline-run`; null when unknown (schema 1). */
  baselineLabel?: string | null;
}

/** One run, as the eval or compare command hands it to the ledger. */
export interface RunRecord {
  /** ISO 8601 time; now when omitted. */
  time?: string;
  kind: RunKind;
  /** The benchmark folder (absolute) and its name (the plan's `name`, else the folder's). */
  benchmark: {path: string; name: string};
  split: string;
  /** `solutionDigest` of the editable files (null when unknown). */
  solutionSha256: string | null;
  /**
   * How the user named the solution: the `--solution` file (or folder) relative
   * to the benchmark folder (`solution.py`, `../fast.py`), absolute when far
   * from it; `commit …` for a git revision. Null when unknown (runs recorded by
   * schema 1). The digest says what ran; this says what to call it.
   */
  solutionLabel?: string | null;
  /** How `solutionLabel` was made (see LabelKind); null when unknown (runs recorded before schema 4). */
  labelKind?: LabelKind | null;
  /** The repository's HEAD and dirty flag (`gitState`), null outside a repository. */
  git: {commit: string; dirty: boolean} | null;
  environment: RecordedEnvironment;
  metric: string;
  /** Null only for status `error`. */
  score: number | null;
  /** The score's interval `[lo, hi]`, when the eval computed one. */
  interval: [number, number] | null;
  status: RunStatus;
  /** Where the seeds came from and how many: never the seeds themselves (salted test seeds are secret). */
  seeds: {source: SeedSource; count: number};
  /** Per-case results (any JSON objects; `seed`/`seeds` keys are dropped when the seeds are derived). */
  cases: Record<string, unknown>[];
  /** Only for kind `compare`. */
  compare?: CompareOutcome | null;
}

/** A run as stored: the record with its id and time. */
export interface LedgerRun extends RunRecord {
  id: number;
  time: string;
  solutionLabel: string | null;
  labelKind: LabelKind | null;
  /**
   * Null for a run this ledger recorded; for a run another ledger recorded and
   * `arbor benchmark runs --merge` imported, the file it came from (absolute,
   * where it was when imported). An imported run is listed, marked, but never
   * counts as a best, a latest or a step (see `summarizeRuns`, `findChanges`):
   * nothing proves it was measured here.
   */
  importedFrom: string | null;
  compare: (CompareOutcome & {baselineLabel: string | null}) | null;
}

/**
 * Oldest first: by time, then by id. Ids say the order runs were appended to
 * this ledger, which is not the order they ran once another ledger's runs are
 * imported (`importLedger`, `runs --merge`): every "latest" and every series goes by time.
 */
export function byTime(a: {time: string; id: number}, b: {time: string; id: number}): number {
  return a.time < b.time ? -1 : a.time > b.time ? 1 : a.id - b.id;
}

/** Which runs `listRuns` returns (newest first). */
export interface RunFilter {
  /** A benchmark name or absolute folder path. */
  benchmark?: string;
  split?: string;
  kind?: RunKind;
  /** At most this many runs. */
  limit?: number;
  /** Read the per-case results (default true); false leaves `cases` empty, for summaries of long histories. */
  withCases?: boolean;
}

/** Options of `openLedger`. */
export interface OpenOptions {
  /** Open an existing ledger for reading only: nothing is created or migrated. */
  readonly?: boolean;
  /** Milliseconds to wait for another process's write lock (default 10 s). */
  busyTimeout?: number;
}

/** The schema version this arbor writes (`PRAGMA user_version`). */
export const schemaVersion = 4;

/** Migrations: entry i brings a ledger from version i to i + 1, inside one immediate transaction. */
const migrations: readonly string[] = [
  `CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    time TEXT NOT NULL,
    kind TEXT NOT NULL,
    benchmark_path TEXT NOT NULL,
    benchmark_name TEXT NOT NULL,
    split TEXT NOT NULL,
    solution_sha256 TEXT,
    git_commit TEXT,
    git_dirty INTEGER,
    environment TEXT NOT NULL,
    env_fingerprint TEXT NOT NULL,
    metric TEXT NOT NULL,
    score REAL,
    ci_lo REAL,
    ci_hi REAL,
    status TEXT NOT NULL,
    seeds_source TEXT NOT NULL,
    seeds_count INTEGER NOT NULL,
    cases TEXT NOT NULL,
    verdict TEXT,
    ratio REAL,
    ratio_lo REAL,
    ratio_hi REAL,
    baseline_sha256 TEXT,
    baseline_run INTEGER
  ) STRICT;
  CREATE INDEX runs_by_benchmark ON runs (benchmark_name, split, id);`,
  // 2: what the user called the solution and a compare's baseline, so the report can name them; older runs keep NULL.
  `ALTER TABLE runs ADD COLUMN solution_label TEXT;
  ALTER TABLE runs ADD COLUMN baseline_label TEXT;`,
  // 3: runs imported from another ledger (`runs --merge`) name the file they came from; every run recorded here keeps NULL.
  `ALTER TABLE runs ADD COLUMN imported_from TEXT;`,
  // 4: how the solution label was made (LabelKind), so a best is only a run whose label says what it was; older runs keep NULL.
  `ALTER TABLE runs ADD COLUMN label_kind TEXT;`,
];

/** The columns each schema version added after the first, for reading an older ledger opened read-only (not migrated). */
const addedColumns: readonly (readonly string[])[] = [[], [], ['solution_label', 'baseline_label'], ['imported_from'], ['label_kind']];

/**
 * The `.gitignore` written into an `.arbor/` folder: everything in it,
 * itself included, so the folder never shows as untracked and recording a run
 * never dirties the repository.
 */
export const ledgerGitignore = '# Written by arbor: the run ledger is local state, not source; git ignores this whole folder.\n*\n';

/** What arbor wrote into `.arbor/.gitignore` before it ignored the folder itself: replaced on the next open. */
const earlierGitignore = '# Written by arbor: the run ledger is a local SQLite database, not source.\nruns.db\nruns.db-*\n';

interface Row {
  id: number;
  time: string;
  kind: string;
  benchmark_path: string;
  benchmark_name: string;
  split: string;
  solution_sha256: string | null;
  git_commit: string | null;
  git_dirty: number | null;
  environment: string;
  env_fingerprint: string;
  metric: string;
  score: number | null;
  ci_lo: number | null;
  ci_hi: number | null;
  status: string;
  seeds_source: string;
  seeds_count: number;
  cases: string;
  verdict: string | null;
  ratio: number | null;
  ratio_lo: number | null;
  ratio_hi: number | null;
  baseline_sha256: string | null;
  baseline_run: number | null;
  solution_label: string | null;
  baseline_label: string | null;
  imported_from: string | null;
  label_kind: string | null;
}

type Database = BetterSqlite3.Database;

/** The columns of schema 1, in table order. */
const firstColumns = `id, time, kind, benchmark_path, benchmark_name, split, solution_sha256, git_commit, git_dirty, environment, env_fingerprint,
  metric, score, ci_lo, ci_hi, status, seeds_source, seeds_count, cases, verdict, ratio, ratio_lo, ratio_hi, baseline_sha256, baseline_run`;

/**
 * The select list for a ledger of schema `version`: every column, those a
 * later version added as NULL (a read-only open does not migrate), and
 * without `cases` the (large) per-case JSON replaced by an empty array.
 */
function selectList(version: number, withCases: boolean): string {
  const later = addedColumns.flatMap((names, v) => names.map((name) => (v <= version ? name : `NULL AS ${name}`)));
  const first = withCases ? firstColumns : firstColumns.replace(/\bcases\b/, `'[]' AS cases`);
  return [first, ...later].join(', ');
}
let driver: typeof BetterSqlite3 | undefined;

function loadDriver(): typeof BetterSqlite3 {
  driver ??= createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  return driver;
}

/** An open ledger. Every method throws LedgerError on a database failure. */
export class Ledger {
  /** The database file. */
  readonly path: string;
  readonly #db: Database;
  /** A read-only open of a file with no tables yet: it lists nothing. */
  readonly #empty: boolean;
  /** The file's schema version: older than ours only when opened read-only. */
  readonly #version: number;

  /** @internal use openLedger. */
  constructor(file: string, db: Database, empty: boolean, version = schemaVersion) {
    this.path = file;
    this.#db = db;
    this.#empty = empty;
    this.#version = version;
  }

  /** Append one run and return its id. */
  appendRun(record: RunRecord): number {
    const row = toRow(record, this.path);
    return this.#run('appending a run', () => {
      const columns = Object.keys(row);
      const statement = this.#db.prepare(`INSERT INTO runs (${columns.join(', ')}) VALUES (${columns.map((name) => `@${name}`).join(', ')})`);
      return Number(statement.run(row).lastInsertRowid);
    });
  }

  /**
   * Append another ledger's runs, each marked `imported_from = from`: oldest
   * first with new ids, a compare's `baseline_run` following its run to the
   * new id (null when that run is not among them), each run checked as
   * `appendRun` checks a record (a bad one is `ledger-invalid` naming `from`).
   * All of it is one immediate transaction: `read` is called inside it, once
   * this ledger's write lock is held (so a second process importing the same
   * file waits, then reads what the first left), and `beforeCommit` after the
   * inserts; when either throws, nothing is appended and the error comes
   * back as it was thrown. Returns how many runs were appended, or null when
   * `read` gave null (nothing to import).
   */
  importRuns(from: string, read: () => readonly LedgerRun[] | null, beforeCommit?: () => void): number | null {
    const source = path.resolve(from);
    const transaction = this.#db.transaction(() => {
      const runs = read();
      if (runs === null) return null;
      const ids = new Map<number, number>();
      const insert = (row: Omit<Row, 'id'>) => {
        const columns = Object.keys(row);
        return Number(
          this.#db.prepare(`INSERT INTO runs (${columns.join(', ')}) VALUES (${columns.map((name) => `@${name}`).join(', ')})`).run(row).lastInsertRowid,
        );
      };
      for (const run of [...runs].sort(byTime)) {
        const compare = run.compare
          ? {...run.compare, baselineRun: run.compare.baselineRun === null ? null : (ids.get(run.compare.baselineRun) ?? null)}
          : null;
        const row = toRow({...run, compare}, source);
        ids.set(run.id, insert({...row, imported_from: source}));
      }
      beforeCommit?.();
      return runs.length;
    });
    try {
      return transaction.immediate();
    } catch (error) {
      if (error instanceof ArborError) throw error; // the source's or the caller's, as it was
      throw ledgerFailure(error, this.path, `importing the runs of ${source}`);
    }
  }

  /** The runs matching the filter, newest first (`byTime`). */
  listRuns(filter: RunFilter = {}): LedgerRun[] {
    if (this.#empty) return [];
    const where: string[] = [];
    const params: Record<string, string | number> = {};
    if (filter.benchmark !== undefined) {
      where.push('(benchmark_name = @benchmark OR benchmark_path = @benchmark)');
      params.benchmark = filter.benchmark;
    }
    if (filter.split !== undefined) {
      where.push('split = @split');
      params.split = filter.split;
    }
    if (filter.kind !== undefined) {
      where.push('kind = @kind');
      params.kind = filter.kind;
    }
    const limit = filter.limit === undefined ? '' : ` LIMIT ${Math.max(0, Math.floor(filter.limit))}`;
    const columns = selectList(this.#version, filter.withCases !== false);
    const sql = `SELECT ${columns} FROM runs${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY time DESC, id DESC${limit}`;
    const rows = this.#run('listing runs', () => this.#db.prepare<Record<string, string | number>, Row>(sql).all(params));
    return rows.map((row) => fromRow(row, this.path));
  }

  /** One run by id, or null. */
  getRun(id: number): LedgerRun | null {
    if (this.#empty) return null;
    const row = this.#run('reading a run', () => this.#db.prepare<[number], Row>(`SELECT ${selectList(this.#version, true)} FROM runs WHERE id = ?`).get(id));
    return row ? fromRow(row, this.path) : null;
  }

  /**
   * How many distinct solutions (`solution_sha256`, and a compare's baseline)
   * have been scored on the test split of a benchmark (name or folder path).
   * Runs with status `error` gave no score, so they do not count.
   */
  testExposure(benchmark: string): number {
    if (this.#empty) return 0;
    const sql = `SELECT COUNT(DISTINCT sha) AS n FROM (
      SELECT solution_sha256 AS sha FROM runs WHERE split = 'test' AND status <> 'error' AND (benchmark_name = @b OR benchmark_path = @b)
      UNION ALL
      SELECT baseline_sha256 FROM runs WHERE split = 'test' AND status <> 'error' AND (benchmark_name = @b OR benchmark_path = @b)
    ) WHERE sha IS NOT NULL`;
    return this.#run('counting test exposure', () => this.#db.prepare<{b: string}, {n: number}>(sql).get({b: benchmark})!.n);
  }

  /** Close the database (idempotent). */
  close(): void {
    if (this.#db.open) this.#db.close();
  }

  #run<T>(doing: string, action: () => T): T {
    try {
      return action();
    } catch (error) {
      throw ledgerFailure(error, this.path, doing);
    }
  }
}

/**
 * Open (creating and migrating unless `readonly`) the ledger at `file`.
 * Creating it makes the parent folder; a new `.arbor/` folder also gets a
 * `.gitignore` for the database files. Throws LedgerError.
 */
export function openLedger(file: string, options: OpenOptions = {}): Ledger {
  const target = path.resolve(file);
  const Driver = loadDriver();
  let db: Database | undefined;
  try {
    if (options.readonly) {
      db = new Driver(target, {readonly: true, fileMustExist: true, timeout: options.busyTimeout ?? 10_000});
      const version = Number(db.pragma('user_version', {simple: true}));
      checkVersion(db, version, target);
      return new Ledger(target, db, version === 0, version);
    }
    prepareFolder(path.dirname(target));
    db = new Driver(target, {timeout: options.busyTimeout ?? 10_000});
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    migrate(db, target);
    return new Ledger(target, db, false);
  } catch (error) {
    db?.close();
    throw ledgerFailure(error, target, options.readonly ? 'opening it' : 'opening or creating it');
  }
}

/** Outcome of `recordRun`: the run's id, or a warning to print instead. */
export type RecordOutcome =
  | {ok: true; path: string; id: number /** Distinct solutions scored on test so far (test runs only). */; testExposure: number | null}
  | {ok: false; path: string /** One line for stderr, e.g. `arbor: warning: run ledger …`. */; warning: string};

/**
 * Append a run to the ledger at `file` and close it, never throwing for a
 * ledger problem: an unwritable, locked or corrupt ledger comes back as a
 * warning, so the eval still prints its score. A record the caller built
 * wrongly (`ledger-invalid`) is a warning too.
 */
export function recordRun(file: string, record: RunRecord): RecordOutcome {
  let ledger: Ledger | undefined;
  try {
    ledger = openLedger(file);
    const id = ledger.appendRun(record);
    const testExposure = record.split === 'test' ? ledger.testExposure(record.benchmark.name) : null;
    return {ok: true, path: ledger.path, id, testExposure};
  } catch (error) {
    const failure = ledgerFailure(error, path.resolve(file), 'recording the run');
    return {ok: false, path: failure.file, warning: `warning: the run was not recorded: ${failure.message}`};
  } finally {
    ledger?.close();
  }
}

function prepareFolder(dir: string): void {
  const created = !existsSync(dir);
  mkdirSync(dir, {recursive: true});
  if (path.basename(dir) !== ledgerFolder) return;
  const ignore = path.join(dir, '.gitignore');
  // A .gitignore arbor wrote earlier (the database files only) is brought up to date; one a user wrote is theirs.
  if (created || !existsSync(ignore) || readFileSync(ignore, 'utf8') === earlierGitignore) writeFileAtomic(ignore, ledgerGitignore);
}

function checkVersion(db: Database, version: number, file: string): void {
  if (version > schemaVersion) {
    throw new LedgerError(`run ledger ${file} has schema version ${version}, newer than this arbor's ${schemaVersion}: upgrade arbor`, 'ledger-newer', file);
  }
  if (version === 0) {
    const tables = db.prepare<[], {name: string}>("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all();
    if (tables.length > 0) {
      const names = tables.map((table) => table.name).join(', ');
      throw new LedgerError(
        `run ledger ${file} is a SQLite database arbor did not create (tables: ${names}): point ARBOR_LEDGER elsewhere`,
        'ledger-foreign',
        file,
      );
    }
  }
}

function migrate(db: Database, file: string): void {
  if (Number(db.pragma('user_version', {simple: true})) === schemaVersion) return;
  // Immediate: the write lock is taken first, so two processes creating one ledger migrate it once.
  db.transaction(() => {
    const version = Number(db.pragma('user_version', {simple: true}));
    checkVersion(db, version, file);
    for (let v = version; v < schemaVersion; v++) db.exec(migrations[v]!);
    db.pragma(`user_version = ${schemaVersion}`);
  }).immediate();
}

const kinds: readonly string[] = ['eval', 'compare', 'calibrate'];
const statuses: readonly string[] = ['ok', 'failed', 'error'];
const verdicts: readonly string[] = ['better', 'worse', 'same', 'undecided'];
const sha256Pattern = /^[0-9a-f]{64}$/;

function toRow(record: RunRecord, file: string): Omit<Row, 'id'> {
  const invalid = (what: string) => new LedgerError(`invalid run record for ${file}: ${what}`, 'ledger-invalid', file);
  if (!kinds.includes(record.kind)) throw invalid(`kind ${JSON.stringify(record.kind)}, expected one of ${kinds.join(', ')}`);
  if (!statuses.includes(record.status)) throw invalid(`status ${JSON.stringify(record.status)}, expected one of ${statuses.join(', ')}`);
  if (!record.benchmark?.name || !path.isAbsolute(record.benchmark.path ?? '')) throw invalid('benchmark needs a name and an absolute path');
  if (!record.split) throw invalid('split is empty');
  if (record.score !== null && !Number.isFinite(record.score)) throw invalid(`score ${record.score} is not a finite number`);
  if (record.score === null && record.status !== 'error') throw invalid(`score is null but status is ${record.status}`);
  checkInterval(record.interval, 'interval', invalid);
  for (const [name, sha] of [
    ['solutionSha256', record.solutionSha256],
    ['compare.baselineSha256', record.compare?.baselineSha256 ?? null],
  ] as const) {
    if (sha !== null && !sha256Pattern.test(sha)) throw invalid(`${name} ${JSON.stringify(sha)} is not 64 lowercase hex digits`);
  }
  if (typeof record.environment?.fingerprint !== 'string' || !record.environment.fingerprint) throw invalid('environment has no fingerprint');
  if (!seedSources.includes(record.seeds?.source)) throw invalid(`seeds.source must be one of ${seedSources.join(', ')}`);
  if (!Number.isInteger(record.seeds.count) || record.seeds.count < 0) throw invalid('seeds.count must be a whole number');
  if (!Array.isArray(record.cases)) throw invalid('cases must be an array');
  for (const [name, label] of [
    ['solutionLabel', record.solutionLabel],
    ['compare.baselineLabel', record.compare?.baselineLabel],
  ] as const) {
    if (label !== undefined && label !== null && (typeof label !== 'string' || label === ''))
      throw invalid(`${name} ${JSON.stringify(label)} is not a non-empty string or null`);
  }
  if (record.labelKind !== undefined && record.labelKind !== null && !labelKinds.includes(record.labelKind))
    throw invalid(`labelKind ${JSON.stringify(record.labelKind)}, expected one of ${labelKinds.join(', ')} or null`);
  const compare = record.compare ?? null;
  if (compare) {
    if (!verdicts.includes(compare.verdict)) throw invalid(`verdict ${JSON.stringify(compare.verdict)}, expected one of ${verdicts.join(', ')}`);
    if (compare.ratio !== null && !Number.isFinite(compare.ratio)) throw invalid(`ratio ${compare.ratio} is not a finite number or null`);
    checkInterval(compare.interval, 'compare.interval', invalid);
  }
  const cases = record.seeds.source === 'derived' ? withoutSeeds(record.cases) : record.cases;
  return {
    time: record.time ?? new Date().toISOString(),
    kind: record.kind,
    benchmark_path: record.benchmark.path,
    benchmark_name: record.benchmark.name,
    split: record.split,
    solution_sha256: record.solutionSha256,
    git_commit: record.git?.commit ?? null,
    git_dirty: record.git ? Number(record.git.dirty) : null,
    environment: JSON.stringify(record.environment),
    env_fingerprint: record.environment.fingerprint,
    metric: record.metric,
    score: record.score,
    ci_lo: record.interval?.[0] ?? null,
    ci_hi: record.interval?.[1] ?? null,
    status: record.status,
    seeds_source: record.seeds.source,
    seeds_count: record.seeds.count,
    cases: JSON.stringify(cases),
    verdict: compare?.verdict ?? null,
    ratio: compare?.ratio ?? null,
    ratio_lo: compare?.interval?.[0] ?? null,
    ratio_hi: compare?.interval?.[1] ?? null,
    baseline_sha256: compare?.baselineSha256 ?? null,
    baseline_run: compare?.baselineRun ?? null,
    solution_label: record.solutionLabel ?? null,
    baseline_label: compare?.baselineLabel ?? null,
    // A recorded run is always this ledger's own: only `importRuns` marks a run imported.
    imported_from: null,
    label_kind: record.labelKind ?? null,
  };
}

/** Check a record as `appendRun` does (throws `ledger-invalid` naming `file`), appending nothing. */
export function checkRecord(record: RunRecord, file: string): void {
  toRow(record, file);
}

function checkInterval(interval: [number, number] | null, name: string, invalid: (what: string) => LedgerError): void {
  if (interval === null) return;
  if (!Array.isArray(interval) || interval.length !== 2 || !interval.every(Number.isFinite) || interval[0] > interval[1]) {
    throw invalid(`${name} ${JSON.stringify(interval)} is not [lo, hi] with finite lo <= hi`);
  }
}

/** A copy of the per-case results without any `seed` or `seeds` key, at any depth. */
function withoutSeeds<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutSeeds) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'seed' && key !== 'seeds')
      .map(([key, item]) => [key, withoutSeeds(item)]),
  ) as T;
}

function fromRow(row: Row, file: string): LedgerRun {
  const parse = <T>(text: string, column: string): T => {
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new LedgerError(`run ledger ${file} is corrupt: run ${row.id} has unreadable ${column} JSON`, 'ledger-corrupt', file, {cause: error});
    }
  };
  const pair = (lo: number | null, hi: number | null): [number, number] | null => (lo === null || hi === null ? null : [lo, hi]);
  return {
    id: row.id,
    time: row.time,
    kind: row.kind as RunKind,
    benchmark: {path: row.benchmark_path, name: row.benchmark_name},
    split: row.split,
    solutionSha256: row.solution_sha256,
    solutionLabel: row.solution_label ?? null,
    labelKind: (row.label_kind ?? null) as LabelKind | null,
    importedFrom: row.imported_from ?? null,
    git: row.git_commit === null ? null : {commit: row.git_commit, dirty: row.git_dirty === 1},
    environment: parse<RecordedEnvironment>(row.environment, 'environment'),
    metric: row.metric,
    score: row.score,
    interval: pair(row.ci_lo, row.ci_hi),
    status: row.status as RunStatus,
    seeds: {source: row.seeds_source as SeedSource, count: row.seeds_count},
    cases: parse<Record<string, unknown>[]>(row.cases, 'cases'),
    compare:
      row.verdict === null
        ? null
        : {
            verdict: row.verdict as CompareVerdict,
            ratio: row.ratio,
            interval: pair(row.ratio_lo, row.ratio_hi),
            baselineSha256: row.baseline_sha256,
            baselineRun: row.baseline_run,
            baselineLabel: row.baseline_label ?? null,
          },
  };
}
