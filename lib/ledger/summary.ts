/** What `arbor benchmark runs` shows: the ledger's history summarized, as data and as text. */
import {existsSync, readdirSync} from 'node:fs';
import {readFile, stat} from 'node:fs/promises';
import path from 'node:path';
import {UsageError} from '../errors.js';
import {defaultTestBudget, testExposure} from './exposure.js';
import {byTime, openLedger, type LedgerRun, type RunFilter} from './ledger.js';
import {ledgerPathFor, namedLedger, strayLedgers, type LedgerScope} from './location.js';
import {displayPath, importLedger, type MergedLedger} from './merge.js';

/** Best and latest eval of one benchmark on one split. */
export interface SplitSummary {
  benchmark: string;
  split: string;
  /** Runs of any kind on this benchmark and split, imported ones included. */
  runs: number;
  /** Of those, the runs imported from another ledger (`runs --merge`). */
  imported: number;
  /**
   * The eval run with the highest score (the newest among equals) among those whose label says what they were
   * (`namesItself`); null when none scored. Never an imported run, never a throwaway file's.
   */
  best: LedgerRun | null;
  /** The newest eval run. Never an imported run. */
  latest: LedgerRun | null;
}

/** Distinct solutions scored on a benchmark's test split, against its budget. */
interface Exposure {
  benchmark: string;
  count: number;
  /** The plan's `test_budget` (default 5) when its plan.toml could be read, else null. */
  budget: number | null;
}

/** The history `arbor benchmark runs` prints. */
export interface RunsReport {
  ledger: string;
  /** Whether the ledger file exists (a missing one is an empty history). */
  exists: boolean;
  /** The ledger imported into this one first (`merge`), else empty. */
  merged: MergedLedger[];
  /**
   * Ledger files found where this history no longer goes (`strayLedgers`):
   * not read, their runs not shown; `runs --merge FILE` imports one.
   */
  strays: string[];
  summary: SplitSummary[];
  /** Newest first. */
  runs: LedgerRun[];
  exposure: Exposure[];
}

/** A benchmark folder's name and test budget, read from its plan.toml (null when the folder has none). */
export interface BenchmarkInfo {
  path: string;
  /** The plan's `name`, else the folder's name (the name the eval records). */
  name: string;
  /** The plan's `test_budget`, else the default; null when there is no readable plan. */
  testBudget: number | null;
  /** Whether the plan says direction = "minimize" (a lower score is better). */
  minimize: boolean;
  /** The plan's `metric` (`speedup`, `accuracy`), null when the plan does not say or cannot be read. */
  metric: string | null;
}

/** Read `name` and `test_budget` of a benchmark's plan.toml, leniently: `runs` must list a ledger even when a plan is broken. */
export async function benchmarkInfo(dir: string): Promise<BenchmarkInfo> {
  const folder = path.resolve(dir);
  const fallback = {path: folder, name: path.basename(folder), testBudget: null, minimize: false, metric: null};
  let text: string;
  try {
    text = await readFile(path.join(folder, 'plan.toml'), 'utf8');
  } catch {
    return fallback;
  }
  try {
    const {parse} = await import('smol-toml');
    const plan = parse(text);
    const budget = plan.test_budget;
    return {
      path: folder,
      name: typeof plan.name === 'string' && plan.name ? plan.name : fallback.name,
      testBudget: typeof budget === 'number' && Number.isInteger(budget) && budget >= 0 ? budget : defaultTestBudget,
      minimize: plan.direction === 'minimize',
      metric: typeof plan.metric === 'string' && plan.metric ? plan.metric : null,
    };
  } catch {
    return fallback;
  }
}

/**
 * Whether a run's label says what its solution was, so that it may be a best: a label its caller gave,
 * a commit, or the entry's own solution; not an unlabelled file (`--solution ../try.py`), which is often
 * a throwaway (a wrong key, an experiment) and would otherwise stand as the entry's best. A run recorded
 * before labels had a kind (schema 4) goes by its label: none, a commit, or a path inside the entry counts;
 * a path out of it (`../try.py`, absolute) does not.
 */
function namesItself(run: Pick<LedgerRun, 'labelKind' | 'solutionLabel'>): boolean {
  if (run.labelKind) return run.labelKind !== 'file';
  const label = run.solutionLabel;
  if (label === null || label.startsWith('commit ')) return true;
  return !path.isAbsolute(label) && !label.split('/').includes('..');
}

/**
 * Group runs (any order) by benchmark and split, each with its best and latest eval; sorted by
 * benchmark, then split. The best is the lowest score for the benchmarks named in `minimize`, and
 * only a run that `namesItself` is one: a throwaway file is listed and may be the latest, never the best.
 * An imported run (`importedFrom`) is counted but is never the best or the latest: nothing
 * proves another ledger's run was measured here, nor that its test run is this zoo's result.
 */
export function summarizeRuns(runs: readonly LedgerRun[], minimize: ReadonlySet<string> = new Set()): SplitSummary[] {
  const groups = new Map<string, SplitSummary>();
  for (const run of runs) {
    const key = `${run.benchmark.name}\0${run.split}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = {benchmark: run.benchmark.name, split: run.split, runs: 0, imported: 0, best: null, latest: null}));
    group.runs++;
    if (run.importedFrom) group.imported++;
    if (run.kind !== 'eval' || run.importedFrom) continue;
    if (!group.latest || byTime(run, group.latest) > 0) group.latest = run;
    const better = (a: number, b: number) => (minimize.has(run.benchmark.name) ? a < b : a > b);
    if (
      run.score !== null &&
      namesItself(run) &&
      (!group.best || better(run.score, group.best.score!) || (run.score === group.best.score && byTime(run, group.best) > 0))
    )
      group.best = run;
  }
  return [...groups.values()].sort((a, b) => compareText(a.benchmark, b.benchmark) || compareText(a.split, b.split));
}

/**
 * The benchmarks of `runs` whose plan says direction = "minimize" (the plan where the newest run of each was made;
 * a run this ledger recorded before any imported one, whose folder and time another ledger chose).
 */
export async function minimizedBenchmarks(runs: readonly LedgerRun[]): Promise<Set<string>> {
  const seen = new Set<string>();
  const minimize = new Set<string>();
  for (const run of ownFirst(runs)) {
    if (seen.has(run.benchmark.name)) continue;
    seen.add(run.benchmark.name);
    if ((await benchmarkInfo(run.benchmark.path)).minimize) minimize.add(run.benchmark.name);
  }
  return minimize;
}

/** Runs newest first, those this ledger recorded before those imported (`importedFrom`): an imported run's folder and time are another ledger's word. */
function ownFirst(runs: readonly LedgerRun[]): LedgerRun[] {
  return [...runs].sort((a, b) => Number(Boolean(a.importedFrom)) - Number(Boolean(b.importedFrom)) || byTime(b, a));
}

/** Options of `readRuns`. */
export interface ReadRunsOptions {
  /** A benchmark folder (its ledger, filtered to it), or a benchmark name (looked up in the ledger for `cwd`). */
  benchmark?: string;
  split?: string;
  /** The ledger file, overriding `ARBOR_LEDGER` and the default location. */
  ledger?: string;
  /** Include every run's per-case results (for `--json`); the text view does without. */
  withCases?: boolean;
  /**
   * A ledger file to import into this history first (`runs --merge`, see
   * `importLedger`): its runs are marked imported. A bad file throws
   * UsageError before anything is written.
   */
  merge?: string;
  /**
   * The zoo `cwd` is in, found by the caller (lib/zoo's `zooAround`): the ledger sits below the zoo
   * (docs/architecture.md) and does not look for one. Without it `cwd` is a benchmark or a plain folder.
   */
  zoo?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * The history `arbor benchmark runs` shows. A missing ledger is an empty
 * report (`exists: false`); a corrupt or unreadable one throws LedgerError.
 * Nothing is merged unless `merge` names a file: another ledger found where
 * an earlier arbor kept one is only named in `strays`.
 */
export async function readRuns(options: ReadRunsOptions = {}): Promise<RunsReport> {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const filter: RunFilter = {split: options.split, withCases: options.withCases ?? true};
  let home = ledgerHome(cwd, options.zoo);
  if (options.benchmark !== undefined) {
    if (options.benchmark === '') throw new UsageError('The benchmark path is empty, expected a benchmark folder or name');
    const dir = path.resolve(cwd, options.benchmark);
    if ((await stat(dir).catch(() => undefined))?.isDirectory()) {
      home = {dir, scope: 'benchmark', folders: [dir]};
      filter.benchmark = (await benchmarkInfo(dir)).name;
    } else filter.benchmark = options.benchmark;
  }
  const chosen = namedLedger(options.ledger, env, cwd);
  const file = chosen ?? ledgerPathFor(home.dir, {}, cwd, home.scope);
  if (options.merge === '') throw new UsageError('--merge: the file name is empty, expected the run ledger to import (an .arbor/runs.db)');
  const merged = options.merge === undefined ? [] : [importLedger(file, options.merge, {cwd})];
  // Ledgers left where the zoo's history no longer goes are named, never read: anyone who can write into an entry can leave one.
  const strays = chosen ? [] : strayLedgers(file, home.folders);
  if (!existsSync(file)) return {ledger: file, exists: false, merged, strays, summary: [], runs: [], exposure: []};
  const ledger = openLedger(file, {readonly: true});
  try {
    const runs = ledger.listRuns(filter);
    // The newest run of each benchmark says where its plan (and test_budget) is: one recorded here before any imported one.
    const budgets = new Map<string, number | null>();
    const minimize = new Set<string>();
    for (const run of ownFirst(runs)) {
      if (budgets.has(run.benchmark.name)) continue;
      const info = await benchmarkInfo(run.benchmark.path);
      budgets.set(run.benchmark.name, info.testBudget);
      if (info.minimize) minimize.add(run.benchmark.name);
    }
    const exposure = [...budgets.keys()].sort(compareText).map((name) => ({benchmark: name, count: testExposure(ledger, name), budget: budgets.get(name)!}));
    return {ledger: ledger.path, exists: true, merged, strays, summary: summarizeRuns(runs, minimize), runs, exposure};
  } finally {
    ledger.close();
  }
}

/** Where a history is, seen from a folder: the folder, what it is, and the folders whose old ledgers belong to it. */
interface LedgerHome {
  dir: string;
  scope: LedgerScope;
  /** Benchmark or zoo folders whose own `.arbor/runs.db` (from an earlier arbor) is reported as a stray ledger (never read). */
  folders: string[];
}

/**
 * The history `runs` with no benchmark shows, from the working directory:
 * its zoo (`zoo`, found by the caller as every zoo-taking command finds it),
 * else the benchmark it is in (its zoo is its parent), else the folder
 * itself. A git repository around any of these holds the ledger at its root
 * (`ledgerRoot`).
 */
function ledgerHome(cwd: string, zoo?: string): LedgerHome {
  const dir = path.resolve(cwd);
  if (zoo) return {dir: path.resolve(zoo), scope: 'zoo', folders: [path.resolve(zoo), ...benchmarkFolders(path.resolve(zoo))]};
  if (['plan.toml', 'eval.sh'].some((file) => existsSync(path.join(dir, file)))) return {dir, scope: 'benchmark', folders: [dir]};
  return {dir, scope: 'zoo', folders: [dir]};
}

/** A zoo's visible subfolders (where an earlier arbor kept one ledger per benchmark). */
function benchmarkFolders(zoo: string): string[] {
  try {
    return readdirSync(zoo, {withFileTypes: true})
      .filter((d) => d.isDirectory() && !d.name.startsWith('.') && !d.name.startsWith('_'))
      .map((d) => path.join(zoo, d.name));
  } catch {
    return [];
  }
}

/** The report as text: summary, runs, exposure; one line when there is nothing. */
export function formatRuns(report: RunsReport): string {
  if (report.runs.length === 0) return `No runs recorded in ${report.ledger}${report.exists ? '' : ' (no ledger there yet)'}.\n`;
  const lines = [`Run ledger ${report.ledger}: ${report.runs.length} run(s)`, '', 'Summary (best and latest eval per benchmark and split):'];
  lines.push(
    ...table(
      report.summary.map((s) => [
        s.benchmark,
        s.split,
        s.best ? `best ${scoreText(s.best)} (#${s.best.id})` : 'best -',
        s.latest ? `latest ${scoreText(s.latest)} (#${s.latest.id})` : 'latest -',
        `${s.runs} run(s)${s.imported ? `, ${s.imported} imported` : ''}`,
      ]),
    ),
  );
  lines.push('', 'Runs (newest first):');
  lines.push(
    ...table(
      report.runs.map((run) => [
        `#${run.id}`,
        run.time.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
        run.benchmark.name,
        run.split,
        run.kind,
        run.compare
          ? `${run.compare.verdict}${run.compare.ratio === null ? '' : ` x${num(run.compare.ratio)}`}${intervalText(run.compare.interval)}${run.compare.baselineLabel ? ` vs ${run.compare.baselineLabel}` : ''}`
          : scoreText(run),
        run.status,
        run.solutionLabel ?? '-',
        `sha ${run.solutionSha256?.slice(0, 12) ?? '-'}`,
        run.git ? `${run.git.commit.slice(0, 10)}${run.git.dirty ? '+dirty' : ''}` : 'no-git',
        `env ${run.environment.fingerprint}`,
        ...(run.importedFrom ? [`imported from ${displayPath(run.importedFrom)}`] : []),
      ]),
    ),
  );
  if (report.runs.some((run) => run.kind === 'eval' && !namesItself(run)))
    lines.push("  (a best is a run named by --label, a commit or the entry's own solution: an unlabelled --solution file is listed, never a best)");
  if (report.runs.some((run) => run.importedFrom)) {
    lines.push(
      '  (runs marked "imported from" came from another ledger through `runs --merge`: listed, but never a best or a latest,',
      "   and their test runs are not this zoo's results; their test solutions do count in the exposure below)",
    );
  }
  lines.push('', 'Test exposure (distinct solutions scored on test, and every MCP submit_test call; advisory, counted from this ledger only):');
  lines.push(
    ...table(
      report.exposure.map((e) => [
        e.benchmark,
        e.budget === null ? `${e.count}` : `${e.count} of budget ${e.budget}${e.count > e.budget ? ' (over budget)' : ''}`,
      ]),
    ),
  );
  return `${lines.join('\n')}\n`;
}

function scoreText(run: LedgerRun): string {
  return run.score === null ? '-' : `${num(run.score)}${intervalText(run.interval)}`;
}

function intervalText(interval: [number, number] | null): string {
  return interval ? ` [${num(interval[0])}, ${num(interval[1])}]` : '';
}

function num(value: number): string {
  return Number(value.toPrecision(4)).toString();
}

/** Rows as lines with each column padded to its widest cell (the last column unpadded). */
function table(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => `  ${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')}`);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
