/**
 * Every eval goes on record in the run ledger (lib/ledger): its score,
 * interval, solution digest, git state, environment and per-case results.
 * Never at the cost of the score line: a ledger that cannot be written is a
 * warning, and so is a test split scored for more distinct solutions than the
 * plan's test_budget.
 */
import path from 'node:path';
import {UsageError} from '../errors.js';
import type {CompareOutcome, LabelKind, RecordedEnvironment} from '../ledger/ledger.js';
import {planDigest, type Plan} from '../benchmark/plan.js';
import {evalFloor} from './floor.js';
import {flatCases} from './score.js';
import type {EvalReport, HarnessFloor} from './types.js';

/** How recordEvalRun is told where the ledger is and what the run was. */
export interface RecordEvalOptions {
  /** The entry's plan: its test budget, and its solution file and folder (a run of these is the entry's own solution). */
  plan: Pick<Plan, 'testBudget'> & Partial<Pick<Plan, 'dir' | 'solution'>>;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  kind?: 'eval' | 'calibrate' | 'compare';
  /** kind compare: the outcome (candidate over baseline). */
  compare?: CompareOutcome;
  /** How to name the solution in the ledger: a label made already (a compare's side) or by the caller; default the report's solution file or folder (`runName`). */
  name?: RunName;
}

/**
 * What a run is called: a label the caller gave (`given`), a path (relative to the entry or an MCP
 * workspace) that `labelOf` ends with a short content digest, or a label made whole already (a compare's side).
 */
export type RunName = {given: string} | {path: string; kind: 'entry' | 'file'} | {label: string; kind: LabelKind};

/** A label the caller gives (`--label`, MCP's `label`): 1 to 80 characters, none a control character or line break, not blank. */
export function checkLabel(label: unknown, what = '--label'): string {
  const example = what === '--label' ? '--label "blocked v2"' : `${what}: "blocked v2"`;
  if (typeof label !== 'string') throw new UsageError(`${what}: give one label, a text of 1 to 80 printable characters (e.g. ${example})`, 'usage');
  const characters = [...label];
  // Printable only: a line break or an escape sequence in a label would forge lines of `runs` and the owner's terminal.
  if (characters.length >= 1 && characters.length <= 80 && label.trim() !== '' && !/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(label)) return label;
  const shown = JSON.stringify(characters.length > 40 ? `${characters.slice(0, 40).join('')}…` : label);
  throw new UsageError(
    `${what} ${shown}: expected 1 to 80 printable characters naming the solution (no line breaks or control characters), e.g. ${example}`,
    'usage',
  );
}

/**
 * The environment as recorded: the report's, with its harness floor when the eval measured one (`list --json`'s harnessCeiling)
 * and the digest of the plan it was scored under (what `eval --against` checks a reference run by).
 */
function withFloor(report: EvalReport, plan: RecordEvalOptions['plan']): RecordedEnvironment & {harnessFloor?: HarnessFloor; planDigest?: string} {
  const environment: RecordedEnvironment = report.environment ?? {fingerprint: 'unknown'};
  const floor = evalFloor(report);
  const digest = 'metric' in plan && plan.dir !== undefined ? {planDigest: planDigest(plan as Plan)} : {};
  return {...environment, ...(floor ? {harnessFloor: floor} : {}), ...digest};
}

/** A run's label and its kind: a given label as it is, a path with `@` and the first 6 hex digits of the solution's digest. */
export function labelOf(name: RunName, digest: string | null | undefined): {label: string; kind: LabelKind} {
  if ('given' in name) return {label: name.given, kind: 'given'};
  if ('label' in name) return name;
  return {label: digest ? `${name.path}@${digest.slice(0, 6)}` : name.path, kind: name.kind};
}

/** A compare side's name as its report gives it (a label made whole, with its kind; `file` when a report from elsewhere says none). */
export function sideName(side: {label: string; labelKind?: LabelKind}, given?: string): RunName {
  return given === undefined ? {label: side.label, kind: side.labelKind ?? 'file'} : {given};
}

/**
 * The name of a solution file or folder given by path: its `solutionLabel`, `entry` when it is the
 * entry's own solution file (or the entry's folder, its editable files), else `file` (a throwaway until named).
 */
export function runName(benchmarkDir: string, solution: string, plan: Partial<Pick<Plan, 'dir' | 'solution'>>, cwd = process.cwd()): RunName {
  const absolute = path.resolve(cwd, solution);
  const own = (plan.solution !== undefined && absolute === path.resolve(plan.solution)) || absolute === path.resolve(cwd, plan.dir ?? benchmarkDir);
  return {path: solutionLabel(benchmarkDir, solution, cwd), kind: own ? 'entry' : 'file'};
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

/** The label a record gets, and its kind: the name given, else the report's solution file or folder; none without either. */
function labelFields(report: EvalReport, options: RecordEvalOptions): {solutionLabel: string | null; labelKind: LabelKind | null} {
  const name = options.name ?? (report.solution ? runName(report.benchmark, report.solution, options.plan, options.cwd) : undefined);
  if (!name) return {solutionLabel: null, labelKind: null};
  const {label, kind} = labelOf(name, report.solutionSha256);
  return {solutionLabel: label, labelKind: kind};
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
    ...labelFields(report, options),
    git,
    // The harness floor is this machine's (what a case costs besides the solution): beside the environment it was measured in.
    environment: withFloor(report, options.plan),
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
