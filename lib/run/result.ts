/**
 * One row of a zoo-wide run: what an eval of one (entry, split, solution)
 * came to, as the summary table and `--json` show it, and its place in the
 * run ledger.
 */
import path from 'node:path';
import {isArborError} from '../errors.js';
import type {Plan, Split} from '../benchmark/plan.js';
import type {EvalReport} from '../eval/index.js';
import type {RunItem} from './targets.js';

/** `ok`: scored; `failed`: scored 0.0 because the solution failed (see `failure`); `error`: no score (the harness failed, or a worker refused the job). */
type RunResultStatus = 'ok' | 'failed' | 'error';

/** One eval's outcome (an element of `--json`'s `results`). */
export interface RunResult {
  /** The benchmark's name: the plan's `name`, else its folder's (its identity in the run ledger). */
  benchmark: string;
  /** The entry's folder name. */
  entry: string;
  /** The entry's folder as given. */
  path: string;
  split: Split;
  /** The solution file given with `--solution ENTRY=FILE`, or null for the plan's own. */
  solution: string | null;
  /** Null when there is no score (status `error`). */
  score: number | null;
  /** The score's 95% interval (speedup), else null. */
  ci: [number, number] | null;
  status: RunResultStatus;
  /** Why the score is 0.0 (`failed`) or missing (`error`). */
  failure?: string;
  /** `error`: the error's stable code (`stale-lock`: a protected file differs from arbor.lock, exit 3). */
  errorCode?: string;
  /** The run's id in the ledger, when it was recorded. */
  runId?: number;
  /** The fingerprint of the environment the eval ran in (the worker's, through a queue); null when unknown. */
  environment: string | null;
  /** SHA-256 over the solution's editable files as evaluated. */
  solutionSha256?: string;
  /** Wall seconds of the eval. */
  seconds: number | null;
  /** Through a queue: the job's id and the worker that ran it. */
  jobId?: string;
  worker?: string;
}

/** The result of an eval that produced a report. */
export function resultFromReport(item: RunItem, report: EvalReport, extra: Pick<RunResult, 'runId' | 'jobId' | 'worker'> = {}): RunResult {
  return {
    benchmark: report.name,
    entry: item.target.entry,
    path: item.target.shown,
    split: item.split,
    solution: item.solutionShown ?? null,
    score: report.score,
    ci: report.interval ?? null,
    status: report.failure ? 'failed' : 'ok',
    ...(report.failure ? {failure: report.failure} : {}),
    ...definedOnly(extra),
    environment: report.environment?.fingerprint ?? null,
    ...(report.solutionSha256 ? {solutionSha256: report.solutionSha256} : {}),
    seconds: report.seconds,
  };
}

/** The result of an eval that gave no score. */
export function errorResult(item: RunItem, failure: string, seconds: number | null, extra: Pick<RunResult, 'jobId' | 'worker' | 'errorCode'> = {}): RunResult {
  return {
    benchmark: item.target.entry,
    entry: item.target.entry,
    path: item.target.shown,
    split: item.split,
    solution: item.solutionShown ?? null,
    score: null,
    ci: null,
    status: 'error',
    failure,
    ...definedOnly(extra),
    environment: null,
    seconds,
  };
}

/** What a thrown value says, in one line: arbor's own errors as they are, anything else marked as a bug. */
/** The stable code of an error arbor raised on purpose, for `errorResult`. */
export function errorCodeOf(error: unknown): Pick<RunResult, 'errorCode'> {
  return isArborError(error) ? {errorCode: error.code} : {};
}

export function describeFailure(error: unknown): string {
  if (isArborError(error)) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  return `internal error (this is a bug, please report it): ${message.split('\n', 1)[0]}`;
}

/**
 * Put an eval report on record in the ledger exactly as `arbor benchmark
 * eval` does (recordEvalRun), with the plan the job was made under (`plan`, the
 * submitter's, read once), else the plan read from the entry's own folder.
 * Returns the run's id (null when the ledger could not be written) and the
 * warnings to show.
 */
export async function recordReport(
  report: EvalReport,
  options: {env?: NodeJS.ProcessEnv; cwd?: string; plan?: Plan} = {},
): Promise<{runId: number | null; warnings: string[]}> {
  const [{recordEvalRun}, {loadPlan}] = await Promise.all([import('../eval/index.js'), import('../benchmark/plan.js')]);
  let plan = options.plan;
  try {
    plan ??= await loadPlan(path.resolve(options.cwd ?? process.cwd(), report.benchmark));
  } catch (error) {
    return {runId: null, warnings: [`warning: the run was not recorded: ${describeFailure(error)}`]};
  }
  return recordEvalRun(report, {plan, env: options.env, cwd: options.cwd});
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null)) as Partial<T>;
}
