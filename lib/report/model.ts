/**
 * The report's data model and the pure functions that build it from what
 * verify and the run ledger say. Nothing here reads a file or prints.
 */
import type {CompareVerdict, LedgerRun, RunStatus} from '../ledger/ledger.js';
import {summarizeRuns} from '../ledger/summary.js';
import type {BenchmarkReport, Finding} from '../zoo/lint.js';
import {formatFinding} from '../zoo/report.js';

/** The splits the report shows, in this order. */
export const reportSplits = ['dev', 'test'] as const;

/** An entry's verify outcome: `ok` (maybe with warnings), `failing` (errors), `broken` (not a readable folder). */
export interface EntryHealth {
  status: 'ok' | 'failing' | 'broken';
  errors: number;
  warnings: number;
  /** The first error (else the first warning) as verify prints it, or what is wrong with the folder; null when clean. */
  firstFinding: string | null;
}

/** One scored run as the report shows it: no environment, no per-case results. */
export interface ScoredRun {
  id: number;
  time: string;
  score: number | null;
  interval: [number, number] | null;
  status: RunStatus;
  solutionSha256: string | null;
}

/** Latest and best eval of an entry on one split. */
export interface SplitScores {
  split: string;
  /** Eval runs on this split. */
  evals: number;
  latest: ScoredRun | null;
  best: ScoredRun | null;
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
  /** The metric of its newest run, or null with no runs. */
  metric: string | null;
  /** dev, then test. */
  splits: SplitScores[];
  /** Eval and calibrate runs, oldest first. */
  history: HistoryPoint[];
  baselines: BaselineSpread[];
  /** Newest first. */
  compares: CompareRow[];
  exposure: TestExposure;
}

/** The whole report. */
export interface ReportModel {
  /** The zoo folder as given. */
  zoo: string;
  /** ISO 8601 time the report was made. */
  generated: string;
  arborVersion: string;
  ledger: {
    path: string;
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
}

/** An entry's health from its verify report (or the reason it could not be verified). */
export function entryHealth(verify: BenchmarkReport | {problem: string}): EntryHealth {
  if ('problem' in verify) return {status: 'broken', errors: 0, warnings: 0, firstFinding: verify.problem};
  const first: Finding | undefined = verify.findings.find((f) => f.severity === 'error') ?? verify.findings[0];
  return {status: verify.errors > 0 ? 'failing' : 'ok', errors: verify.errors, warnings: verify.warnings, firstFinding: first ? formatFinding(first) : null};
}

/** A ledger run reduced to what the report shows. */
export function scoredRun(run: LedgerRun): ScoredRun {
  return {id: run.id, time: run.time, score: run.score, interval: run.interval, status: run.status, solutionSha256: run.solutionSha256};
}

/** Latest and best eval per split (dev and test always, then any other split the runs name). */
export function splitScores(runs: readonly LedgerRun[]): SplitScores[] {
  const summaries = summarizeRuns(runs);
  const splits = [...new Set<string>([...reportSplits, ...summaries.map((s) => s.split)])];
  return splits.map((split) => {
    const summary = summaries.find((s) => s.split === split);
    return {
      split,
      evals: runs.filter((run) => run.kind === 'eval' && run.split === split).length,
      latest: summary?.latest ? scoredRun(summary.latest) : null,
      best: summary?.best ? scoredRun(summary.best) : null,
    };
  });
}

/** The eval and calibrate runs that gave a score, oldest first: the chart's points. */
export function scoreHistory(runs: readonly LedgerRun[]): HistoryPoint[] {
  return runs
    .filter((run): run is LedgerRun & {kind: 'eval' | 'calibrate'} => (run.kind === 'eval' || run.kind === 'calibrate') && run.score !== null)
    .map((run) => ({...scoredRun(run), split: run.split, kind: run.kind}))
    .sort((a, b) => a.id - b.id);
}

/**
 * Per split, the spread of the baseline's calibrate runs. Only the runs of the
 * solution calibrated last count: an older calibration measured an older baseline.
 */
export function baselineSpreads(runs: readonly LedgerRun[]): BaselineSpread[] {
  const spreads: BaselineSpread[] = [];
  const calibrations = runs.filter((run) => run.kind === 'calibrate' && run.score !== null).sort((a, b) => b.id - a.id);
  const splits = [...new Set(calibrations.map((run) => run.split))].sort(bySplit);
  for (const split of splits) {
    const onSplit = calibrations.filter((run) => run.split === split);
    const sha = onSplit[0]!.solutionSha256;
    const scores = onSplit.filter((run) => run.solutionSha256 === sha).map((run) => run.score!);
    spreads.push({split, solutionSha256: sha, runs: scores.length, lo: Math.min(...scores), hi: Math.max(...scores), mean: scores.reduce((a, b) => a + b, 0) / scores.length});
  }
  return spreads;
}

/** The compare runs, newest first. */
export function compareRows(runs: readonly LedgerRun[]): CompareRow[] {
  return runs
    .filter((run) => run.kind === 'compare' && run.compare)
    .sort((a, b) => b.id - a.id)
    .map((run) => ({
      id: run.id,
      time: run.time,
      split: run.split,
      verdict: run.compare!.verdict,
      ratio: run.compare!.ratio,
      interval: run.compare!.interval,
      candidateSha256: run.solutionSha256,
      baselineSha256: run.compare!.baselineSha256,
      baselineRun: run.compare!.baselineRun,
    }));
}

/** One entry's report from its source and the ledger runs recorded under its name (any order). */
export function entryReport(source: EntrySource, runs: readonly LedgerRun[]): EntryReport {
  const newest = runs.reduce<LedgerRun | null>((a, b) => (a && a.id > b.id ? a : b), null);
  return {
    folder: source.folder,
    name: source.name,
    health: entryHealth(source.verify),
    metric: newest?.metric ?? null,
    splits: splitScores(runs),
    history: scoreHistory(runs),
    baselines: baselineSpreads(runs),
    compares: compareRows(runs),
    exposure: source.exposure,
  };
}

/** The report over every entry: each gets the runs recorded under its name; the rest are counted as other runs. */
export function buildReport(options: {
  zoo: string;
  generated: string;
  arborVersion: string;
  ledger: {path: string; exists: boolean};
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
    zoo: options.zoo,
    generated: options.generated,
    arborVersion: options.arborVersion,
    ledger: {...options.ledger, runs, otherRuns: options.runs.length - runs},
    entries: options.entries.map((source) => entryReport(source, byName.get(source.name) ?? [])),
  };
}

function bySplit(a: string, b: string): number {
  const rank = (s: string) => {
    const k = (reportSplits as readonly string[]).indexOf(s);
    return k < 0 ? reportSplits.length : k;
  };
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}
