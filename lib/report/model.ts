/**
 * The report's data model and the pure functions that build it from what
 * verify and the run ledger say. Nothing here reads a file or prints.
 */
import path from 'node:path';
import {byTime, type CompareVerdict, type LedgerRun, type RunStatus} from '../ledger/ledger.js';
import {findChanges, type Change} from '../ledger/changes.js';
import {newestCeiling, type HarnessCeiling} from '../ledger/floor.js';
import {summarizeRuns} from '../ledger/summary.js';
import type {BenchmarkReport, Finding} from '../zoo/lint.js';
import {formatFinding} from '../zoo/report.js';

/** The splits the report shows, in this order. */
const reportSplits = ['dev', 'test'] as const;

/** An entry's verify outcome: `ok` (maybe with warnings), `failing` (errors), `broken` (not a readable folder). */
export interface EntryHealth {
  status: 'ok' | 'failing' | 'broken';
  errors: number;
  warnings: number;
  /** The first error (else the first warning) as verify prints it, or what is wrong with the folder; null when clean. */
  firstFinding: string | null;
  /** That finding's message alone (no file, severity or rule): the one-line reason the entries table shows. */
  reason: string | null;
  /** Every finding as verify prints it (errors first), or what is wrong with the folder: the text behind the reason's toggle. */
  findings: string[];
}

/** One scored run as the report shows it: no environment, no per-case results. */
export interface ScoredRun {
  id: number;
  time: string;
  score: number | null;
  interval: [number, number] | null;
  status: RunStatus;
  solutionSha256: string | null;
  /** What the run's solution was called when it ran (null: not recorded, schema 1). */
  solutionLabel: string | null;
  /** Only on a run imported from another ledger (`runs --merge`): the file it came from. Such a run is never a best or latest. */
  importedFrom?: string;
}

/** Latest and best eval of an entry on one split. */
export interface SplitScores {
  split: string;
  /** Eval runs on this split. */
  evals: number;
  latest: ScoredRun | null;
  best: ScoredRun | null;
  /** speedup: the largest speedup an eval on this split can show, as the newest run that measured it found (lib/ledger/floor.ts); null when none did. */
  ceiling: HarnessCeiling | null;
}

/** One point of the score-over-runs chart. */
export interface HistoryPoint extends ScoredRun {
  split: string;
  kind: 'eval' | 'calibrate';
}

/**
 * The baseline's spread on one split: the lowest and highest score of the
 * calibrate runs of the most recently calibrated solution.
 */
export interface BaselineSpread {
  split: string;
  solutionSha256: string | null;
  runs: number;
  lo: number;
  hi: number;
  mean: number;
}

/**
 * One solution of an entry: the runs whose solution had this digest. Its name
 * is what the user called it (the newest label), else the commit all its runs
 * were made at, else the digest's first 12 hex digits; a name two solutions
 * would share gets the digest's first 8 after it.
 */
export interface SolutionInfo {
  /** The digest; null stands for the runs recorded without one. */
  sha256: string | null;
  /** Unique within the entry; the chart's series and the tables use it. */
  name: string;
  /** The newest label its runs (or a compare naming it as baseline) recorded. */
  label: string | null;
  /** The commit its runs share, if they do. */
  git: {commit: string; dirty: boolean} | null;
  /** Its first run's id: solutions are listed (and coloured) in this order. */
  firstRun: number;
  /** Its own runs (eval, calibrate, compare); a solution met only as a compare's baseline has none. */
  runs: number;
  calibrations: number;
  /** Latest and best eval per split (dev and test always). */
  splits: SplitScores[];
}

/** A compare run: candidate (the run's solution) over baseline. */
export interface CompareRow {
  id: number;
  time: string;
  split: string;
  verdict: CompareVerdict;
  /** Null when undefined (a side scored 0.0). */
  ratio: number | null;
  interval: [number, number] | null;
  candidateSha256: string | null;
  baselineSha256: string | null;
  baselineRun: number | null;
  /** The labels recorded with the run (null: not recorded). */
  candidateLabel: string | null;
  baselineLabel: string | null;
  /** How the report names each side: its recorded label, else its solution's name; a reused ledger run adds its solution's name. */
  candidateName: string;
  baselineName: string;
  /** Only on a compare imported from another ledger (`runs --merge`): the file it came from. */
  importedFrom?: string;
}

/** Distinct solutions scored on test against the plan's `test_budget` (null: no readable plan). */
export interface TestExposure {
  count: number;
  budget: number | null;
}

/** Everything the report says about one zoo entry. */
export interface EntryReport {
  /** The entry's folder name in the zoo. */
  folder: string;
  /** The name its runs are recorded under (the plan's `name`, else the folder's). */
  name: string;
  health: EntryHealth;
  /** The metric of its newest run, else its plan's (null when neither says). */
  metric: string | null;
  /** How many ledger runs are recorded under its name (0: the page lists it on one line with the others that have none). */
  runs: number;
  /** Every solution its runs name, in order of first run. */
  solutions: SolutionInfo[];
  /** dev, then test. */
  splits: SplitScores[];
  /** Eval and calibrate runs, oldest first. */
  history: HistoryPoint[];
  baselines: BaselineSpread[];
  /** Newest first. */
  compares: CompareRow[];
  /** Steps in its score series (`runs --changes`), by lineage, oldest step first. */
  changes: Change[];
  exposure: TestExposure;
}

/** The whole report. */
export interface ReportModel {
  /** The zoo's name (its folder's): the report's title. */
  name: string;
  /** The zoo folder as given. */
  zoo: string;
  /** ISO 8601 time the report was made. */
  generated: string;
  arborVersion: string;
  ledger: {
    path: string;
    /** How the page names it: relative to the zoo folder (`../runs.db`, `.arbor/runs.db`), or `path` when that climbs more than two folders up. */
    shown: string;
    /** Whether the ledger file exists (a missing one is an empty history). */
    exists: boolean;
    /** Runs of this zoo's entries. */
    runs: number;
    /** Runs of benchmarks that are not in this zoo (not shown). */
    otherRuns: number;
  };
  /** In folder-name order. */
  entries: EntryReport[];
}

/** What the collector knows about one zoo entry before the ledger is read. */
export interface EntrySource {
  folder: string;
  name: string;
  /** Verify's report, or why the folder could not be verified. */
  verify: BenchmarkReport | {problem: string};
  exposure: TestExposure;
  /** Whether its plan says direction = "minimize": its best score is the lowest. */
  minimize?: boolean;
  /** Its plan's metric, shown while no run has one. */
  metric?: string | null;
}

/** An entry's health from its verify report (or the reason it could not be verified). */
export function entryHealth(verify: BenchmarkReport | {problem: string}): EntryHealth {
  if ('problem' in verify) return {status: 'broken', errors: 0, warnings: 0, firstFinding: verify.problem, reason: verify.problem, findings: [verify.problem]};
  const ordered: Finding[] = [...verify.findings.filter((f) => f.severity === 'error'), ...verify.findings.filter((f) => f.severity !== 'error')];
  const first = ordered[0];
  return {
    status: verify.errors > 0 ? 'failing' : 'ok',
    errors: verify.errors,
    warnings: verify.warnings,
    firstFinding: first ? formatFinding(first) : null,
    reason: first ? first.message : null,
    findings: ordered.map(formatFinding),
  };
}

/** A ledger run reduced to what the report shows. */
function scoredRun(run: LedgerRun): ScoredRun {
  return {
    id: run.id,
    time: run.time,
    score: run.score,
    interval: run.interval,
    status: run.status,
    solutionSha256: run.solutionSha256,
    solutionLabel: run.solutionLabel ?? null,
    ...(run.importedFrom ? {importedFrom: run.importedFrom} : {}),
  };
}

/** Latest and best eval per split (dev and test always, then any other split the runs name); best is the lowest score under `minimize`, and only a run whose label says what it was (`namesItself`). */
export function splitScores(runs: readonly LedgerRun[], minimize = false): SplitScores[] {
  const summaries = summarizeRuns(runs, minimize ? new Set(runs.map((run) => run.benchmark.name)) : undefined);
  const splits = [...new Set<string>([...reportSplits, ...summaries.map((s) => s.split)])];
  return splits.map((split) => {
    const summary = summaries.find((s) => s.split === split);
    return {
      split,
      evals: runs.filter((run) => run.kind === 'eval' && run.split === split).length,
      latest: summary?.latest ? scoredRun(summary.latest) : null,
      best: summary?.best ? scoredRun(summary.best) : null,
      ceiling: newestCeiling(runs, split),
    };
  });
}

/** The eval and calibrate runs that gave a score, oldest first: the chart's points. */
function scoreHistory(runs: readonly LedgerRun[]): HistoryPoint[] {
  return runs
    .filter((run): run is LedgerRun & {kind: 'eval' | 'calibrate'} => (run.kind === 'eval' || run.kind === 'calibrate') && run.score !== null)
    .map((run) => ({...scoredRun(run), split: run.split, kind: run.kind}))
    .sort(byTime);
}

/**
 * Per split, the spread of the baseline's calibrate runs. Only the runs of the
 * solution calibrated last count: an older calibration measured an older baseline.
 */
export function baselineSpreads(runs: readonly LedgerRun[]): BaselineSpread[] {
  const spreads: BaselineSpread[] = [];
  const calibrations = runs.filter((run) => run.kind === 'calibrate' && run.score !== null).sort((a, b) => byTime(b, a));
  const splits = [...new Set(calibrations.map((run) => run.split))].sort(bySplit);
  for (const split of splits) {
    const onSplit = calibrations.filter((run) => run.split === split);
    const sha = onSplit[0]!.solutionSha256;
    const scores = onSplit.filter((run) => run.solutionSha256 === sha).map((run) => run.score!);
    spreads.push({
      split,
      solutionSha256: sha,
      runs: scores.length,
      lo: Math.min(...scores),
      hi: Math.max(...scores),
      mean: scores.reduce((a, b) => a + b, 0) / scores.length,
    });
  }
  return spreads;
}

/**
 * The solutions an entry's runs name (each run's own, and each compare's
 * baseline), in order of first appearance. Runs without a digest are one
 * solution, `unknown solution`.
 */
export function solutionCatalogue(runs: readonly LedgerRun[], minimize = false): SolutionInfo[] {
  const sorted = [...runs].sort(byTime);
  const keys: (string | null)[] = [];
  for (const run of sorted) {
    if (!keys.includes(run.solutionSha256)) keys.push(run.solutionSha256);
    const baseline = run.compare?.baselineSha256 ?? null;
    if (baseline !== null && !keys.includes(baseline)) keys.push(baseline);
  }
  const infos = keys.map((sha): SolutionInfo => {
    const own = sorted.filter((run) => run.solutionSha256 === sha);
    const named = sorted.filter((run) => run.solutionSha256 === sha || (sha !== null && run.compare?.baselineSha256 === sha));
    // A baseline reused from the ledger is labelled `ledger run #N`: that names the run, not the solution.
    const asBaseline = sha === null ? [] : sorted.filter((run) => run.compare?.baselineSha256 === sha && run.compare.baselineRun === null);
    const label = newestOf(own.map((run) => run.solutionLabel ?? null)) ?? newestOf(asBaseline.map((run) => run.compare?.baselineLabel ?? null));
    const commits = new Set(own.map((run) => run.git?.commit ?? null));
    const commit = own.length > 0 && commits.size === 1 && !commits.has(null) ? own[0]!.git!.commit : null;
    const git = commit === null ? null : {commit, dirty: own.some((run) => run.git?.dirty)};
    const name = label ?? (git ? `commit ${git.commit.slice(0, 12)}${git.dirty ? ' (dirty)' : ''}` : sha === null ? 'unknown solution' : sha.slice(0, 12));
    return {
      sha256: sha,
      name,
      label,
      git,
      firstRun: named[0]!.id,
      runs: own.length,
      calibrations: own.filter((run) => run.kind === 'calibrate').length,
      splits: splitScores(own, minimize),
    };
  });
  const counts = new Map<string, number>();
  for (const info of infos) counts.set(info.name, (counts.get(info.name) ?? 0) + 1);
  // The usual case: solution.py edited and evaluated again. Same name, another digest.
  for (const info of infos) if (counts.get(info.name)! > 1 && info.sha256) info.name = `${info.name} · ${info.sha256.slice(0, 8)}`;
  return infos;
}

/**
 * The compare runs, newest first, each side named: by its solution's name in
 * `solutions` (the entry's catalogue) when the run recorded no label or the
 * catalogue's (which it may have made unique), else by the label recorded.
 */
export function compareRows(runs: readonly LedgerRun[], solutions: readonly SolutionInfo[] = solutionCatalogue(runs)): CompareRow[] {
  const nameOf = (sha: string | null, label: string | null = null) => {
    const solution = solutions.find((s) => s.sha256 === sha);
    if (label !== null && label !== solution?.label) return label;
    return solution?.name ?? label ?? (sha ? sha.slice(0, 12) : 'unknown solution');
  };
  return runs
    .filter((run) => run.kind === 'compare' && run.compare)
    .sort((a, b) => byTime(b, a))
    .map((run) => {
      const compare = run.compare!;
      const candidateLabel = run.solutionLabel ?? null;
      const baselineLabel = compare.baselineLabel ?? null;
      const baselineName =
        compare.baselineRun === null
          ? nameOf(compare.baselineSha256, baselineLabel)
          : `${baselineLabel ?? `ledger run #${compare.baselineRun}`} (${nameOf(compare.baselineSha256)})`;
      return {
        id: run.id,
        time: run.time,
        split: run.split,
        verdict: compare.verdict,
        ratio: compare.ratio,
        interval: compare.interval,
        candidateSha256: run.solutionSha256,
        baselineSha256: compare.baselineSha256,
        baselineRun: compare.baselineRun,
        candidateLabel,
        baselineLabel,
        candidateName: nameOf(run.solutionSha256, candidateLabel),
        baselineName,
        ...(run.importedFrom ? {importedFrom: run.importedFrom} : {}),
      };
    });
}

/** The last non-null value of a list in id order. */
function newestOf(values: readonly (string | null)[]): string | null {
  for (let k = values.length - 1; k >= 0; k--) if (values[k] !== null) return values[k]!;
  return null;
}

/** One entry's report from its source and the ledger runs recorded under its name (any order). */
export function entryReport(source: EntrySource, runs: readonly LedgerRun[]): EntryReport {
  const newest = runs.reduce<LedgerRun | null>((a, b) => (a && byTime(a, b) > 0 ? a : b), null);
  const solutions = solutionCatalogue(runs, source.minimize);
  return {
    folder: source.folder,
    name: source.name,
    health: entryHealth(source.verify),
    metric: newest?.metric ?? source.metric ?? null,
    runs: runs.length,
    solutions,
    splits: splitScores(runs, source.minimize),
    history: scoreHistory(runs),
    baselines: baselineSpreads(runs),
    compares: compareRows(runs, solutions),
    changes: findChanges(runs, source.minimize ? {minimize: new Set([source.name])} : {}),
    exposure: source.exposure,
  };
}

/** The report over every entry: each gets the runs recorded under its name; the rest are counted as other runs. */
export function buildReport(options: {
  /** The zoo's name (its folder's basename); when absent, the basename of `zoo`. */
  name?: string;
  zoo: string;
  generated: string;
  arborVersion: string;
  /** `shown`: how the page names the ledger (default its path). */
  ledger: {path: string; exists: boolean; shown?: string};
  entries: readonly EntrySource[];
  runs: readonly LedgerRun[];
}): ReportModel {
  const byName = new Map<string, LedgerRun[]>();
  for (const run of options.runs) {
    let list = byName.get(run.benchmark.name);
    if (!list) byName.set(run.benchmark.name, (list = []));
    list.push(run);
  }
  const names = new Set(options.entries.map((e) => e.name));
  let runs = 0;
  for (const [name, list] of byName) if (names.has(name)) runs += list.length;
  return {
    name: options.name || zooName(options.zoo),
    zoo: options.zoo,
    generated: options.generated,
    arborVersion: options.arborVersion,
    ledger: {
      path: options.ledger.path,
      shown: options.ledger.shown ?? options.ledger.path,
      exists: options.ledger.exists,
      runs,
      otherRuns: options.runs.length - runs,
    },
    entries: options.entries.map((source) => entryReport(source, byName.get(source.name) ?? [])),
  };
}

/** A zoo's name from its path: the last folder name, never `.` or `..` (those are resolved against the working folder). */
export function zooName(zoo: string): string {
  const base = path.basename(zoo);
  return base && base !== '.' && base !== '..' ? base : path.basename(path.resolve(zoo)) || zoo;
}

/**
 * The ledger as the page names it: relative to the zoo folder, which the
 * reader knows, instead of a path from this machine's root; the absolute path
 * when the relative one climbs more than two folders (a ledger elsewhere).
 */
export function ledgerShown(ledger: string, zooAbs: string): string {
  const relative = path.relative(zooAbs, ledger);
  const ups = relative.split(path.sep).filter((part) => part === '..').length;
  return relative && ups <= 2 && !path.isAbsolute(relative) ? relative : ledger;
}

/** Split order: dev, test, then any other by name. */
export function bySplit(a: string, b: string): number {
  const rank = (s: string) => {
    const k = (reportSplits as readonly string[]).indexOf(s);
    return k < 0 ? reportSplits.length : k;
  };
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}
