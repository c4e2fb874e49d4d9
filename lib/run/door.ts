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
import type {CompareOptions, CompareReport} from '../compare/index.js';
import type {CalibrationReport} from '../eval/calibrate.js';
import type {EvalOptions, EvalReport} from '../eval/types.js';
import {holdsSecret} from '../secrets.js';
import type {EvalChildRequest} from './eval-child.js';

type Progress = (kind: 'line' | 'status', text: string) => void;

/** What each kind of local work takes (besides its progress) and answers. */
interface Kinds {
  eval: {request: Omit<EvalOptions, 'onProgress'>; report: EvalReport};
  calibrate: {request: Omit<EvalOptions, 'onProgress'> & {runs: number}; report: CalibrationReport};
  compare: {request: Omit<CompareOptions, 'onProgress' | 'env'>; report: CompareReport};
}

/** Options every kind shares. */
export interface LocalOptions {
  /** The caller's environment (the ledger it names, and its secrets, if any). */
  env?: NodeJS.ProcessEnv;
  /** Where relative paths of the request are read from. */
  cwd?: string;
  onProgress: Progress;
  /** calibrate: one of its evals is done (redacted like the rest when a secret is held). */
  onEval?: (k: number, report: EvalReport) => void;
}

/**
 * Run an eval, a calibration or a compare of this machine's, in this process
 * or, when `env` holds a secret, in a child that does not (see above).
 */
export async function evaluateHere<K extends keyof Kinds>(kind: K, request: Kinds[K]['request'], options: LocalOptions): Promise<Kinds[K]['report']> {
  const env = options.env ?? process.env;
  if (holdsSecret(env)) return inChild(kind, request, {...options, env});
  if (kind === 'compare') {
    const {runCompare} = await import('../compare/index.js');
    return runCompare({...(request as Kinds['compare']['request']), env, onProgress: options.onProgress});
  }
  if (kind === 'calibrate') {
    const {calibrate} = await import('../eval/calibrate.js');
    return calibrate({...(request as Kinds['calibrate']['request']), onProgress: options.onProgress, onEval: options.onEval});
  }
  const {runEval} = await import('../eval/pipeline.js');
  return runEval({...(request as Kinds['eval']['request']), onProgress: options.onProgress});
}

/** The same work in a child without the secrets: the salted seeds derived here, the child's words redacted. */
async function inChild<K extends keyof Kinds>(
  kind: K,
  request: Kinds[K]['request'],
  options: LocalOptions & {env: NodeJS.ProcessEnv},
): Promise<Kinds[K]['report']> {
  const {localSecrets, runInChild} = await import('./eval-process.js');
  const cwd = options.cwd ?? process.cwd();
  const {testSeeds, redact} = await localSecrets(request.benchmark, request.split ?? '', options.env, cwd);
  const child = {...request, kind, split: request.split ?? '', ...(testSeeds ? {testSeeds} : {})} as EvalChildRequest;
  const answer = await runInChild(child, {
    env: options.env,
    cwd,
    redact,
    interruptible: true,
    onProgress: options.onProgress,
    ...(options.onEval ? {onEvaluated: options.onEval} : {}),
  });
  return (answer as {report: Kinds[K]['report']}).report;
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
