/**
 * One eval in a process of its own, started by a queue worker (fork, with an
 * IPC channel; eval-process.ts): the worker's own event loop stays free to
 * renew its job locks however long the eval's synchronous steps take, an eval
 * that brings its process down takes no worker with it, and the bundle code
 * the eval runs in this process never shares one with a secret. The parent
 * sends the eval's options (with the salted test seeds it derived); this
 * process sends back progress, then the report or the error.
 */
import type {EvalReport} from '../eval/types.js';
import {ArborError, type ExitCodeValue} from '../errors.js';
import {describeFailure} from './result.js';

/** What the parent asks for. */
export interface EvalChildRequest {
  /** The benchmark folder. */
  benchmark: string;
  split: string;
  /** Another solution file in place of the plan's. */
  solution?: string;
  /** A folder holding the editable files to evaluate (a queue job's), in place of the benchmark's own. */
  folder?: string;
  /** The test seeds, derived from the salt by the parent: this process never holds the salt. */
  testSeeds?: number[];
  unsandboxed?: boolean;
}

/** What this process answers. */
export type EvalChildMessage =
  | {type: 'progress'; kind: 'line' | 'status'; text: string}
  | {type: 'report'; report: EvalReport}
  | {type: 'error'; message: string; code?: string; exitCode?: ExitCodeValue};

const send = (message: EvalChildMessage): Promise<void> =>
  new Promise((resolve) => {
    if (!process.connected) return resolve();
    process.send!(message, undefined, {}, () => resolve());
  });

/** Run the eval a request asks for. */
async function evaluate(request: EvalChildRequest): Promise<EvalReport> {
  const [{runSides}, {loadPlan, overridePlan}, {HarnessError}] = await Promise.all([import('../eval/pipeline.js'), import('../benchmark/plan.js'), import('../eval/errors.js')]);
  let planOverride: import('../benchmark/plan.js').PlanOverride | undefined;
  if (request.testSeeds) {
    // The derived seeds stand in for the plan's published test seeds; this process has no salt to derive them from.
    // (PlanOverride names only the cost of a run; the pipeline applies whatever it is given, which is checked here.)
    const plan = await loadPlan(request.benchmark);
    planOverride = {test: {...plan.test, seeds: request.testSeeds}} as never;
    if (overridePlan(plan, planOverride).test.seeds !== request.testSeeds) throw new HarnessError('this arbor cannot hand the salted test seeds to the eval (plan override refused); the test split cannot be scored here');
  }
  const side = request.folder !== undefined ? {label: 'solution', folder: request.folder} : {label: 'solution', solution: request.solution};
  const {reports} = await runSides({
    benchmark: request.benchmark,
    split: request.split,
    unsandboxed: request.unsandboxed,
    planOverride,
    sides: [side],
    onProgress: (kind, text) => void send({type: 'progress', kind, text}),
  });
  const report = reports[0]!;
  if (request.testSeeds && report.seeds.source === 'published') report.seeds = {...report.seeds, source: 'derived'};
  return report;
}

if (process.send) {
  // As in `arbor benchmark eval`: Node opens its inspector on SIGUSR1; a listener keeps it closed to anything that can signal this process.
  process.on('SIGUSR1', () => {});
  // The worker is gone (killed): stop the eval the way an interrupt does, runs killed and work folder removed.
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  process.once('message', (request: EvalChildRequest) => {
    void (async () => {
      try {
        await send({type: 'report', report: await evaluate(request)});
      } catch (error) {
        await send({type: 'error', message: describeFailure(error), ...(error instanceof ArborError ? {code: error.code, exitCode: error.exitCode} : {})});
      }
      process.removeAllListeners('disconnect');
      process.disconnect();
    })();
  });
}
