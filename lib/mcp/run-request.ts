/** The eval or compare a run of `arbor mcp` runs (in the run's own process: runner.ts). */
import type {Plan, PlanOverride} from '../benchmark/plan.js';
import type {CompareReport} from '../compare/index.js';
import type {EvalProgress, EvalReport, Planned} from '../eval/index.js';
import type {SealedAnswer} from './budget.js';

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
  /** What the agent called the solution (evaluate's `label`), checked by the server; else the path it passed names it. */
  label?: string;
  /**
   * plan.toml as the server read and checked it for the call (its snapshot, a sealed call's budget and seeds):
   * the run scores, redacts and records under it and reads the file no more (absent: the run reads it, once).
   */
  plan?: Plan;
  /** eval, dev: race against this ledger run (evaluate's `against`, resolved by the server among the runs its client sees: against.ts). */
  against?: number;
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
  /** What the agent called the solution (submit_test's `label`), checked by the server. */
  label?: string;
}

/** What the server hands a runner. */
export interface RunnerSpec {
  store: string;
  /** The run's row in the store, and its public id (the only one results and logs name). */
  run: number;
  id: string;
  tool: 'evaluate' | 'compare' | 'submit_test';
  /** The entry's name (the tool's result says it). */
  name: string;
  zoo: string;
  workspaces: string;
  /** The eval or compare (a sealed follower has none). */
  request?: JobRequest;
  /** The copies the request reads (snapshot.ts): each copy's path and the path the agent gave, which the results name. */
  aliases?: Array<[string, string]>;
  /** The copies' folders, removed when the run ends. */
  scratch?: string[];
  sealed?: SealedSpec;
}

/** The request's plan: the one the server handed over, else plan.toml read here (once: the eval is given it). */
export async function requestPlan(request: JobRequest): Promise<Plan> {
  if (request.plan) return request.plan;
  const {loadPlan} = await import('../benchmark/plan.js');
  return loadPlan(request.benchmark);
}

/** The plan values this run replaces: its cost, and the salted test seeds. */
function planOverride(request: JobRequest, plan: Plan): PlanOverride | undefined {
  const override: Record<string, unknown> = {...request.cost};
  if (request.testSeeds) override.test = {...plan.test, seeds: request.testSeeds};
  return Object.keys(override).length ? (override as PlanOverride) : undefined;
}

/**
 * Run `request`: an eval's report or a compare's, with the plan it was scored under (to record it with).
 * In this process, not through lib/run/door.ts: this process is already the one without the secrets
 * (runner.ts; the server derived the salted seeds and handed them over as a plan override), and the
 * door's secret-free child takes no plan override (a run's cost, its seeds), which would be lost.
 */
export async function runRequest(request: JobRequest, onProgress: EvalProgress): Promise<Planned<EvalReport | CompareReport>> {
  const plan = await requestPlan(request);
  const override = planOverride(request, plan);
  if (request.kind === 'compare') {
    const {runComparePlanned} = await import('../compare/index.js');
    const {report} = await runComparePlanned({
      benchmark: request.benchmark,
      split: request.split,
      baseline: request.baseline,
      candidate: request.candidate!,
      planOverride: override,
      plan,
      onProgress,
    });
    if (request.testSeeds) for (const each of [report.reports.baseline, report.reports.candidate]) if (each) each.seeds = {...each.seeds, source: 'derived'};
    return {report, plan};
  }
  if (request.against !== undefined) {
    // A race: the solution (or the entry's own) as the candidate, against the recorded run (lib/compare/against.ts).
    const {runComparePlanned} = await import('../compare/index.js');
    const candidate = request.folder ?? request.solution ?? request.benchmark;
    return runComparePlanned({benchmark: request.benchmark, split: 'dev', candidate, against: String(request.against), planOverride: override, onProgress});
  }
  const {runSides} = await import('../eval/index.js');
  const side = request.folder !== undefined ? {label: 'solution', folder: request.folder} : {label: 'solution', solution: request.solution};
  const {reports} = await runSides({benchmark: request.benchmark, split: request.split, planOverride: override, plan, sides: [side], onProgress});
  return {report: reports[0]!, plan};
}

/** The one text of every failed sealed answer: why it failed is the owner's (the log), not a channel. */
export function sealedFailure(name: string): string {
  return `submit_test: the test eval of ${name} gave no verdict (this submission counted; the owner finds why in the server's log)`;
}

/** Every string of a JSON-like value with each copy's path put back to the path the agent gave. */
export function unaliased<T>(value: T, aliases: ReadonlyArray<readonly [string, string]>): T {
  if (typeof value === 'string') return aliases.reduce((text, [copy, original]) => text.split(copy).join(original), value as string) as T;
  if (Array.isArray(value)) return value.map((each) => unaliased(each, aliases)) as T;
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, each]) => [key, unaliased(each, aliases)])) as T;
  return value;
}
