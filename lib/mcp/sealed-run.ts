/**
 * The sealed side of `submit_test` that runs in the run's own process
 * (runner.ts), so it outlives the server: the test compare alone on the
 * machine, its verdict and bucket, and at the release time the ledger record,
 * the remembered answer and the tool's result; or the answer of the run that
 * scores the same solution, or the answer the solution got before. The queued
 * compare (sealed.ts, `--sealed-queue`) shares the verdict, the bucket and
 * the record.
 */
import {mkdtemp, rm} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type {Plan} from '../benchmark/plan.js';
import type {CompareReport} from '../compare/index.js';
import type {Planned} from '../eval/index.js';
import {seedRedactor} from '../run/eval-process.js';
import {knownAnswer, rememberAnswer, type SealedAnswer} from './budget.js';
import type {NamesContext} from './paths.js';
import {type JobRequest, type SealedSpec, sealedFailure, unaliased} from './run-request.js';
import {recordCompare} from './run-results.js';
import {type McpStore, runnerAlive} from './store.js';

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

/** The verdict a sealed result carries: the gate's action for speed entries, compare's verdict for accuracy. */
export async function verdictOf(report: CompareReport, plan: Plan): Promise<string> {
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

/** What scoring a solution came to, and when it was known (before the ledger record, whose time is not the eval's). */
export type Outcome = {ok: true; answer: SealedAnswer; ready: number} | {ok: false; error: string; ready: number};

/**
 * A sealed run in its runner: scored here (the eval alone on the machine, the
 * verdict and bucket, and at the release time the ledger record and the
 * remembered answer), or the answer of the run it follows, or the answer the
 * solution got before; the tool's result at the release time.
 */
export async function sealedResult(
  ctx: NamesContext,
  store: McpStore,
  spec: {run: number; id: string; name: string; request?: JobRequest; sealed: SealedSpec; aliases: ReadonlyArray<readonly [string, string]>},
): Promise<Record<string, unknown>> {
  const {sealed} = spec;
  const outcome: Outcome = sealed.known
    ? {ok: true, answer: sealed.known, ready: sealed.startedMs}
    : sealed.follow !== undefined
      ? await followed(store, sealed)
      : await scoreHere(ctx, store, spec.run, spec.name, spec.request!, sealed, spec.aliases);
  await released(sealed.startedMs, sealed.releaseMs, outcome.ready);
  if (!outcome.ok) throw new Error(sealedFailure(spec.name));
  return {id: spec.id, name: spec.name, verdict: outcome.answer.verdict, bucket: outcome.answer.bucket, budget: sealed.budget};
}

/** Score on test here: an exclusive turn, the compare, the verdict and bucket; at the release time, the record. */
async function scoreHere(
  ctx: NamesContext,
  store: McpStore,
  run: number,
  name: string,
  request: JobRequest,
  sealed: SealedSpec,
  aliases: ReadonlyArray<readonly [string, string]>,
): Promise<Outcome> {
  const [{takeTurn, dropPageCache}, {requestPlan, runRequest}] = await Promise.all([import('./isolation.js'), import('./run-request.js')]);
  // The plan the server read for the call (its budget, its seeds): the compare runs, redacts and is recorded under it.
  const plan = await requestPlan(request);
  const redact = seedRedactor(plan, request.testSeeds);
  let scored: Planned<CompareReport> | undefined;
  let answer: SealedAnswer | undefined;
  let failure: string | undefined;
  let leave: (() => void) | undefined;
  try {
    // Held to the release time; the page cache is dropped as soon as the eval ends, inside the turn (how long that takes shows nowhere).
    leave = await takeTurn(store, run, true, {release: {from: sealed.startedMs, every: sealed.releaseMs}});
    // The plan's own repetitions and budget: the agent cannot buy a cheaper, thinner test verdict.
    const planned = await runRequest({...request, plan}, () => {});
    // The verdict and the record with the plan the compare was scored under (plan.toml is not read again).
    scored = {report: unaliased(planned.report as CompareReport, aliases), plan: planned.plan};
    dropPageCache();
    answer = {verdict: await verdictOf(scored.report, scored.plan), bucket: bucketOf(scored.report, scored.plan.metric)};
  } catch (error) {
    failure = redact((error as Error).message);
  }
  // When the eval ended, for the overrun rule (released): taken before the record waits for the release time.
  const ready = Date.now();
  try {
    return await settle(ctx, name, scored, answer, failure, sealed, (change) => store.exclusive(change), ready);
  } finally {
    // The turn is held to the release time, however soon the eval ended: a dev eval waiting for it starts then, so when
    // it starts says nothing of when the test eval ended. The candidate chooses that time (a solution can sleep on a
    // case as a function of the secret case), so a turn given up at the eval's end would carry test data out in
    // timing. The period is proportionate to the entry's sealed eval (release.ts), which keeps this wait short.
    leave?.();
  }
}

/** At the release time (so not even the ledger's next run id tells when the eval ended): the record and the remembered answer, or the reason on stderr. */
export async function settle(
  ctx: NamesContext,
  name: string,
  scored: Planned<CompareReport> | undefined,
  answer: SealedAnswer | undefined,
  failure: string | undefined,
  sealed: SealedSpec,
  lock: <T>(change: () => T) => T,
  ready = Date.now(),
): Promise<Outcome> {
  await released(sealed.startedMs, sealed.releaseMs, ready);
  try {
    if (scored && answer) {
      await recordCompare(ctx, scored.report, scored.plan, sealed.label);
      return {ok: true, answer: await rememberAnswer(sealed.budgetFile, sealed.planName, sealed.digest, answer, lock), ready};
    }
  } catch (error) {
    failure = (error as Error).message;
  }
  process.stderr.write(`arbor mcp: submit_test of ${name} (solution ${sealed.digest.slice(0, 12)}) gave no verdict: ${failure ?? 'no report'}\n`);
  return {ok: false, error: failure ?? 'no report', ready};
}

/**
 * The answer of the run scoring the same solution, once it ended (from the budget file, where it keeps
 * its answer). Ready when the leader ended (its row's last update, the finish), not when this poll saw
 * it: a follower started within one poll of its leader would otherwise miss its own release time by
 * that poll and be answered a whole period late. The leader ends at its own fixed release time, so
 * this says nothing of its eval.
 */
async function followed(store: McpStore, sealed: SealedSpec): Promise<Outcome> {
  let ended = Date.now();
  for (;;) {
    const leader = store.run(sealed.follow!);
    ended = leader && leader.status !== 'running' ? Math.min(Date.now(), Date.parse(leader.updated) || Date.now()) : Date.now();
    if (!leader || leader.status !== 'running' || !runnerAlive(leader)) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const answer = knownAnswer(sealed.budgetFile, sealed.planName, sealed.digest);
  return answer ? {ok: true, answer, ready: ended} : {ok: false, error: 'the run it followed gave no verdict', ready: ended};
}
