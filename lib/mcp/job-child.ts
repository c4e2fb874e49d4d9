/**
 * One eval or compare of `arbor mcp` in a process of its own (jobs.ts forks
 * it), so cancelling a tool call can stop it the way an interrupt stops
 * `arbor benchmark eval`: SIGTERM makes the pipeline kill its runs and remove
 * its work folder. Like lib/run/eval-child.ts, this process never holds the
 * test salt: the parent derives the salted seeds and hands them over.
 */
import type {PlanOverride} from '../benchmark/plan.js';
import type {EvalReport} from '../eval/types.js';
import type {CompareReport} from '../compare/index.js';

/** What the server asks for. */
export interface JobRequest {
  kind: 'eval' | 'compare';
  /** The zoo entry's folder (its protected files are the ones that run). */
  benchmark: string;
  split: 'dev' | 'test';
  /** eval: a solution file, or a folder of editable files (a workspace); neither: the entry's own solution. */
  solution?: string;
  folder?: string;
  /** compare: both sides (files or folders). */
  baseline?: string;
  candidate?: string;
  /** Fewer repetitions or seconds for this run only. */
  cost?: {repetitions?: number; maxSeconds?: number};
  /** test: the salted seeds, derived by the parent. */
  testSeeds?: number[];
}

/** What this process answers. */
export type JobMessage =
  | {type: 'progress'; kind: 'line' | 'status'; text: string}
  | {type: 'eval'; report: EvalReport}
  | {type: 'compare'; report: CompareReport}
  | {type: 'error'; message: string};

const send = (message: JobMessage): Promise<void> =>
  new Promise((resolve) => {
    if (!process.connected) return resolve();
    process.send!(message, undefined, {}, () => resolve());
  });

/** The plan values this run replaces: its cost, and the salted test seeds. */
async function planOverride(request: JobRequest): Promise<PlanOverride | undefined> {
  const override: Record<string, unknown> = {...request.cost};
  if (request.testSeeds) {
    const {loadPlan} = await import('../benchmark/plan.js');
    const plan = await loadPlan(request.benchmark);
    override.test = {...plan.test, seeds: request.testSeeds};
  }
  return Object.keys(override).length ? (override as PlanOverride) : undefined;
}

async function run(request: JobRequest): Promise<JobMessage> {
  const onProgress = (kind: 'line' | 'status', text: string) => void send({type: 'progress', kind, text});
  const override = await planOverride(request);
  if (request.kind === 'compare') {
    const {runCompare} = await import('../compare/index.js');
    const report = await runCompare({
      benchmark: request.benchmark,
      split: request.split,
      baseline: request.baseline,
      candidate: request.candidate!,
      planOverride: override,
      onProgress,
    });
    if (request.testSeeds) for (const each of [report.reports.baseline, report.reports.candidate]) if (each) each.seeds = {...each.seeds, source: 'derived'};
    return {type: 'compare', report};
  }
  const {runSides} = await import('../eval/pipeline.js');
  const side = request.folder !== undefined ? {label: 'solution', folder: request.folder} : {label: 'solution', solution: request.solution};
  const {reports} = await runSides({benchmark: request.benchmark, split: request.split, planOverride: override, sides: [side], onProgress});
  return {type: 'eval', report: reports[0]!};
}

if (process.send) {
  // Node opens its inspector on SIGUSR1; a listener keeps it closed to anything that can signal this process.
  process.on('SIGUSR1', () => {});
  // The server is gone: stop the eval the way an interrupt does (runs killed, work folder removed).
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  process.once('message', (request: JobRequest) => {
    void (async () => {
      let answer: JobMessage;
      try {
        answer = await run(request);
      } catch (error) {
        const {describeFailure} = await import('../run/result.js');
        answer = {type: 'error', message: describeFailure(error)};
      }
      await send(answer);
      process.removeAllListeners('disconnect');
      process.disconnect();
    })();
  });
}
