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
 * nothing of the eval. With `--sealed-queue` the compare runs on an `arbor
 * benchmark worker` (its own zoo, salt and machine: lib/run/compare-queue.ts),
 * and everything else stays here.
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
import {saltVariable} from '../eval/seeds.js';
import {derivedTestSeeds, evalEnvironment, seedRedactor} from '../run/eval-process.js';
import {budgetFile, rememberAnswer, reserveCall, type SealedAnswer} from './budget.js';
import {awaitJob, longCallInput, progressTo} from './calls.js';
import type {ServerContext} from './context.js';
import {recordCompare, resolveSolution} from './evaluate.js';
import {toolResult} from './result.js';

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
async function released(started: number, ms: number, ready: number): Promise<void> {
  const periods = Math.max(1, Math.ceil((ready - started) / ms));
  const wait = started + periods * ms - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/** How long a queued compare may wait for a worker, on top of its entry's time_limit, before its call fails. */
export const queueWaitSeconds = 900;

/** What scoring a solution came to, and when it was known (before the ledger record, whose time is not the eval's). */
type Outcome = {ok: true; answer: SealedAnswer; ready: number} | {ok: false; error: string; ready: number};

/** Register `submit_test`. */
export function registerSealed(server: McpServer, ctx: ServerContext): void {
  /** Evals under way, by entry and digest: a second call for the same solution waits on the first's, never reruns it. */
  const scoring = new Map<string, Promise<Outcome>>();
  server.registerTool(
    'submit_test',
    {
      title: 'Submit a solution to the sealed test split',
      description:
        "The sealed test evaluation: the solution is compared with the entry's own solution on the test split. The answer is only a verdict (PASS, REVIEW, BLOCK or INCOMPARABLE from the gate for speedup benchmarks; better, same or worse for accuracy), a coarse bucket of the ratio and the test budget count: never the score, the cases or the seeds (the full result goes to the ledger, for the owner). Every call counts against the benchmark's test_budget, a resubmitted solution too (which gets the answer it got the first time, without a rerun); past it the tool refuses. Every answer comes at the same fixed time after the call (the entry's release time), however long the eval took; cancelling the call does not stop the eval.",
      inputSchema: {
        name: z.string().optional().describe('The benchmark (default: the one the workspace was checked out from)'),
        solution: z.string().describe('A solution file or a workspace folder'),
        ...longCallInput,
      },
      outputSchema: {
        id: z.string(),
        status: z.literal('running').optional(),
        name: z.string().optional(),
        verdict: z.enum(['PASS', 'REVIEW', 'BLOCK', 'INCOMPARABLE', 'better', 'same', 'worse']).optional(),
        bucket: z.enum(buckets).optional(),
        budget: z.object({used: z.number(), of: z.number()}).optional(),
      },
    },
    async (input, extra) => {
      const started = Date.now();
      const {name, benchmark, path: solution} = await resolveSolution(ctx, {name: input.name, solution: input.solution});
      const [{loadPlan}, {ledgerPathFor}] = await Promise.all([import('../benchmark/plan.js'), import('../ledger/location.js')]);
      const plan = await loadPlan(benchmark);
      const digest = await digestOf(plan, solution!);
      const file = budgetFile(ledgerPathFor(plan.dir, ctx.env, ctx.zoo));
      const {refused, used, answer: known} = await reserveCall(file, plan.name, plan.testBudget, digest);
      if (refused) {
        throw new RefusedError(
          `submit_test: the test split of ${name} has answered ${used} submissions (every call counts, a resubmitted solution too), its test_budget of ${plan.testBudget} is spent: choose between solutions on dev with compare`,
          'budget',
        );
      }
      const releaseMs = releaseSeconds(ctx, plan) * 1000;
      const key = `${plan.name}\0${digest}`;
      let outcome = known ? Promise.resolve<Outcome>({ok: true, answer: known, ready: started}) : scoring.get(key);
      if (!outcome) {
        outcome = score(ctx, {name, benchmark, plan, solution: solution!, digest, file, started, releaseMs});
        scoring.set(key, outcome);
        void outcome.finally(() => scoring.delete(key));
      }
      let id = '';
      const work = (async () => {
        const settled = await outcome!;
        await released(started, releaseMs, settled.ready);
        // The same text for every failure: why it failed is the owner's (the server's stderr), not a channel.
        if (!settled.ok)
          throw new Error(`submit_test: the test eval of ${name} gave no verdict (this submission counted; the owner finds why in the server's log)`);
        return {id, name, verdict: settled.answer.verdict, bucket: settled.answer.bucket, budget: {used, of: plan.testBudget}};
      })();
      const job = ctx.jobs.track('submit_test', work, {sealed: true, onProgress: progressTo(extra)});
      id = job.id;
      return toolResult(await awaitJob(job, extra, input.background));
    },
  );
}

/**
 * Score a solution on test (once per digest): the eval in its own process
 * without the salt (with --sealed-queue, on a queue worker instead), the
 * verdict and bucket, and (at the first call's release time, so not even the
 * ledger's next run id tells when the eval ended) the ledger record and the
 * remembered answer.
 */
async function score(
  ctx: ServerContext,
  call: {name: string; benchmark: string; plan: Plan; solution: string; digest: string; file: string; started: number; releaseMs: number},
): Promise<Outcome> {
  const {name, benchmark, plan, solution, digest, file} = call;
  let report: CompareReport | undefined;
  let answer: SealedAnswer | undefined;
  let failure: string | undefined;
  let redact = (text: string) => text;
  try {
    if (ctx.sealedQueue) {
      // On a queue worker (--sealed-queue): its own zoo, salt and machine; this one runs nothing of it.
      const waitMs = (plan.timeLimit + queueWaitSeconds) * 1000;
      report = (await ctx.sealedQueue.compare({entry: path.basename(benchmark), plan, split: 'test', candidate: solution, digest, waitMs})).report;
    } else {
      const testSeeds = await derivedTestSeeds(plan, 'test', ctx.env);
      const salt = ctx.env[saltVariable];
      const blank = seedRedactor(plan, testSeeds);
      redact = (text: string) => blank(salt ? text.split(salt).join('<salt>') : text);
      // The plan's own repetitions and budget: the agent cannot buy a cheaper, thinner test verdict.
      const request = {kind: 'compare' as const, benchmark, split: 'test' as const, baseline: plan.solution, candidate: solution, testSeeds};
      const message = await ctx.jobs.fork(request, {env: evalEnvironment(ctx.env), sealed: true}).answer;
      report = (message as {report: CompareReport}).report;
    }
    answer = {verdict: await verdictOf(report, plan), bucket: bucketOf(report, plan.metric)};
  } catch (error) {
    failure = redact((error as Error).message);
  }
  const ready = Date.now();
  await released(call.started, call.releaseMs, ready);
  try {
    if (report && answer) return {ok: true, answer: await recordAndRemember(ctx, report, file, plan.name, digest, answer), ready};
  } catch (error) {
    failure = redact((error as Error).message);
  }
  process.stderr.write(`arbor mcp: submit_test of ${name} (solution ${digest.slice(0, 12)}) gave no verdict: ${failure ?? 'no report'}\n`);
  return {ok: false, error: failure ?? 'no report', ready};
}

/** The test run to the ledger (for the owner), the answer to the budget file (for the next call of the same digest). */
async function recordAndRemember(
  ctx: ServerContext,
  report: CompareReport,
  file: string,
  name: string,
  digest: string,
  answer: SealedAnswer,
): Promise<SealedAnswer> {
  await recordCompare(ctx, report);
  return rememberAnswer(file, name, digest, answer);
}
