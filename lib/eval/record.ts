/**
 * Every eval goes on record in the run ledger (lib/ledger): its score,
 * interval, solution digest, git state, environment and per-case results.
 * Never at the cost of the score line: a ledger that cannot be written is a
 * warning, and so is a test split scored for more distinct solutions than the
 * plan's test_budget.
 */
import type {CompareOutcome} from '../ledger/ledger.js';
import type {Plan} from './plan.js';
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
}

/** Record an eval report (a compare's: the candidate's, with the outcome); returns the warnings to print on stderr. */
export async function recordEval(report: EvalReport, options: RecordEvalOptions): Promise<string[]> {
  return (await recordEvalRun(report, options)).warnings;
}

/** Record an eval report; returns the run's ledger id (null when it was not recorded) and the warnings to print. */
export async function recordEvalRun(report: EvalReport, options: RecordEvalOptions): Promise<{runId: number | null; warnings: string[]}> {
  const {ledgerPathFor, recordRun, gitState, exposureWarning} = await import('../ledger/index.js');
  const git = await gitState(report.benchmark).catch(() => null);
  const cases = flatCases(report);
  const outcome = recordRun(ledgerPathFor(report.benchmark, options.env, options.cwd), {
    kind: options.kind ?? 'eval',
    benchmark: {path: report.benchmark, name: report.name},
    split: report.split,
    solutionSha256: report.solutionSha256 ?? null,
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
  const warning = outcome.testExposure === null ? null : exposureWarning(outcome.testExposure, options.plan.testBudget, report.name);
  return {runId: outcome.id, warnings: warning ? [warning] : []};
}
