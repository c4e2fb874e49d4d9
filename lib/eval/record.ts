/**
 * Every eval goes on record in the run ledger (lib/ledger): its score,
 * interval, solution digest, git state, environment and per-case results.
 * Never at the cost of the score line: a ledger that cannot be written is a
 * warning, and so is a test split scored for more distinct solutions than the
 * plan's test_budget.
 */
import path from 'node:path';
import type {CompareOutcome} from '../ledger/ledger.js';
import type {Plan} from '../benchmark/plan.js';
import {flatCases} from './score.js';
import type {EvalReport} from './types.js';

/** How recordEval is told where the ledger is and what the run was. */
export interface RecordEvalOptions {
  plan: Pick<Plan, 'testBudget'>;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  kind?: 'eval' | 'calibrate' | 'compare';
  /** kind compare: the outcome (candidate over baseline). */
  compare?: CompareOutcome;
  /** How to name the solution in the ledger (a compare's revision side); default `solutionLabel` of the report's solution file or folder. */
  solutionLabel?: string;
}

/**
 * How the ledger names a solution file or folder: its path relative to the
 * benchmark folder (`solution.py`, `../fast.py`), so the name reads the same
 * from wherever the eval ran; absolute when that path would climb more than
 * two folders (a workspace elsewhere), where `../../../../tmp/…` says less.
 */
export function solutionLabel(benchmarkDir: string, solution: string, cwd = process.cwd()): string {
  const absolute = path.resolve(cwd, solution);
  const relative = path.relative(path.resolve(cwd, benchmarkDir), absolute);
  const climbs = relative.split(path.sep).filter((part) => part === '..').length;
  if (relative === '' || path.isAbsolute(relative) || climbs > 2) return absolute;
  return relative.split(path.sep).join('/');
}

/** Record an eval report (a compare's: the candidate's, with the outcome); returns the warnings to print on stderr. */
export async function recordEval(report: EvalReport, options: RecordEvalOptions): Promise<string[]> {
  return (await recordEvalRun(report, options)).warnings;
}

/** Record an eval report; returns the run's ledger id (null when it was not recorded) and the warnings to print. */
export async function recordEvalRun(report: EvalReport, options: RecordEvalOptions): Promise<{runId: number | null; warnings: string[]}> {
  const {ledgerPathFor, recordRun, gitState} = await import('../ledger/index.js');
  const git = await gitState(report.benchmark).catch(() => null);
  const cases = flatCases(report);
  const outcome = recordRun(ledgerPathFor(report.benchmark, options.env, options.cwd), {
    kind: options.kind ?? 'eval',
    benchmark: {path: report.benchmark, name: report.name},
    split: report.split,
    solutionSha256: report.solutionSha256 ?? null,
    solutionLabel: options.solutionLabel ?? (report.solution ? solutionLabel(report.benchmark, report.solution, options.cwd) : null),
    git,
    environment: report.environment ?? {fingerprint: 'unknown'},
    metric: report.metric,
    score: report.score,
    interval: report.interval ?? null,
    status: report.failure ? 'failed' : 'ok',
    seeds: report.seeds,
    cases,
    ...(options.compare ? {compare: options.compare} : {}),
  });
  if (!outcome.ok) return {runId: null, warnings: [outcome.warning]};
  if (report.split !== 'test') return {runId: outcome.id, warnings: []};
  return {runId: outcome.id, warnings: await testWarnings(outcome.path, report, options)};
}

/** A test run's warnings, from the one exposure count (lib/ledger/exposure.ts); an eval's also when test comes early. */
async function testWarnings(ledgerFile: string, report: EvalReport, options: RecordEvalOptions): Promise<string[]> {
  const {openLedger, testExposure, exposureWarning, testEvalWarnings} = await import('../ledger/index.js');
  const ledger = openLedger(ledgerFile, {readonly: true});
  try {
    const early = (options.kind ?? 'eval') === 'eval' ? testEvalWarnings(ledger, report.name, report.solutionSha256 ?? null) : [];
    const over = exposureWarning(testExposure(ledger, report.name), options.plan.testBudget, report.name);
    return [...early, ...(over ? [over] : [])];
  } finally {
    ledger.close();
  }
}
