/**
 * The local door into an eval: `eval`, `compare` and `calibrate` on this
 * machine come through here, and so do `lock` and `verify`, which run bundle
 * code without scoring it. Whether the caller's environment holds a secret
 * (the test salt, the queue key) is decided here alone: with one, the work
 * runs in a child process that never holds it (eval-process.ts), the salted
 * seeds derived in this process and blanked out of what the child says back;
 * without one, it runs in this process. No command reads the environment for
 * secrets itself, so no command can route one way while another routes the
 * other.
 */
import type {Plan} from '../benchmark/plan.js';
import type {CompareOptions, CompareReport} from '../compare/index.js';
import type {CalibrationReport} from '../eval/index.js';
import type {EvalOptions, EvalProgress, EvalReport, Planned} from '../eval/index.js';
import {holdsSecret} from '../secrets.js';
import type {EvalChildRequest} from './eval-child.js';

export type {EvalProgress} from '../eval/index.js';

/**
 * What each kind of local work takes (besides its progress) and answers. `plan`: plan.toml as the caller
 * already read and checked it (compare --package, to refuse a package that cannot be made before anything
 * runs): the door hands it to the work, in this process or in the child, and nothing reads the file again.
 */
interface Kinds {
  eval: {request: Omit<EvalOptions, 'onProgress'>; report: EvalReport};
  calibrate: {request: Omit<EvalOptions, 'onProgress'> & {runs: number}; report: CalibrationReport};
  compare: {request: Omit<CompareOptions, 'onProgress' | 'env'>; report: CompareReport};
}

/**
 * Whether and how the door puts the work on record in the run ledger (the one
 * `env` names): `false` for none; else an eval is recorded as kind `eval`,
 * each of a calibration's evals as `calibrate`, a compare's candidate as
 * `compare` with the outcome, each with the plan the work was scored under.
 * `label` is what the caller named the solution (`--label`, MCP's `label`):
 * an eval's, or a compare's candidate's; without it a run is named by its
 * path and digest (lib/eval/record.ts `runName`).
 */
export type Recording = false | {label?: string};

/** Options every kind shares. */
export interface LocalOptions {
  /** The caller's environment (the ledger it names, and its secrets, if any). */
  env?: NodeJS.ProcessEnv;
  /** Where relative paths of the request are read from. */
  cwd?: string;
  onProgress: EvalProgress;
  /** calibrate: one of its evals is done (redacted like the rest when a secret is held). */
  onEval?: (k: number, report: EvalReport) => void;
  record: Recording;
  /**
   * Run in a child even without a secret to keep from this process: a runner of many evals
   * (`arbor benchmark run`) keeps each eval's bundle code, module cache and crash to a process of its own.
   */
  isolate?: boolean;
}

/** What the door answers: the report, the plan it was scored under (plan.toml read once), and the ledger's warnings (test exposure, test before dev). */
export interface DoorOutcome<R> extends Planned<R> {
  warnings: string[];
  /** The run's id in the ledger (a calibration's: its last eval's); null when nothing was recorded. */
  runId: number | null;
}

/**
 * Run an eval, a calibration or a compare of this machine's, in this process
 * or, when `env` holds a secret, in a child that does not (see above); then
 * put it on record as `options.record` says, with the plan it was scored under.
 */
export async function evaluateHere<K extends keyof Kinds>(
  kind: K,
  request: Kinds[K]['request'],
  options: LocalOptions,
): Promise<DoorOutcome<Kinds[K]['report']>> {
  const env = options.env ?? process.env;
  const evals: EvalReport[] = [];
  const onEval = (k: number, report: EvalReport) => {
    evals.push(report);
    options.onEval?.(k, report);
  };
  const local = {...options, env, onEval};
  const planned = holdsSecret(env) || options.isolate ? await inChild(kind, request, local) : await inProcess(kind, request, local);
  if (options.record === false) return {...planned, warnings: [], runId: null};
  const {recordEvalRun, sideName} = await import('../eval/index.js');
  const how = {plan: planned.plan, env, ...(options.cwd ? {cwd: options.cwd} : {})};
  const warnings: string[] = [];
  let runId: number | null = null;
  const record = async (report: EvalReport, more: Omit<Parameters<typeof recordEvalRun>[1], keyof typeof how>) => {
    const recorded = await recordEvalRun(report, {...how, ...more});
    warnings.push(...recorded.warnings);
    runId = recorded.runId;
  };
  const {label} = options.record;
  if (kind === 'eval') await record(planned.report as EvalReport, label === undefined ? {} : {name: {given: label}});
  // Every calibration eval goes on record too (kind "calibrate"), so the report can draw the baseline's spread.
  if (kind === 'calibrate') for (const report of evals) await record(report, {kind: 'calibrate'});
  if (kind === 'compare') {
    const report = planned.report as CompareReport;
    const {compareOnRecord} = await import('../compare/index.js');
    await record(report.reports.candidate, {kind: 'compare', compare: compareOnRecord(report), name: sideName(report.candidate, label)});
  }
  return {...planned, warnings, runId};
}

/** The work in this process (no secret to keep from it). */
async function inProcess<K extends keyof Kinds>(
  kind: K,
  request: Kinds[K]['request'],
  options: LocalOptions & {env: NodeJS.ProcessEnv},
): Promise<Planned<Kinds[K]['report']>> {
  const {env, onProgress, onEval} = options;
  if (kind === 'compare') {
    const {runComparePlanned} = await import('../compare/index.js');
    return runComparePlanned({...(request as Kinds['compare']['request']), env, onProgress});
  }
  if (kind === 'calibrate') {
    const {calibratePlanned} = await import('../eval/index.js');
    return calibratePlanned({...(request as Kinds['calibrate']['request']), onProgress, onEval});
  }
  const {runEvalPlanned} = await import('../eval/index.js');
  return runEvalPlanned({...(request as Kinds['eval']['request']), onProgress});
}

/**
 * The same work in a child without the secrets: the salted seeds derived
 * here, the child's words redacted. plan.toml is read here (unless the caller
 * did), before the child starts, and handed to it: what the child's bundle code does to the file
 * cannot change the plan the work is recorded with.
 */
async function inChild<K extends keyof Kinds>(
  kind: K,
  request: Kinds[K]['request'],
  options: LocalOptions & {env: NodeJS.ProcessEnv},
): Promise<Planned<Kinds[K]['report']>> {
  const {localSecrets, runInChild} = await import('./eval-process.js');
  const cwd = options.cwd ?? process.cwd();
  const {testSeeds, redact, plan} = await localSecrets(request.benchmark, request.split ?? '', options.env, cwd, request.plan);
  const child = {...request, kind, split: request.split ?? '', ...(testSeeds ? {testSeeds} : {}), ...(plan ? {plan} : {})} as EvalChildRequest;
  const answer = await runInChild(child, {
    env: options.env,
    cwd,
    redact,
    interruptible: true,
    onProgress: options.onProgress,
    ...(options.onEval ? {onEvaluated: options.onEval} : {}),
  });
  const done = answer as {report: Kinds[K]['report']; plan: Plan};
  return {report: done.report, plan: plan ?? done.plan};
}

/**
 * For a command that runs bundle code but needs no secret (`lock`, `verify`):
 * when `env` holds one, run this very command again in a child without it
 * (its output and exit code this process's own) and answer true: the caller
 * then does nothing more. False when there is nothing to hide.
 */
export async function reranWithoutSecrets(env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (!holdsSecret(env)) return false;
  const {rerunWithoutSecrets} = await import('./eval-process.js');
  await rerunWithoutSecrets(env);
  return true;
}
