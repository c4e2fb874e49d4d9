/**
 * The runs of a point's repetitions: each opened from a spec in the sandbox
 * (lib/sandbox openRun), served once or kept across repetitions (frozen
 * between them) where every repetition draws fresh cases, the next one
 * started ahead of its turn, a compare's two sides paired by run or by case.
 * The eval decides which run serves which cases; the sandbox spawns, times and
 * checks them.
 */
import path from 'node:path';
import {
  clockSlowdown,
  countInstructions,
  openRun,
  releaseRun,
  settlingWarmup,
  startFailure,
  type CaseInput,
  type RunOutcome,
  type RunService,
  type WarmupRule,
} from '../sandbox/index.js';
import {UsageError} from '../errors.js';
import {HarnessError} from './errors.js';
import type {EvalContext, KeptRun, PreparedRun, RunFiles} from './context.js';
import {servedCases, type MadePoint} from './point-make.js';
import {drawsFreshCases} from './seeds.js';

/** How side s is called in progress lines: its label in a compare, else `solution`. */
export function sideName(ctx: EvalContext, s: number): string {
  return ctx.sides.length > 1 ? ctx.sides[s]!.label : 'solution';
}

/** The limits of side s's cases in repetition `rep`, and whether they are judged again once the reference ran on them. */
export interface SideLimits {
  limitFor: (i: number) => number;
  judgedBefore: boolean;
}

/**
 * Open a run of `files` (reference or solution) from the eval's spec, not yet given a point:
 * Python and numpy load on the CPUs beside the eval's.
 */
function prepareRun(ctx: EvalContext, files: RunFiles): PreparedRun {
  const opened = openRun({
    sandbox: ctx.sandbox,
    bwrap: ctx.bwrap,
    python: ctx.python,
    runner: ctx.runner,
    solution: files,
    folder: path.join(ctx.tmp, 'runs'),
    id: ctx.runCount++,
    confinement: ctx.confinement,
    limits: ctx.limits,
    cpu: ctx.cpu,
    clock: ctx.clock,
    valgrind: ctx.valgrind,
    initTimeout: ctx.plan.initTimeout,
  });
  ctx.report.cgroup &&= opened.grouped;
  return {...opened, files};
}

/** End the runs kept across repetitions and the run started ahead of its turn: the point's repetitions ended. */
export async function endPointRuns(ctx: EvalContext): Promise<void> {
  const kept = [...(ctx.kept?.values() ?? [])];
  ctx.kept?.clear();
  for (const each of kept) await closeKept(each);
  await dropRunAhead(ctx);
}

/** End the run started ahead of its turn, if any: the repetitions ended before it. */
async function dropRunAhead(ctx: EvalContext): Promise<void> {
  const ahead = ctx.runAhead;
  ctx.runAhead = undefined;
  if (!ahead) return;
  ahead.process.cancel();
  await releaseRun(ahead);
}

/**
 * One sandboxed run of the reference or the solution over the point's cases.
 * `next`, the run that follows, is started now (in the sandbox): its Python and numpy load
 * while this run loads its solution and warms up, and this run's timed cases
 * wait until that is done, so nothing else of the eval runs while a case is
 * timed (except under the instructions clock, which other processes cannot move).
 */
export async function runOnce(
  ctx: EvalContext,
  made: MadePoint,
  rep: number,
  files: RunFiles,
  caseTimeout: (i: number) => number,
  next?: RunFiles,
  options: Pick<RunService, 'warmup' | 'nullCases' | 'secretCases'> = {},
): Promise<RunOutcome> {
  const remaining = ctx.deadline();
  if (remaining <= 0) throw new HarnessError(`the eval ran past its time_limit of ${ctx.plan.timeLimit} s (plan.toml)`, 'time-limit');
  if (keepsRuns(ctx)) {
    const outcome = await runKept(ctx, made, rep, files, caseTimeout, remaining, options);
    if (outcome) return outcome;
  }
  let prepared = ctx.runAhead?.files === files ? ctx.runAhead : undefined;
  if (prepared) ctx.runAhead = undefined;
  else await dropRunAhead(ctx);
  prepared ??= prepareRun(ctx, files);
  // Only a sandboxed run may wait beside a solution's: without one, the solution could reach the
  // waiting process (the next reference, say) and slow its timed cases down.
  if (next && ctx.sandbox === 'bwrap') ctx.runAhead = prepareRun(ctx, next);
  // The warm-up case may be called up to maxCalls times, and null cases take the warm-up's limit.
  const calls = (c: CaseInput) => (c.i < 0 ? (options.warmup?.maxCalls ?? 1) + (options.nullCases ?? 0) : 1);
  const cases = servedCases(made, rep);
  const caseSum = cases.reduce((total, c) => total + calls(c) * caseTimeout(c.i), 0);
  const initTimeout = ctx.plan.initTimeout * clockSlowdown(ctx.clock);
  const outcome = await prepared.process.serve({
    point: made.point,
    signature: made.signature,
    resultBytes: made.resultBytes,
    cases,
    caseTimeout,
    totalTimeout: Math.min(2 * initTimeout + caseSum, remaining),
    cpu: ctx.cpu,
    checkCpu: ctx.clock === 'cpu',
    quiet: ctx.clock === 'instructions' ? undefined : ctx.runAhead?.process.started,
    nonces: ctx.clock !== 'instructions',
    ...options,
    // valgrind writes its last dump and final count after the runner's exit: give it time to, under load too.
    exitGrace: 2 * clockSlowdown(ctx.clock),
  });
  ctx.report.processSeconds += outcome.wallSeconds;
  if (!outcome.started) {
    await releaseRun(prepared);
    throw startFailure(ctx.python.executable, outcome);
  }
  // The runner opens a count after ready and after each untimed warm-up case, before the first timed one.
  if (prepared.counter) await countInstructions(outcome, prepared.counter, 1 + cases.filter((c) => c.i < 0).length);
  await releaseRun(prepared);
  return outcome;
}

/** The default of `ARBOR_REPETITIONS_PER_RUN`: how many repetitions one kept run serves. */
const defaultRepetitionsPerRun = 4;

/**
 * How many repetitions one run serves: `ARBOR_REPETITIONS_PER_RUN` (1: a fresh run every
 * repetition), else the default; a compare (two sides, pairing by run) runs fresh by default.
 * Its verdict rests on the confidence sequence of the sides' ratio, and the ratio of two kept runs
 * carries their processes' offsets for as long as they serve: on algotune_knn's baseline against
 * an identical copy, kept runs' repetitions were correlated (lag 1: 0.26), fresh runs' not (-0.08
 * to 0.09 at lags 1-8), and under two busy loops kept runs gave 5 wrong verdicts in 20 compares,
 * fresh runs none in 14, in about the same time (at most 62 s against 61 s; lib/eval/README.md). Pairing by case needs kept runs.
 */
export function repetitionsPerRun(env: NodeJS.ProcessEnv = process.env, compare = false): number {
  const value = Number(env.ARBOR_REPETITIONS_PER_RUN);
  if (Number.isSafeInteger(value) && value >= 1) return value;
  return compare && !casePairing(env) ? 1 : defaultRepetitionsPerRun;
}

/**
 * Whether runs are kept across repetitions, decided here alone: a speed eval
 * on the CPU or wall clock, in the sandbox (no solution can reach a run
 * beside its own), serving more than one repetition a run, **whose every
 * repetition draws fresh cases**. A kept run keeps whatever its solution kept
 * (a dict of answers, a thread, a file in /tmp), so it may only be served
 * cases it has never met. A path split serves the same files every
 * repetition (fixed seeds would too): there a dict of answers keyed by the
 * inputs' bytes replayed repetitions 2-4 for free (zoo/shortest_path dev 83.0
 * for an honest 1.0; test/eval/adversarial-kept-replay.test.ts), so each
 * repetition gets a fresh run. The warm-up case is one per point and met
 * again by a kept run, but it is untimed and called over and over within
 * every run anyway (the settling rule): a replay of it only shortens a
 * warm-up. The instructions clock keeps a run a repetition (its counter's
 * log is read once the run has ended).
 */
function keepsRuns(ctx: EvalContext): boolean {
  return casesFreshEachRepetition(ctx) && runsCouldBeKept(ctx);
}

/** keepsRuns but for the cases: a speed eval in the sandbox, off the instructions clock, with runs that serve more than one repetition and can be frozen. */
function runsCouldBeKept(ctx: EvalContext): boolean {
  return ctx.plan.metric === 'speedup' && ctx.sandbox === 'bwrap' && ctx.clock !== 'instructions' && ctx.repetitionsPerRun > 1 && ctx.kept !== null;
}

/**
 * Whether every repetition of every point draws cases of its own: the plan
 * draws them (speedup over seeds) and the eval holds the nonce they are drawn
 * from (point-make.ts makes a point's cases once without it, or from a path
 * split's folder).
 */
function casesFreshEachRepetition(ctx: EvalContext): boolean {
  return drawsFreshCases(ctx.plan) && ctx.nonce !== undefined;
}

/**
 * How many neighbouring repetitions share a run (the block the intervals and the confidence
 * sequence treat as correlated, stats.ts): repetitionsPerRun where runs are kept, else 1.
 */
export function repetitionBlock(ctx: EvalContext): number {
  return keepsRuns(ctx) ? ctx.repetitionsPerRun : 1;
}

/**
 * Say, at the first point, that runs are not kept because the cases repeat (keepsRuns): a compare
 * that asked to pair by case (which needs kept runs) in a line, as it gets pairs by run; an eval
 * in a status.
 */
export function noteRepeatedCases(ctx: EvalContext): void {
  if (casesFreshEachRepetition(ctx) || !runsCouldBeKept(ctx)) return;
  const why = "a path split's cases are served again every repetition, and a kept run could answer them from memory";
  if (ctx.pairing === 'case' && ctx.sides.length === 2)
    ctx.progress(
      'line',
      `note: ARBOR_COMPARE_PAIRING=case needs runs kept across repetitions, which this split does not get (${why}): each repetition runs each side fresh, paired by run`,
    );
  else ctx.progress('status', `a fresh run every repetition (${why})`);
}

/**
 * A kept run's warm-up after its first segment: its process is warm, only its
 * caches are the other run's: two calls (one once 50 ms passed), more until
 * one is within 10% of the fastest.
 */
const rewarm: WarmupRule = {minCalls: 2, enoughSeconds: 0.05, stableRatio: 1.1, maxCalls: 10, maxSeconds: 0.5};

/**
 * Serve repetition `rep` of `files` on its kept run: a run is started for
 * each of the eval's runs (reference and sides) every `repetitionsPerRun`
 * repetitions (all at once, their Python loading before any case is timed),
 * and frozen between its segments. Undefined when runs cannot be kept here
 * (no freezable cgroup): the caller runs it fresh, and so does every later run.
 */
async function runKept(
  ctx: EvalContext,
  made: MadePoint,
  rep: number,
  files: RunFiles,
  caseTimeout: (i: number) => number,
  remaining: number,
  options: Pick<RunService, 'warmup' | 'nullCases' | 'secretCases'>,
): Promise<RunOutcome | undefined> {
  const entry = await keptRun(ctx, files);
  if (!entry) return undefined;
  const first = entry.served === 0;
  entry.served++;
  return serveKept(ctx, entry, made, servedCases(made, rep), caseTimeout, remaining, {...options, ...(first ? {} : {warmup: rewarm})}, first);
}

/**
 * The kept run of `files`, started now, with every other run of the eval whose kept run is used
 * up (all at once: nothing is timed while another run loads its interpreter). Undefined when runs
 * cannot be kept here (no freezable cgroup): the caller runs it fresh, and so does every later run.
 */
async function keptRun(ctx: EvalContext, files: RunFiles): Promise<KeptRun | undefined> {
  if (ctx.kept === null) return undefined;
  const kept = (ctx.kept ??= new Map());
  let entry = kept.get(files);
  if (!entry || !entry.session.alive || entry.served >= ctx.repetitionsPerRun) {
    // Every run of the eval whose kept run is used up starts again now, side by side.
    const participants = [...(ctx.referenceFiles ? [ctx.referenceFiles] : []), ...ctx.sides.map((side) => side.files)];
    const due = participants.filter((each) => {
      const found = kept.get(each);
      return !found || !found.session.alive || found.served >= ctx.repetitionsPerRun;
    });
    for (const each of due) {
      const old = kept.get(each);
      kept.delete(each);
      if (old) await closeKept(old);
    }
    await dropRunAhead(ctx);
    const fresh = due.map((each) => prepareRun(ctx, each));
    if (fresh.some((prepared) => !prepared.freezable)) {
      // No freezer here: runs are not kept (a kept run could compute beside another's timed cases).
      for (const prepared of fresh) {
        prepared.process.cancel();
        await releaseRun(prepared);
      }
      ctx.kept = null;
      return undefined;
    }
    for (const prepared of fresh) kept.set(prepared.files, {prepared, session: prepared.process.keep(), served: 0});
    // Nothing is timed while another run loads its interpreter.
    await ctx.timed('start', () => Promise.all(fresh.map((prepared) => prepared.process.started)));
    entry = kept.get(files)!;
  }
  return entry;
}

/**
 * Serve `cases` on a kept run (`first`: its first segment, with the handshake); a run that ended
 * (a failed case) is closed and forgotten, and a run that did not start is the eval's failure.
 */
async function serveKept(
  ctx: EvalContext,
  entry: KeptRun,
  made: MadePoint,
  cases: CaseInput[],
  caseTimeout: (i: number) => number,
  remaining: number,
  options: Pick<RunService, 'warmup' | 'nullCases' | 'secretCases'>,
  first: boolean,
): Promise<RunOutcome> {
  const kept = ctx.kept!;
  const {files} = entry.prepared;
  const calls = (c: CaseInput) => (c.i < 0 ? (options.warmup?.maxCalls ?? 1) + (options.nullCases ?? 0) : 1);
  const caseSum = cases.reduce((total, c) => total + calls(c) * caseTimeout(c.i), 0);
  const initTimeout = ctx.plan.initTimeout;
  const outcome = await entry.session.serve({
    point: made.point,
    signature: made.signature,
    resultBytes: made.resultBytes,
    cases,
    caseTimeout,
    totalTimeout: Math.min((first ? 2 * initTimeout : 0) + caseSum + 1, remaining),
    cpu: ctx.cpu,
    checkCpu: ctx.clock === 'cpu',
    nonces: true,
    ...options,
    exitGrace: 2,
  });
  ctx.report.processSeconds += outcome.wallSeconds;
  if (!outcome.started) {
    kept.delete(files);
    await closeKept(entry);
    throw startFailure(ctx.python.executable, outcome);
  }
  if (!entry.session.alive) {
    kept.delete(files);
    await closeKept(entry);
  }
  return outcome;
}

/**
 * Serve both sides' cases of repetition `rep` pair by pair on their kept runs (runSidesPaired):
 * each side's first turn carries the warm-up case (the settling rule on a run's first
 * repetition, `rewarm` after), each later turn one case; every case keeps its nonce, limit and
 * checks. A side whose run ended on a failed case is not run on the cases left (`not-run`), as
 * in a segment. Undefined when no run can be kept here (nothing served yet).
 */
export async function servePaired(ctx: EvalContext, made: MadePoint, rep: number, limits: SideLimits[], step: string): Promise<RunOutcome[] | undefined> {
  if (!keepsRuns(ctx)) return undefined;
  const entries: KeptRun[] = [];
  for (const side of ctx.sides) {
    const entry = await keptRun(ctx, side.files);
    if (!entry) return undefined;
    entries.push(entry);
  }
  const served = servedCases(made, rep);
  const warmup = served.filter((c) => c.i < 0);
  const timed = served.filter((c) => c.i >= 0);
  const outcomes: Array<RunOutcome | undefined> = entries.map(() => undefined);
  ctx.pairedByCase = true;
  for (const [k, c] of timed.entries()) {
    for (const s of (k + rep) % 2 === 0 ? [0, 1] : [1, 0]) {
      const entry = entries[s]!;
      const sofar = outcomes[s];
      if (sofar && !entry.session.alive) continue;
      const remaining = ctx.deadline();
      if (remaining <= 0) throw new HarnessError(`the eval ran past its time_limit of ${ctx.plan.timeLimit} s (plan.toml)`, 'time-limit');
      const options = {secretCases: ctx.secretCases};
      let outcome: RunOutcome;
      if (sofar) {
        // One untimed call first: the run's caches are the other side's (a case timed straight
        // after a switch took up to 12% longer than one after its own run's call).
        outcome = await serveKept(ctx, entry, made, [...warmup, c], limits[s]!.limitFor, remaining, {...options, warmup: oneCall}, false);
        outcome.warmup = [];
      } else {
        ctx.progress('status', `${step}${sideName(ctx, s)}`);
        const first = entry.served === 0;
        entry.served++;
        outcome = await serveKept(
          ctx,
          entry,
          made,
          [...warmup, c],
          limits[s]!.limitFor,
          remaining,
          {...options, warmup: first ? settlingWarmup : rewarm},
          first,
        );
      }
      outcomes[s] = sofar ? mergeTurn(sofar, outcome) : outcome;
    }
  }
  // A run that ended on a failed case answered no later case of this repetition.
  return outcomes.map((outcome) => {
    const whole = outcome!;
    for (const c of timed.slice(whole.cases.length)) whole.cases.push({i: c.i, status: 'not-run', seconds: null, cpuSeconds: null});
    return whole;
  });
}

/** A side's outcome so far with its next turn's: its case added, and how the run ended if it did. */
function mergeTurn(sofar: RunOutcome, turn: RunOutcome): RunOutcome {
  const {killed, startError, startWhere, limitHit} = turn;
  return {
    ...sofar,
    ...(killed ? {killed} : {}),
    ...(startError ? {startError} : {}),
    ...(startWhere ? {startWhere} : {}),
    ...(limitHit ? {limitHit} : {}),
    exitCode: turn.exitCode ?? sofar.exitCode,
    signal: turn.signal ?? sofar.signal,
    wallSeconds: sofar.wallSeconds + turn.wallSeconds,
    cases: [...sofar.cases, ...turn.cases],
    stdoutTail: turn.stdoutTail,
    stderrTail: turn.stderrTail,
  };
}

/**
 * Whether a compare's sides are paired case by case (ARBOR_COMPARE_PAIRING=case): on runs kept
 * across repetitions, with exactly two sides.
 */
export function pairsCases(ctx: EvalContext): boolean {
  return ctx.pairing === 'case' && ctx.sides.length === 2 && keepsRuns(ctx);
}

/**
 * Whether compares pair their sides case by case: `ARBOR_COMPARE_PAIRING` is `case`; `run` (the
 * default) pairs each side's whole segment of a repetition. Measured on algotune_knn under load
 * (lib/eval/README.md), pairing by case left a repetition's mean log ratio about 2.7x as variable
 * (variance) as pairing by run, in more time a repetition: a switch of side costs the case after
 * it more than a slow phase of the machine costs one side's segment.
 */
export function casePairing(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.ARBOR_COMPARE_PAIRING;
  if (value === undefined || value === '' || value === 'run') return false;
  if (value === 'case') return true;
  throw new UsageError(`ARBOR_COMPARE_PAIRING is ${JSON.stringify(value)}: set it to case or run, or unset it`, 'bad-environment');
}

/** The warm-up of a paired turn after the first: one call. */
const oneCall: WarmupRule = {minCalls: 1, enoughSeconds: 0, stableRatio: Infinity, maxCalls: 1, maxSeconds: Infinity};

/** End a kept run and remove its folders. */
async function closeKept(entry: KeptRun): Promise<void> {
  await entry.session.close();
  await releaseRun(entry.prepared);
}
