/**
 * One eval (or compare, or calibration) in a process of its own, started by a
 * queue worker, `arbor benchmark run`, or a local `eval`, `compare` or
 * `calibrate` whose environment holds a secret (fork, with an IPC channel;
 * eval-process.ts): the bundle code the eval runs in this process never
 * shares one with a secret, a worker's own event loop stays free to renew its
 * job locks however long the eval's synchronous steps take, and an eval that
 * brings its process down takes no worker with it. The parent sends the
 * request (with the salted test seeds it derived); this process sends back
 * progress, then the report or the error.
 */
import type {CalibrationReport} from '../eval/index.js';
import type {CompareReport} from '../compare/index.js';
import type {EvalReport} from '../eval/index.js';
import type {Plan} from '../benchmark/plan.js';
import {ArborError, type ExitCodeValue} from '../errors.js';
import {describeFailure} from './result.js';

/** What the parent asks for. */
export interface EvalChildRequest {
  /** An eval (the default), a compare of two solutions, or a calibration (`runs` evals). */
  kind?: 'eval' | 'compare' | 'calibrate';
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
  /** Path split: the folder of work directories (`eval --data`). */
  data?: string;
  /** Keep the work folders (`--keep`). */
  keep?: boolean;
  /** compare: its sides, or the ledger run standing in for the baseline, and the ledger that run is in. */
  baseline?: string;
  candidate?: string;
  baselineRun?: number;
  ledger?: string;
  /** calibrate: how many evals. */
  runs?: number;
  /** plan.toml as the parent read it: this process does not read it again, and the parent records with the same plan. */
  plan?: Plan;
  /** The caller's environment has a salt (set by runInChild): a path split's test eval says it does not apply, as it does in process. */
  salted?: boolean;
}

/** What this process answers. */
export type EvalChildMessage =
  | {type: 'progress'; kind: 'line' | 'status'; text: string}
  /** calibrate: one of its evals is done. */
  | {type: 'evaluated'; k: number; report: EvalReport}
  | {type: 'report'; report: EvalReport; plan: Plan}
  | {type: 'compare'; report: CompareReport; plan: Plan}
  | {type: 'calibrate'; report: CalibrationReport; plan: Plan}
  | {type: 'error'; message: string; code?: string; exitCode?: ExitCodeValue};

/** The final answers (all but progress). */
export type EvalChildAnswer = Extract<EvalChildMessage, {type: 'report' | 'compare' | 'calibrate' | 'error'}>;

const send = (message: EvalChildMessage): Promise<void> =>
  new Promise((resolve) => {
    if (!process.connected) return resolve();
    process.send!(message, undefined, {}, () => resolve());
  });

/**
 * What an eval given derived seeds says as the pipeline says it with the
 * salt itself (lib/eval/pipeline.ts: `derived`): it cannot tell here, as it
 * only sees the plan's test seeds replaced. A seed it names is `<derived
 * seed>` (point-make.ts, bundleFailure), a wrong element keeps its place but
 * not its values (failure.ts, withoutValues), the opening line counts salted
 * seeds and the report says their source is `derived`.
 */
interface Salted {
  text: (text: string) => string;
  progress: (text: string) => string;
  answer: <T>(value: T) => Promise<T>;
}

async function saltedAs(request: EvalChildRequest): Promise<Salted | undefined> {
  const seeds = request.testSeeds;
  if (!seeds) return undefined;
  const [{loadPlan}, {warmupSeed}, {withoutValues, explainFailure}] = await Promise.all([
    import('../benchmark/plan.js'),
    import('../eval/index.js'),
    import('../eval/index.js'),
  ]);
  const plan = request.plan ?? (await loadPlan(request.benchmark).catch(() => undefined));
  const hidden = [...seeds, ...(plan ? [warmupSeed({...plan, test: {...plan.test, seeds: [...seeds]}}, [...seeds])] : [])]
    .map(String)
    .sort((a, b) => b.length - a.length);
  const text = (value: string) => hidden.reduce((each, seed) => each.split(seed).join('<derived seed>'), value);
  const progress = (value: string) => text(value.replace(/^(eval \S+ test(?: \([^)]*\))?: \d+ point\(s\) x \d+ )seed\(s\)/, '$1salted seed(s)'));
  const answer = async <T>(value: T): Promise<T> => {
    // Each case's metrics without the values of the secret data, and every text that quoted them (its failure, the eval's, a side's) with it.
    const replaced = new Map<string, string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (typeof node !== 'object' || node === null) return;
      const record = node as Record<string, unknown>;
      if (typeof record.seeds === 'object' && record.seeds !== null && (record.seeds as {source?: unknown}).source === 'published')
        record.seeds = {...record.seeds, source: 'derived'};
      if (typeof record.metrics === 'object' && record.metrics !== null && !Array.isArray(record.metrics)) {
        const before = record.metrics as Record<string, unknown>;
        const after = withoutValues(before);
        if (after !== before) {
          record.metrics = after;
          if (typeof record.failure === 'string') {
            const failure = explainFailure(after);
            if (failure !== undefined && failure !== record.failure) replaced.set(record.failure, failure);
            if (failure !== undefined) record.failure = failure;
          }
        }
      }
      Object.values(record).forEach(walk);
    };
    walk(value);
    const rewrite = (node: unknown): unknown => {
      if (typeof node === 'string') return text([...replaced].reduce((each, [from, to]) => each.split(from).join(to), node));
      if (Array.isArray(node)) return node.map(rewrite);
      if (typeof node === 'object' && node !== null) return Object.fromEntries(Object.entries(node).map(([key, each]) => [key, rewrite(each)]));
      return node;
    };
    return rewrite(value) as T;
  };
  return {text, progress, answer};
}

/** Run what a request asks for. */
async function evaluate(request: EvalChildRequest, salted: Salted | undefined): Promise<EvalChildAnswer> {
  const [{loadPlan, overridePlan}, {HarnessError}] = await Promise.all([import('../benchmark/plan.js'), import('../eval/index.js')]);
  let planOverride: import('../benchmark/plan.js').PlanOverride | undefined;
  if (request.testSeeds) {
    // The derived seeds stand in for the plan's published test seeds; this process has no salt to derive them from.
    // (PlanOverride names only the cost of a run; the pipeline applies whatever it is given, which is checked here.
    // A typed variable, not a literal, carries the extra key without a cast.)
    const plan = request.plan ?? (await loadPlan(request.benchmark));
    const withSeeds: typeof planOverride & Pick<typeof plan, 'test'> = {test: {...plan.test, seeds: request.testSeeds}};
    planOverride = withSeeds;
    if (overridePlan(plan, planOverride).test.seeds !== request.testSeeds)
      throw new HarnessError('this arbor cannot hand the salted test seeds to the eval (plan override refused); the test split cannot be scored here');
  }
  // A path split derives no seed: a stand-in for the salt only brings back the pipeline's note that the salt does not apply to fixed files.
  let env: NodeJS.ProcessEnv | undefined;
  if (
    request.salted &&
    !request.testSeeds &&
    request.split === 'test' &&
    (request.plan ?? (await loadPlan(request.benchmark).catch(() => undefined)))?.splitKind === 'path'
  ) {
    const {saltVariable} = await import('../eval/index.js');
    env = {...process.env, [saltVariable]: 'withheld'};
  }
  const onProgress = (kind: 'line' | 'status', text: string) => void send({type: 'progress', kind, text: salted ? salted.progress(text) : text});
  const finish = async <T>(value: T) => (salted ? salted.answer(value) : value);
  const common = {
    benchmark: request.benchmark,
    split: request.split,
    unsandboxed: request.unsandboxed,
    keep: request.keep,
    data: request.data,
    planOverride,
    ...(request.plan ? {plan: request.plan} : {}),
    onProgress,
    ...(env ? {env} : {}),
  };
  if (request.kind === 'compare') {
    const {runComparePlanned} = await import('../compare/index.js');
    const {report, plan} = await runComparePlanned({
      ...common,
      baseline: request.baseline,
      candidate: request.candidate!,
      baselineRun: request.baselineRun,
      ledger: request.ledger,
    });
    return {type: 'compare', report: await finish(report), plan};
  }
  if (request.kind === 'calibrate') {
    const {calibratePlanned} = await import('../eval/index.js');
    const pending: Promise<void>[] = [];
    const {report, plan} = await calibratePlanned({
      ...common,
      solution: request.solution,
      runs: request.runs ?? 2,
      onEval: (k, each) => void pending.push(finish(structuredClone(each)).then((clean) => send({type: 'evaluated', k, report: clean}))),
    });
    await Promise.all(pending);
    return {type: 'calibrate', report: await finish(report), plan};
  }
  const {runSides} = await import('../eval/index.js');
  const side = request.folder !== undefined ? {label: 'solution', folder: request.folder} : {label: 'solution', solution: request.solution};
  const {reports, plan} = await runSides({...common, sides: [side]});
  return {type: 'report', report: await finish(reports[0]!), plan};
}

if (process.send) {
  // As in `arbor benchmark eval`: Node opens its inspector on SIGUSR1; a listener keeps it closed to anything that can signal this process.
  process.on('SIGUSR1', () => {});
  // The parent is gone (killed): stop the eval the way an interrupt does, runs killed and work folder removed.
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  process.once('message', (request: EvalChildRequest) => {
    void (async () => {
      let salted: Salted | undefined;
      try {
        salted = await saltedAs(request);
        await send(await evaluate(request, salted));
      } catch (error) {
        const message = describeFailure(error);
        await send({
          type: 'error',
          message: salted ? salted.text(message) : message,
          ...(error instanceof ArborError ? {code: error.code, exitCode: error.exitCode} : {}),
        });
      }
      process.removeAllListeners('disconnect');
      process.disconnect();
    })();
  });
}
