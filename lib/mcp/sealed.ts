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
 * (the entry's release period, release.ts: the server's `--sealed-release`,
 * else derived from the entry's cost, never the candidate's), so a call's duration says
 * nothing of the eval. The scoring, the wait and the record happen in the
 * run's own process (runner.ts), which outlives the server. With
 * `--sealed-queue` the compare runs on an `arbor benchmark worker` (its own
 * zoo, salt and machine: lib/run/compare-queue.ts), and everything else stays
 * in the server.
 */
import {rmSync} from 'node:fs';
import {readFile} from 'node:fs/promises';
import path from 'node:path';
import {statSync} from 'node:fs';
import type {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js';
import {z} from 'zod';
import {RefusedError} from '../errors.js';
import type {CompareReport} from '../compare/index.js';
import type {Plan} from '../benchmark/plan.js';
import {derivedTestSeeds} from '../run/eval-process.js';
import {budgetFile, knownAnswer, reserveCall, type SealedAnswer} from './budget.js';
import {longCallInput, type LongTool, registerLongTool} from './calls.js';
import type {ServerContext} from './context.js';
import {copiesOf, labelArgument, labelInput, resolveSolution} from './evaluate.js';
import {entryReleaseSeconds} from './release.js';
import {heartbeatMs, type TaskOptions} from './jobs.js';
import type {SealedSpec} from './run-request.js';
import {sealedFailure, unaliased} from './run-request.js';
import {bucketOf, buckets, settle, verdictOf} from './sealed-run.js';
import type {Snapshot} from './snapshot.js';
import {sealedLock} from './session.js';
import {runnerAlive} from './store.js';

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

/** How long a queued compare may wait for a worker, on top of its entry's time_limit, before its call fails. */
const queueWaitSeconds = 900;

/** The key of a solution's scoring: a second call for it while it is scored follows the first. */
function scoringKey(planName: string, digest: string): string {
  return `${planName}\0${digest}`;
}

/** A submit_test call past its checks: counted, then answered by a run (scored, following another, or the answer known). */
async function submit(
  ctx: ServerContext,
  call: {name: string; benchmark: string; plan: Plan; snapshot: Snapshot; started: number; task: TaskOptions | null; label?: string},
): Promise<number> {
  // The plan read for the call's snapshot: its budget, seeds and release time, and the run's compare and record (JobRequest.plan).
  const {name, benchmark, plan, snapshot, started, task, label} = call;
  const {ledgerPathFor} = await import('../ledger/location.js');
  const digest = await digestOf(plan, snapshot.path);
  const file = budgetFile(ledgerPathFor(plan.dir, ctx.env, ctx.zoo));
  // The session's --max-sealed is checked and counted under the same lock as the entry's test_budget (session.ts).
  const lock = sealedLock(ctx.store, ctx.workspaces, ctx.limits);
  const {refused, used, answer: reserved} = await reserveCall(file, plan.name, plan.testBudget, digest, lock);
  if (refused) {
    throw new RefusedError(
      `submit_test: the test split of ${name} has answered ${used} submissions (every call counts, a resubmitted solution too), its test_budget of ${plan.testBudget} is spent: choose between solutions on dev with compare`,
      'budget',
    );
  }
  const releaseMs = (await entryReleaseSeconds(ctx, plan)) * 1000;
  const sealed = {
    budgetFile: file,
    planName: plan.name,
    digest,
    startedMs: started,
    releaseMs,
    budget: {used, of: plan.testBudget},
    ...(label === undefined ? {} : {label}),
  };
  const copies = copiesOf(snapshot);
  if (ctx.sealedQueue && !reserved) {
    const work = () =>
      queued(ctx, {name, benchmark, plan, solution: snapshot.path, aliases: copies.aliases, ...sealed}).finally(() =>
        rmSync(snapshot.scratch, {recursive: true, force: true}),
      );
    return ctx.runs.track('submit_test', work, {sealed: true, name, task, release: {from: started, every: releaseMs}});
  }
  const key = scoringKey(plan.name, digest);
  // Derived here, where the salt is: the runner gets the seeds, never the salt.
  const testSeeds = await derivedTestSeeds(plan, 'test', ctx.env);
  // Known, lead or follow, decided in one block under the store's lock (where answers are remembered too):
  // a solution is scored once, and a leader whose process is gone is not followed.
  const {id, known, leader} = ctx.store.exclusive(() => {
    const answer = reserved ?? knownAnswer(file, plan.name, digest);
    const running = answer ? undefined : ctx.store.runningWithKey(key);
    const alive = running && runnerAlive(running) ? running : undefined;
    const release = {from: started, every: releaseMs};
    return {known: answer, leader: alive, id: ctx.runs.create('submit_test', {sealed: true, name, key: answer || alive ? null : key, task, release})};
  });
  const request =
    !known && !leader
      ? {kind: 'compare' as const, benchmark, split: 'test' as const, baseline: plan.solution, candidate: snapshot.path, testSeeds, plan}
      : undefined;
  return ctx.runs.start(id, {
    tool: 'submit_test',
    name,
    request,
    ...copies,
    sealed: {...sealed, ...(leader ? {follow: leader.id} : {}), ...(known ? {known} : {})},
  });
}

/** Register `submit_test`. */
export function registerSealed(server: McpServer, ctx: ServerContext): void {
  const description = `The sealed test evaluation: the solution is compared with the entry's own solution on the test split. The answer is only a verdict (PASS, REVIEW, BLOCK or INCOMPARABLE from the gate for speedup benchmarks; better, same or worse for accuracy), a coarse bucket of candidate over baseline (a speed ratio for speedup benchmarks; for accuracy, the ratio of the two scores) and the test budget count: never the score, the cases or the seeds (the full result goes to the ledger, for the owner). It costs budget: every call counts against the benchmark's test_budget, a resubmitted solution too (which gets the answer it got the first time, without a rerun); past it the tool refuses. Choose between solutions with compare on dev first. Every answer comes at the same fixed time after the call, however long the eval took: see get_benchmark's sealedAnswerSeconds (the first progress message says the time: answer at HH:MM:SS, in N s). A client whose tool calls time out sooner has two ways: call it as an MCP task, or as a plain call with a progress token and a timeout that progress resets (a progress notification comes every ${heartbeatMs / 1000} s); or pass background: true and poll get_run with the id until its status is done. Cancelling does not stop the eval.`;
  const shape = {
    name: z.string().optional().describe('The benchmark (default: the one the workspace was checked out from)'),
    solution: z.string().describe('A solution file or a workspace folder'),
    label: labelInput,
    ...longCallInput,
  };
  const start: LongTool<typeof shape>['start'] = async (input, task) => {
    const started = Date.now();
    const label = labelArgument(input);
    // The solution is taken now (snapshot.ts): its digest and its run are of these bytes, whatever the workspace holds later.
    const {name, benchmark, snapshot, plan} = await resolveSolution(ctx, {name: input.name, solution: input.solution});
    try {
      return await submit(ctx, {name, benchmark, plan: plan!, snapshot: snapshot!, started, task, ...label});
    } catch (error) {
      rmSync(snapshot!.scratch, {recursive: true, force: true});
      throw error;
    }
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

/** A queued sealed compare (--sealed-queue): on a worker; this server waits for it, tracks the run and answers at the release time. */
async function queued(
  ctx: ServerContext,
  call: SealedSpec & {name: string; benchmark: string; plan: Plan; solution: string; aliases: Array<[string, string]>},
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
    report = unaliased(report, call.aliases);
    answer = {verdict: await verdictOf(report, call.plan), bucket: bucketOf(report, call.plan.metric)};
  } catch (error) {
    failure = (error as Error).message;
  }
  const scored = report ? {report, plan: call.plan} : undefined;
  const outcome = await settle(ctx, call.name, scored, answer, failure, call, (change) => ctx.store.exclusive(change));
  if (!outcome.ok) throw new Error(sealedFailure(call.name));
  return {name: call.name, verdict: outcome.answer.verdict, bucket: outcome.answer.bucket, budget: call.budget};
}
