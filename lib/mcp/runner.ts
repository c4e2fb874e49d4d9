/**
 * One run of `arbor mcp` (evaluate, compare, submit_test) in a process of its
 * own, started detached (runs.ts), so it outlives the server that started it:
 * a client that starts one server per call, or reconnects, finds its result
 * in the zoo's MCP store (store.ts). The process waits for its turn
 * (isolation.ts), runs the eval (SIGTERM stops it the way an interrupt stops
 * `arbor benchmark eval`: runs killed, work folder removed), records it in the
 * ledger as the CLI does, and stores the tool's result.
 *
 * Like lib/run/eval-child.ts, this process never holds the test salt (its
 * environment is the server's less its secrets): the server derives a sealed
 * run's salted seeds and hands them over on the IPC channel, never on the
 * command line, which every user of the machine can read.
 */
import type {PlanOverride} from '../benchmark/plan.js';
import type {CompareReport} from '../compare/index.js';
import type {EvalReport} from '../eval/types.js';
import type {SealedAnswer} from './budget.js';
import type {RunStatus} from './store.js';

/** An eval or compare to run. */
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
  /** test: the salted seeds, derived by the server. */
  testSeeds?: number[];
}

/** What a sealed run needs beyond its compare. */
export interface SealedSpec {
  /** The entry's ledger's budget file, the plan's name there, the solution's digest. */
  budgetFile: string;
  planName: string;
  digest: string;
  /** The call's count, for its answer. */
  budget: {used: number; of: number};
  /** The answer the solution got before: given again at the release time, nothing run. */
  known?: SealedAnswer;
  /** When the call started (ms since the epoch) and its release time (ms). */
  startedMs: number;
  releaseMs: number;
  /** A run already scoring the same solution: this one waits for its answer instead of running. */
  follow?: number;
}

/** What the server hands a runner. */
export interface RunnerSpec {
  store: string;
  run: number;
  tool: 'evaluate' | 'compare' | 'submit_test';
  /** The entry's name (the tool's result says it). */
  name: string;
  zoo: string;
  workspaces: string;
  /** The eval or compare (a sealed follower has none). */
  request?: JobRequest;
  sealed?: SealedSpec;
}

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

/** Run `request`: an eval's report or a compare's. */
export async function runRequest(request: JobRequest, onProgress: (kind: 'line' | 'status', text: string) => void): Promise<EvalReport | CompareReport> {
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
    return report;
  }
  const {runSides} = await import('../eval/pipeline.js');
  const side = request.folder !== undefined ? {label: 'solution', folder: request.folder} : {label: 'solution', solution: request.solution};
  const {reports} = await runSides({benchmark: request.benchmark, split: request.split, planOverride: override, sides: [side], onProgress});
  return reports[0]!;
}

/** The dev run: its turn, its eval, its record in the ledger, the tool's result. */
async function devRun(spec: RunnerSpec, store: import('./store.js').McpStore): Promise<Record<string, unknown>> {
  const [{takeTurn}, {finishEval, finishCompare}] = await Promise.all([import('./isolation.js'), import('./evaluate.js')]);
  const request = spec.request!;
  const leave = await takeTurn(store, spec.run, false, () => store.progress(spec.run, 'waiting for its turn: a sealed test eval runs alone on this machine'));
  let report: EvalReport | CompareReport;
  try {
    report = await runRequest(request, (_kind, text) => store.progress(spec.run, text));
  } finally {
    leave();
  }
  const ctx = {zoo: spec.zoo, workspaces: spec.workspaces, env: process.env};
  const id = `run-${spec.run}`;
  return request.kind === 'compare' ? finishCompare(ctx, id, spec.name, report as CompareReport) : finishEval(ctx, id, spec.name, report as EvalReport);
}

/** The sealed run (sealed.ts): its answer at its release time. */
async function sealedRun(spec: RunnerSpec, store: import('./store.js').McpStore): Promise<Record<string, unknown>> {
  const {sealedResult} = await import('./sealed.js');
  const ctx = {zoo: spec.zoo, workspaces: spec.workspaces, env: process.env};
  return sealedResult(ctx, store, {run: spec.run, name: spec.name, request: spec.request, sealed: spec.sealed!});
}

/** Store how the run ended (a run the server cancelled meanwhile stays cancelled). */
async function main(spec: RunnerSpec): Promise<void> {
  const {McpStore, processStart} = await import('./store.js');
  const store = await McpStore.open(spec.store);
  store.setRunner(spec.run, process.pid, processStart(process.pid));
  let status: Exclude<RunStatus, 'running'> = 'done';
  let outcome: {result?: Record<string, unknown>; error?: string};
  try {
    outcome = {result: spec.tool === 'submit_test' ? await sealedRun(spec, store) : await devRun(spec, store)};
  } catch (error) {
    const [{describeFailure}, {sealedFailure}] = await Promise.all([import('../run/result.js'), import('./sealed.js')]);
    status = 'failed';
    // A sealed run fails with one fixed text (its reason is on this process's log, written by sealed.ts, blanked of its seeds).
    outcome = {error: spec.tool === 'submit_test' ? sealedFailure(spec.name) : describeFailure(error)};
    if (spec.tool !== 'submit_test') process.stderr.write(`arbor mcp: run-${spec.run} (${spec.tool} of ${spec.name}) failed: ${outcome.error}\n`);
  }
  store.finish(spec.run, status, outcome);
  // A run that ended well leaves no log (one that failed keeps it, for the owner, until the run is swept).
  if (status === 'done') {
    const [{rmSync}, {runLog}] = await Promise.all([import('node:fs'), import('./jobs.js')]);
    rmSync(runLog(store, spec.run), {force: true});
  }
  store.close();
}

if (process.send) {
  // Node opens its inspector on SIGUSR1; a listener keeps it closed to anything that can signal this process.
  process.on('SIGUSR1', () => {});
  process.once('message', (spec: RunnerSpec) => {
    // The spec is all it needs: told so, the server lets it go (and may exit); the channel closes, and this process outlives the server.
    process.send!({type: 'started'}, undefined, {}, () => process.disconnect());
    main(spec).catch((error: Error) => {
      process.stderr.write(`arbor mcp: run-${spec.run}: ${error.stack ?? error.message}\n`);
      process.exitCode = 1;
    });
  });
}
