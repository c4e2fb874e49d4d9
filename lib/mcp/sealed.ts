/**
 * `submit_test`: the sealed test evaluation. The solution is compared with
 * the entry's own solution on the test split (seeds derived from the server's
 * salt: ARBOR_TEST_SALT, else its own, see salt.ts); the whole comparison goes
 * to the zoo's ledger, for the owner (`arbor benchmark runs --split test`), and
 * the tool answers only a verdict, a coarse bucket and the budget count: never
 * the score, the cases or the seeds. Every call counts against the plan's
 * test_budget (past it the tool refuses); a solution already scored gets the
 * answer it got the first time, without a rerun; and every answer, cached or
 * not, verdict or failure, is released at a fixed time after the call started
 * (the entry's release time: the server's `--sealed-release`, else the plan's
 * time_limit, the bound the eval itself enforces), so a call's duration says
 * nothing of the eval. The scoring, the wait and the record happen in the
 * run's own process (runner.ts), which outlives the server. With
 * `--sealed-queue` the compare runs on an `arbor benchmark worker` (its own
 * zoo, salt and machine: lib/run/compare-queue.ts), and everything else stays
 * in the server.
 */
import {mkdtemp, readFile, rm} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {statSync} from 'node:fs';
import type {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js';
import {z} from 'zod';
import {RefusedError} from '../errors.js';
import type {CompareReport} from '../compare/index.js';
import type {Plan} from '../benchmark/plan.js';
import {derivedTestSeeds, seedRedactor} from '../run/eval-process.js';
import {budgetFile, knownAnswer, rememberAnswer, reserveCall, type SealedAnswer} from './budget.js';
import {longCallInput, type LongTool, registerLongTool} from './calls.js';
import type {NamesContext, ServerContext} from './context.js';
import {recordCompare, resolveSolution} from './evaluate.js';
import type {JobRequest, SealedSpec} from './runner.js';
import {runnerAlive} from './jobs.js';
import type {McpStore} from './store.js';

/** The coarse buckets of candidate/baseline a sealed result may say (edges in x). */
export const buckets = ['failed', '<0.5x', '0.5-0.9x', '0.9-1.1x', '1.1-2x', '2-10x', '>=10x'] as const;

/** Case statuses whose answer the verifier scored (right or wrong); the others (crashed, timeout, no-answer, not-run, tampered) gave none. */
const scorable = new Set(['ok', 'failed']);

/**
 * The bucket of a test comparison: its ratio's range, or `failed`. Speedup:
 * failed when the candidate fails a case (or there is no ratio). Accuracy,
 * where a partial-credit task's cases fail on both sides as a matter of course:
 * failed only when there is no ratio, or the candidate gave no scorable answer
 * on a case where the baseline gave one.
 */
export function bucketOf(
  report: Pick<CompareReport, 'ratio' | 'correctness'> & {cases?: Pick<CompareReport['cases'][number], 'baseline' | 'candidate'>[]},
  metric: Plan['metric'] = 'speedup',
): (typeof buckets)[number] {
  const ratio = report.ratio;
  if (ratio === null || !Number.isFinite(ratio)) return 'failed';
  if (metric === 'accuracy') {
    if ((report.cases ?? []).some((c) => !scorable.has(c.candidate.status) && scorable.has(c.baseline.status))) return 'failed';
  } else if (report.correctness.some((c) => c.failing !== 'baseline')) return 'failed';
  const edges: Array<[number, (typeof buckets)[number]]> = [
    [0.5, '<0.5x'],
    [0.9, '0.5-0.9x'],
    [1.1, '0.9-1.1x'],
    [2, '1.1-2x'],
    [10, '2-10x'],
  ];
  return edges.find(([edge]) => ratio < edge)?.[1] ?? '>=10x';
}

/** The digest the ledger will give the solution (its editable files), to tell a new solution from one already scored. */
async function digestOf(plan: Plan, solution: string): Promise<string> {
  const {solutionDigest} = await import('../ledger/digest.js');
  const folder = statSync(solution).isDirectory();
  const files = [];
  for (const rel of plan.editable) {
    const file = folder ? path.join(solution, rel) : path.join(plan.dir, rel) === plan.solution ? solution : path.join(plan.dir, rel);
    const bytes = await readFile(file).catch(() => undefined);
    if (bytes) files.push({path: rel, bytes});
  }
  return solutionDigest(files);
}

/** The verdict a sealed result carries: the gate's action for speed entries, compare's verdict for accuracy. */
async function verdictOf(report: CompareReport, plan: Plan): Promise<string> {
  if (plan.metric !== 'speedup') return report.verdict;
  const {writePackage} = await import('../compare/index.js');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-mcp-package-'));
  try {
    return (await writePackage(dir, report, plan)).action;
  } finally {
    await rm(dir, {recursive: true, force: true});
  }
}

/**
 * Seconds from a call's start to its answer: the server's release time, else
 * the entry's own: twice the compare's budget of repetitions
 * (`max_seconds` x 1.5 for two sides, as the pipeline's budgetSeconds) plus a
 * minute for making, verifying and starting, rounded up to 30 s, at least 60 s
 * and at most the plan's time_limit (the bound the eval enforces on itself).
 * An eval past it is released at the next multiple (released below).
 */
export function releaseSeconds(ctx: ServerContext, plan: Plan): number {
  if (ctx.sealedRelease !== undefined) return ctx.sealedRelease;
  const compareBudget = (plan.maxSeconds * 3) / 2;
  return Math.min(plan.timeLimit, Math.max(60, Math.ceil((2 * compareBudget + 60) / 30) * 30));
}

/**
 * Wait until the answer's release: `started` plus the release time; an answer
 * that was ready only after it (`ready`: an eval that overran on a loaded
 * machine) is released at the next multiple of it, so a duration can only
 * ever say how many release times passed.
 */
export async function released(started: number, ms: number, ready: number): Promise<void> {
  const periods = Math.max(1, Math.ceil((ready - started) / ms));
  const wait = started + periods * ms - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/** How long a queued compare may wait for a worker, on top of its entry's time_limit, before its call fails. */
export const queueWaitSeconds = 900;

/** What scoring a solution came to, and when it was known (before the ledger record, whose time is not the eval's). */
type Outcome = {ok: true; answer: SealedAnswer; ready: number} | {ok: false; error: string; ready: number};

/** The one text of every failed sealed answer: why it failed is the owner's (the log), not a channel. */
export function sealedFailure(name: string): string {
  return `submit_test: the test eval of ${name} gave no verdict (this submission counted; the owner finds why in the server's log)`;
}

/** The key of a solution's scoring: a second call for it while it is scored follows the first. */
function scoringKey(planName: string, digest: string): string {
  return `${planName}\0${digest}`;
}

/** Register `submit_test`. */
export function registerSealed(server: McpServer, ctx: ServerContext): void {
  const description =
    "The sealed test evaluation: the solution is compared with the entry's own solution on the test split. The answer is only a verdict (PASS, REVIEW, BLOCK or INCOMPARABLE from the gate for speedup benchmarks; better, same or worse for accuracy), a coarse bucket of candidate over baseline (a speed ratio for speedup benchmarks; for accuracy, the ratio of the two scores) and the test budget count: never the score, the cases or the seeds (the full result goes to the ledger, for the owner). It costs budget: every call counts against the benchmark's test_budget, a resubmitted solution too (which gets the answer it got the first time, without a rerun); past it the tool refuses. Choose between solutions with compare on dev first. Every answer comes at the same fixed time after the call (the entry's release time, often a minute or more), however long the eval took: call it as a task, or with background and poll get_run. Cancelling does not stop the eval.";
  const shape = {
    name: z.string().optional().describe('The benchmark (default: the one the workspace was checked out from)'),
    solution: z.string().describe('A solution file or a workspace folder'),
    ...longCallInput,
  };
  const start: LongTool<typeof shape>['start'] = async (input, task) => {
    const started = Date.now();
    const {name, benchmark, path: solution} = await resolveSolution(ctx, {name: input.name, solution: input.solution});
    const [{loadPlan}, {ledgerPathFor}] = await Promise.all([import('../benchmark/plan.js'), import('../ledger/location.js')]);
    const plan = await loadPlan(benchmark);
    const digest = await digestOf(plan, solution!);
    const file = budgetFile(ledgerPathFor(plan.dir, ctx.env, ctx.zoo));
    const {refused, used, answer: known} = await reserveCall(file, plan.name, plan.testBudget, digest, (change) => ctx.store.exclusive(change));
    if (refused) {
      throw new RefusedError(
        `submit_test: the test split of ${name} has answered ${used} submissions (every call counts, a resubmitted solution too), its test_budget of ${plan.testBudget} is spent: choose between solutions on dev with compare`,
        'budget',
      );
    }
    const releaseMs = releaseSeconds(ctx, plan) * 1000;
    const budget = {used, of: plan.testBudget};
    const sealed = {budgetFile: file, planName: plan.name, digest, startedMs: started, releaseMs, budget};
    if (ctx.sealedQueue && !known)
      return ctx.runs.track('submit_test', () => queued(ctx, {name, benchmark, plan, solution: solution!, ...sealed}), {sealed: true, task});
    const key = scoringKey(plan.name, digest);
    // Derived here, where the salt is: the runner gets the seeds, never the salt.
    const testSeeds = known ? undefined : await derivedTestSeeds(plan, 'test', ctx.env);
    // Lead or follow, decided under the store's lock: two servers never both score one solution.
    const {id, leader} = ctx.store.exclusive(() => {
      const running = known ? undefined : ctx.store.runningWithKey(key);
      return {leader: running, id: ctx.runs.create('submit_test', {sealed: true, key: known || running ? null : key, task})};
    });
    const scores = !known && !leader;
    const request = scores
      ? {kind: 'compare' as const, benchmark, split: 'test' as const, baseline: plan.solution, candidate: solution!, testSeeds}
      : undefined;
    return ctx.runs.start(id, {tool: 'submit_test', name, request, sealed: {...sealed, ...(leader ? {follow: leader.id} : {}), ...(known ? {known} : {})}});
  };
  registerLongTool(server, ctx, 'submit_test', {
    title: 'Submit a solution to the sealed test split',
    description,
    inputSchema: shape,
    outputSchema: {
      id: z.string(),
      status: z.literal('running').optional(),
      name: z.string().optional(),
      verdict: z.enum(['PASS', 'REVIEW', 'BLOCK', 'INCOMPARABLE', 'better', 'same', 'worse']).optional(),
      bucket: z.enum(buckets).optional(),
      budget: z.object({used: z.number(), of: z.number()}).optional(),
    },
    start,
  });
}

/**
 * A sealed run in its runner: scored here (the eval alone on the machine, the
 * verdict and bucket, and at the release time the ledger record and the
 * remembered answer), or the answer of the run it follows, or the answer the
 * solution got before; the tool's result at the release time.
 */
export async function sealedResult(
  ctx: NamesContext,
  store: McpStore,
  spec: {run: number; name: string; request?: JobRequest; sealed: SealedSpec},
): Promise<Record<string, unknown>> {
  const {sealed} = spec;
  const outcome: Outcome = sealed.known
    ? {ok: true, answer: sealed.known, ready: sealed.startedMs}
    : sealed.follow !== undefined
      ? await followed(store, sealed)
      : await scoreHere(ctx, store, spec.run, spec.name, spec.request!, sealed);
  await released(sealed.startedMs, sealed.releaseMs, outcome.ready);
  if (!outcome.ok) throw new Error(sealedFailure(spec.name));
  return {id: `run-${spec.run}`, name: spec.name, verdict: outcome.answer.verdict, bucket: outcome.answer.bucket, budget: sealed.budget};
}

/** Score on test here: an exclusive turn, the compare, the verdict and bucket; at the release time, the record. */
async function scoreHere(ctx: NamesContext, store: McpStore, run: number, name: string, request: JobRequest, sealed: SealedSpec): Promise<Outcome> {
  const [{loadPlan}, {takeTurn}, {runRequest}] = await Promise.all([import('../benchmark/plan.js'), import('./isolation.js'), import('./runner.js')]);
  const plan = await loadPlan(request.benchmark);
  const redact = seedRedactor(plan, request.testSeeds);
  let report: CompareReport | undefined;
  let answer: SealedAnswer | undefined;
  let failure: string | undefined;
  try {
    const leave = await takeTurn(store, run, true);
    try {
      // The plan's own repetitions and budget: the agent cannot buy a cheaper, thinner test verdict.
      report = (await runRequest(request, () => {})) as CompareReport;
    } finally {
      leave();
    }
    answer = {verdict: await verdictOf(report, plan), bucket: bucketOf(report, plan.metric)};
  } catch (error) {
    failure = redact((error as Error).message);
  }
  return settle(ctx, name, report, answer, failure, sealed, (change) => store.exclusive(change));
}

/** At the release time (so not even the ledger's next run id tells when the eval ended): the record and the remembered answer, or the reason on stderr. */
async function settle(
  ctx: NamesContext,
  name: string,
  report: CompareReport | undefined,
  answer: SealedAnswer | undefined,
  failure: string | undefined,
  sealed: SealedSpec,
  lock: <T>(change: () => T) => T,
): Promise<Outcome> {
  const ready = Date.now();
  await released(sealed.startedMs, sealed.releaseMs, ready);
  try {
    if (report && answer) {
      await recordCompare(ctx, report);
      return {ok: true, answer: await rememberAnswer(sealed.budgetFile, sealed.planName, sealed.digest, answer, lock), ready};
    }
  } catch (error) {
    failure = (error as Error).message;
  }
  process.stderr.write(`arbor mcp: submit_test of ${name} (solution ${sealed.digest.slice(0, 12)}) gave no verdict: ${failure ?? 'no report'}\n`);
  return {ok: false, error: failure ?? 'no report', ready};
}

/** The answer of the run scoring the same solution, once it ended (from the budget file, where it keeps its answer). */
async function followed(store: McpStore, sealed: SealedSpec): Promise<Outcome> {
  for (;;) {
    const leader = store.run(sealed.follow!);
    if (!leader || leader.status !== 'running' || !runnerAlive(leader)) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const answer = knownAnswer(sealed.budgetFile, sealed.planName, sealed.digest);
  return answer ? {ok: true, answer, ready: Date.now()} : {ok: false, error: 'the run it followed gave no verdict', ready: Date.now()};
}

/** A queued sealed compare (--sealed-queue): on a worker; this server waits for it, tracks the run and answers at the release time. */
async function queued(
  ctx: ServerContext,
  call: SealedSpec & {name: string; benchmark: string; plan: Plan; solution: string},
): Promise<Record<string, unknown>> {
  let report: CompareReport | undefined;
  let answer: SealedAnswer | undefined;
  let failure: string | undefined;
  try {
    // On a queue worker (--sealed-queue): its own zoo, salt and machine; this one runs nothing of it.
    const waitMs = (call.plan.timeLimit + queueWaitSeconds) * 1000;
    report = (
      await ctx.sealedQueue!.compare({
        entry: path.basename(call.benchmark),
        plan: call.plan,
        split: 'test',
        candidate: call.solution,
        digest: call.digest,
        waitMs,
      })
    ).report;
    answer = {verdict: await verdictOf(report, call.plan), bucket: bucketOf(report, call.plan.metric)};
  } catch (error) {
    failure = (error as Error).message;
  }
  const outcome = await settle(ctx, call.name, report, answer, failure, call, (change) => ctx.store.exclusive(change));
  if (!outcome.ok) throw new Error(sealedFailure(call.name));
  return {name: call.name, verdict: outcome.answer.verdict, bucket: outcome.answer.bucket, budget: call.budget};
}
