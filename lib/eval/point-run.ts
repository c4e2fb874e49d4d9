/**
 * The run stage of a point (point.ts): each repetition runs the reference
 * (speedup), then each side, on the same fresh cases, in ABBA order, until the
 * score is as precise as the plan asks or the budget is spent; the harness
 * delivers every case and times it from outside (process.ts). In the sandbox,
 * where every repetition draws fresh cases, a run is kept for
 * repetitionsPerRun repetitions, frozen between them (keepsRuns, runKept);
 * elsewhere (a path split among them) each repetition is a fresh run.
 */
import {randomBytes} from 'node:crypto';
import {lstat, mkdir, readFile, readdir, rm, writeFile} from 'node:fs/promises';
import {mkdirSync} from 'node:fs';
import path from 'node:path';
import {
  type Counter,
  counterLogFd,
  createGroup,
  crossCheck,
  instructionsSlowdown,
  launchRun,
  maxPartBytes,
  type PartFile,
  readCounts,
  startCpusFor,
} from '../sandbox/index.js';
import {UsageError} from '../errors.js';
import {HarnessError} from './errors.js';
import {
  settlingWarmup,
  startFailure,
  startRun,
  type CaseInput,
  type CaseOutcome,
  type RunOutcome,
  type RunService,
  type UntimedCall,
  type WarmupRule,
} from './process.js';
import type {EvalContext, KeptRun, PreparedRun, RunFiles} from './context.js';
import {speedupRatio, timeOnClock, type CaseTimes} from './score.js';
import {
  median,
  ratioSequence,
  relativeHalfWidth,
  scoreInterval,
  sequentialDecision,
  speedScore,
  stoppingHalfWidths,
  stoppingResamples,
  trustedRepetitions,
  type PointRatios,
  type SequentialDecision,
} from './stats.js';
import type {PointSignature} from './signature.js';
import {firstDifference, hashTree} from './tamper.js';
import {sourceFrames} from './failure.js';
import type {RepetitionReport} from './types.js';
import {caseSetOf, makeCaseSet, servedCases, type MadePoint} from './point-make.js';
import {drawsFreshCases} from './seeds.js';
import {ensureExpected, verifyRun, type SideStage, type Timing} from './point-verify.js';

/** What the run stage leaves for verification. */
export interface RunStage {
  sides: SideStage[];
  /** speedup: reference timings, [case][rep]. */
  reference: Timing[][];
  /** speedup with two sides: [rep][case] first side's time / second side's, on the plan's clock. */
  pairs: PointRatios;
  repetitions: number;
  /** speedup: whether the stopping rule was met (false: the budget or the cap ended the repetitions). */
  precise: boolean;
  /** speedup: the null cases of the reference's runs. */
  nullCalls: UntimedCall[];
  /** Per reference run: its first timed case's time / the median of its others'. */
  referenceFirstCase: number[];
}

/** Null cases timed in a reference run (cpu and wall clocks), until a point has `nullCasesEnough` of them. */
const nullCasesPerRun = 3;

const nullCasesEnough = 15;

/** Repetitions never go past this, whatever the budget. */
export const maxRepetitions = 100;

/**
 * Alternate reference and solution runs until the point's score is as precise
 * as the plan asks (the half-width of its 95% interval at most precision x
 * score) or its share of the time budget is spent; never fewer than the
 * plan's repetitions. Runs go in runOrder's ABBA order. With two sides
 * (compare), the precision asked is that of the ratio between the sides.
 * Accuracy: one run of each side.
 */
export async function runRepetitions(ctx: EvalContext, made: MadePoint, budget: number, earlier?: PointRatios[]): Promise<RunStage> {
  const {plan} = ctx;
  const started = process.hrtime.bigint();
  const spent = () => Number(process.hrtime.bigint() - started) / 1e9;
  const state = startRepetitions(ctx, made);
  if (made.index === 0) noteRepeatedCases(ctx);
  const minimum = Math.max(plan.repetitions, ctx.minRepetitions ?? 0);
  let precise = plan.metric !== 'speedup';
  let rep = 0;
  let repetitionStarted = 0;
  for (; ; rep++) {
    repetitionStarted = spent();
    const step = `${made.label}: ${plan.metric === 'speedup' ? `repetition ${rep + 1}: ` : ''}`;
    const runs = runOrder(ctx, rep);
    // Fresh cases: this repetition's, made between runs (never while a case is timed), shared by the reference and every side.
    await makeCaseSet(ctx, made, rep);
    // No run is started ahead for a repetition that cannot come: past the fewest, a spent budget ends them.
    const last = rep + 1 >= maxRepetitions || (rep + 1 >= minimum && spent() >= budget);
    const paired = pairsCases(ctx);
    for (const [position, item] of runs.entries()) {
      const following = runs[position + 1] ?? (plan.metric === 'speedup' && !last ? runOrder(ctx, rep + 1)[0] : undefined);
      const next = following === undefined ? undefined : following === 'reference' ? ctx.referenceFiles : ctx.sides[following]!.files;
      if (item === 'reference') await runReference(ctx, made, state, rep, step, next);
      // Case by case, both sides take their turns in one step: the first side's.
      else if (paired && typeof runs[position - 1] === 'number') continue;
      else if (paired) await runSidesPaired(ctx, made, state, rep, step);
      else await runSide(ctx, made, state, item, rep, step, next);
    }
    judgeAgainstSameCase(ctx, made, state, rep, step);
    if (ctx.referenceDifferences) await compareAnswers(ctx, made, state, rep);
    // Every run of this repetition is over: its inputs are on disk for verification, no longer needed in memory.
    if (made.fresh) caseSetOf(made, rep).cases = [];
    if (plan.metric !== 'speedup') break;
    pushSpeedups(ctx, state, rep);
    // A compare still makes the plan's fewest repetitions, so that each case of the good side
    // (and the cases the failing side gets right) has its trials.
    const enough = ctx.sides.length === 1 || rep + 1 >= minimum;
    if (state.failed && enough) break;
    // In the sandbox no later run can see the work folder, so the first repetition is verified
    // now (its processes are gone): wrong answers end the repetitions instead of being timed on.
    // Fresh cases are verified repetition by repetition, each against its own expected answers.
    if ((rep === 0 || made.fresh) && ctx.sandbox === 'bwrap') {
      await verifyRepetition(ctx, made, state, rep, step);
      if (state.failed && enough) break;
    }
    if (state.failed) continue;
    const {halfWidth, decision} = stoppingHalfWidth(ctx, state, rep, step, earlier);
    if (rep + 1 < minimum) continue;
    // A compare stops as soon as its ratio's confidence sequence decides (it holds at every look);
    // an eval when its score's interval is as narrow as the plan asks.
    precise =
      decision !== undefined
        ? decision !== 'undecided' && rep + 1 >= trustedRepetitions
        : halfWidth <= plan.precision && (rep + 1 >= trustedRepetitions || halfWidth === 0);
    // The next repetition is taken only if it ends within the budget, were it as long as the
    // longer of the mean repetition and the last one (the machine's load moves them).
    const nextRepetition = Math.max(spent() / (rep + 1), spent() - repetitionStarted);
    if (precise || spent() + nextRepetition > budget || rep + 1 >= maxRepetitions) break;
  }
  const {sides, reference, pairs, nullCalls, referenceFirstCase} = state;
  return {sides, reference, pairs, repetitions: rep + 1, precise, nullCalls, referenceFirstCase};
}

/** What a point's repetitions gather as they go: the stages of runRepetitions share it. */
interface Repetitions extends Omit<RunStage, 'repetitions' | 'precise'> {
  /** The wall seconds of each reference run's first warm-up call (first-call costs included). */
  referenceWarmup: number[];
  /** Whether a side failed a case in some repetition (its score is 0.0 whatever comes next). */
  failed: boolean;
  /** How every run warms up: until its time settles (speedup on the cpu and wall clocks), else one call. */
  service: Pick<RunService, 'warmup'>;
  /** EvalOptions.compareWithReference: the reference's answers of the repetition being run, by case. */
  referenceAnswers?: Map<number, Array<Buffer | null> | undefined>;
}

/** Nothing run yet: no reference time, no side's run. */
function startRepetitions(ctx: EvalContext, made: MadePoint): Repetitions {
  // The instructions clock is deterministic: one warm-up call takes the first-call costs, and its null cases would be counted.
  const counted = ctx.clock === 'instructions';
  return {
    reference: Array.from({length: made.n}, () => []),
    sides: ctx.sides.map(() => ({runs: [], ratios: [], firstCase: []})),
    pairs: [],
    nullCalls: [],
    referenceFirstCase: [],
    referenceWarmup: [],
    failed: false,
    service: ctx.plan.metric === 'speedup' && !counted ? {warmup: settlingWarmup} : {},
  };
}

/** A case's times on the eval's clock and on the wall clock (and its CPU seconds). */
function timingOf(ctx: EvalContext, c: CaseTimes): Timing {
  return {wall: c.seconds!, clock: timeOnClock(ctx.clock, c)!, cpu: c.cpuSeconds ?? null};
}

/**
 * The limit of the solution's case i (-1: the warm-up) in repetition `rep`, from the reference's
 * times (speedup) or the plan's timeout (accuracy). With fixed cases, the reference's fastest time
 * on the case. With fresh cases each repetition's case i is another problem, whose difficulty may
 * differ many times over (AlgoTune's least_squares: 0.03-1.4 s): the reference's time on this
 * repetition's own case, once it ran; before it ran (the solution goes first in every other
 * repetition), nothing bounds the case but the plan's `timeout` (as for a reference run), and
 * judgeAgainstSameCase judges it once the reference has timed it: a limit taken from another draw
 * killed correct solutions (the baseline of least_squares at 1.0 s on a case the reference took
 * 1.37 s). A side that already failed a case (its score is 0.0 whatever comes next; a compare
 * still runs it) gets 10 x the slowest reference time so far instead, so a hang costs seconds.
 */
function solutionLimit(ctx: EvalContext, made: MadePoint, state: Repetitions, i: number, rep: number, sideFailed = false): number {
  const {plan} = ctx;
  if (plan.metric !== 'speedup') return plan.timeout;
  // The warm-up absorbs first-call costs (caches, lazy set-up) and is untimed, but it is limited
  // like a case, relative to the reference's warm-up: a hang costs seconds, not init_timeout.
  if (i < 0)
    return state.referenceWarmup.length ? Math.max(plan.minTimeout, plan.timeoutFactor * Math.max(...state.referenceWarmup)) : plan.initTimeout * slowdown(ctx);
  // The kill limit stays on wall time: it is about hangs, not speed.
  if (!made.fresh) return Math.max(plan.minTimeout, plan.timeoutFactor * Math.min(...state.reference[i]!.map((t) => t.wall)));
  const same = state.reference[i]![rep];
  if (same) return Math.max(plan.minTimeout, plan.timeoutFactor * same.wall);
  if (!sideFailed) return plan.timeout * slowdown(ctx);
  const slowest = Math.max(...state.reference.flatMap((times) => times.map((t) => t.wall)));
  return Math.max(plan.minTimeout, plan.timeoutFactor * slowest);
}

/**
 * Fresh cases, a side that ran before the reference in repetition `rep`: each case it answered is
 * judged now against the reference's time on that same case (a timeout when over the limit), as
 * when the reference goes first.
 */
function judgeAgainstSameCase(ctx: EvalContext, made: MadePoint, state: Repetitions, rep: number, step: string): void {
  if (!made.fresh || ctx.plan.metric !== 'speedup') return;
  for (const [s, side] of state.sides.entries()) {
    const run = side.runs.find((each) => each.rep === rep);
    if (!run?.judgedBefore) continue;
    run.judgedBefore = false;
    let late = 0;
    for (const [i, status] of run.statuses.entries()) {
      const limit = solutionLimit(ctx, made, state, i, rep);
      if (status.status === 'ok' && status.seconds !== null && status.seconds > limit) {
        Object.assign(status, {status: 'timeout', note: `took ${status.seconds.toFixed(3)} s, limit ${limit.toFixed(3)} s`});
        late++;
      }
    }
    if (late > 0) {
      const answered = run.statuses.filter((status) => status.status === 'ok').length;
      ctx.progress('line', `${step}${ctx.sides.length > 1 ? ctx.sides[s]!.label : 'solution'} returned ${answered}/${made.n} case(s) in time`);
      state.failed = true;
    }
  }
}

/** A reference run (with its null cases, until enough): its times kept; a case it fails is a harness failure. */
async function runReference(ctx: EvalContext, made: MadePoint, state: Repetitions, rep: number, step: string, next: RunFiles | undefined): Promise<void> {
  const {plan} = ctx;
  ctx.progress('status', `${step}reference`);
  const counted = ctx.clock === 'instructions';
  const nullCases = counted || state.nullCalls.length >= nullCasesEnough ? 0 : nullCasesPerRun;
  const ref = await runOnce(ctx, made, rep, ctx.referenceFiles!, (i) => (i < 0 ? plan.initTimeout : plan.timeout) * slowdown(ctx), next, {
    ...state.service,
    nullCases,
  });
  const bad = ref.cases.find((c) => c.status !== 'ok' || c.answer?.includes(null));
  if (bad) {
    const why = bad.status === 'ok' ? (bad.note ?? 'no answer') : `${bad.status}${bad.note ? ` (${bad.note})` : ''}`;
    throw new HarnessError(`the reference solver failed on case ${bad.i} of ${made.label}: ${why}`, 'bad-reference');
  }
  const {reference} = state;
  for (const c of ref.cases) reference[c.i]!.push(timingOf(ctx, c));
  if (ctx.referenceDifferences) state.referenceAnswers = new Map(ref.cases.map((c) => [c.i, c.answer]));
  if (ref.warmup[0]) state.referenceWarmup.push(ref.warmup[0].seconds);
  state.nullCalls.push(...ref.nullCalls);
  pushFirstCase(
    state.referenceFirstCase,
    ref.cases.map((c) => timingOf(ctx, c).clock),
  );
  // Counts are not seconds: the round trip the warning is about is on the wall clock then.
  if (rep === 0)
    warnIfQuick(
      ctx,
      made.label,
      reference.map((times) => (ctx.clock === 'instructions' ? times[0]!.wall / slowdown(ctx) : times[0]!.clock)),
    );
}

/** A run of side s: its cases' statuses (checked for tampering), its answers written out for verification; a case not answered in time fails the side. */
async function runSide(ctx: EvalContext, made: MadePoint, state: Repetitions, s: number, rep: number, step: string, next: RunFiles | undefined): Promise<void> {
  const side = ctx.sides[s]!;
  ctx.progress('status', `${step}${sideName(ctx, s)}`);
  const limits = sideLimits(ctx, made, state, s, rep);
  // Secret cases: a crash's note keeps no message that could carry a value of the case (process.ts).
  const outcome = await runOnce(ctx, made, rep, side.files, limits.limitFor, next, {...state.service, secretCases: ctx.secretCases});
  await recordSide(ctx, made, state, s, rep, step, outcome, limits);
}

/**
 * A compare's two sides in repetition `rep`, case by case on their kept runs (pairsCases): each
 * case timed on one side and at once on the other, the first side first on even cases of even
 * repetitions (ABBA from case to case: AB BA AB ...), the idle run frozen. A slow moment of the
 * machine then falls on both times of a pair, not on one side's whole segment. Where no run can be
 * kept, the sides run in turn as runSide does.
 */
async function runSidesPaired(ctx: EvalContext, made: MadePoint, state: Repetitions, rep: number, step: string): Promise<void> {
  const sides = [0, 1];
  const limits = sides.map((s) => sideLimits(ctx, made, state, s, rep));
  const outcomes = await servePaired(ctx, made, rep, limits, step);
  if (outcomes) {
    for (const s of sides) await recordSide(ctx, made, state, s, rep, step, outcomes[s]!, limits[s]!);
    return;
  }
  for (const s of rep % 2 === 0 ? sides : sides.reverse()) await runSide(ctx, made, state, s, rep, step, undefined);
}

/** How side s is called in progress lines: its label in a compare, else `solution`. */
function sideName(ctx: EvalContext, s: number): string {
  return ctx.sides.length > 1 ? ctx.sides[s]!.label : 'solution';
}

/** The limits of side s's cases in repetition `rep`, and whether they are judged again once the reference ran on them. */
interface SideLimits {
  limitFor: (i: number) => number;
  judgedBefore: boolean;
}

function sideLimits(ctx: EvalContext, made: MadePoint, state: Repetitions, s: number, rep: number): SideLimits {
  const sideFailed = state.sides[s]!.runs.some((run) =>
    run.statuses.some((status) => status.status !== 'ok' || (run.verdicts !== undefined && !status.passed)),
  );
  return {
    limitFor: (i) => solutionLimit(ctx, made, state, i, rep, sideFailed),
    // Fresh cases before the reference ran on them: judged again once it has (judgeAgainstSameCase).
    judgedBefore: made.fresh && ctx.plan.metric === 'speedup' && state.reference[0]?.[rep] === undefined,
  };
}

/**
 * Record side s's run of repetition `rep`: its cases' statuses (checked for tampering), its
 * answers written out for verification; a case not answered in time fails the side.
 */
async function recordSide(
  ctx: EvalContext,
  made: MadePoint,
  state: Repetitions,
  s: number,
  rep: number,
  step: string,
  outcome: RunOutcome,
  {limitFor, judgedBefore}: SideLimits,
): Promise<void> {
  const {plan} = ctx;
  const {n} = made;
  const side = ctx.sides[s]!;
  const who = sideName(ctx, s);
  const statuses = outcome.cases.map((c) => statusOf(c, limitFor(c.i)));
  if (statuses.every((status) => status.status === 'ok'))
    pushFirstCase(
      state.sides[s]!.firstCase,
      statuses.map((status) => timingOf(ctx, status).clock),
    );
  if (ctx.clock === 'instructions') crossCheckCounts(statuses, state.reference);
  if (ctx.tamperCheck) await markTampered(ctx, made, statuses);
  await placeCrashes(side.files, outcome.cases, statuses);
  const out = path.join(ctx.tmp, 'runs', `${path.basename(made.dir)}-${s}-${rep}`, 'out');
  await writeAnswers(out, outcome.cases, made.signature);
  state.sides[s]!.runs.push({out, statuses, rep, ...(judgedBefore ? {judgedBefore} : {})});
  const answered = statuses.filter((status) => status.status === 'ok').length;
  if (plan.metric !== 'speedup' || answered < n) ctx.progress('line', `${step}${who} returned ${answered}/${n} case(s) in time`);
  // A failed repetition already makes a speedup score 0.0: do not spend more time on it.
  if (answered < n) state.failed = true;
}

/**
 * Every side that answered every case has its speedups for this repetition, even when the
 * other side failed: a compare then still knows the good side's score.
 */
function pushSpeedups(ctx: EvalContext, state: Repetitions, rep: number): void {
  for (const side of state.sides) {
    const statuses = side.runs[rep]!.statuses;
    if (statuses.every((status) => status.status === 'ok'))
      side.ratios.push(statuses.map((status, i) => speedupRatio(state.reference[i]![rep]!.clock, timingOf(ctx, status).clock)));
  }
}

/**
 * EvalOptions.compareWithReference: each side's answers of repetition `rep`
 * (as written for verification) against the reference's to the same cases,
 * byte for byte; a case the side did not answer is the eval's failure, not a
 * difference.
 */
async function compareAnswers(ctx: EvalContext, made: MadePoint, state: Repetitions, rep: number): Promise<void> {
  const answers = state.referenceAnswers;
  if (!answers) return;
  const {seeds} = caseSetOf(made, rep);
  for (const side of state.sides) {
    const run = side.runs.find((each) => each.rep === rep);
    if (!run) continue;
    for (const [i, status] of run.statuses.entries()) {
      if (status.status !== 'ok') continue;
      for (const [k, result] of made.signature.results.entries()) {
        const theirs = answers.get(i)?.[k] ?? null;
        const ours = await readFile(path.join(run.out, String(i).padStart(6, '0'), `${result.name}.bin`)).catch(() => null);
        const offset = firstByteDifference(theirs, ours);
        if (offset === undefined) continue;
        ctx.referenceDifferences!.push({point: made.point, ...(seeds[i] === undefined ? {} : {seed: seeds[i]}), case: i, result: result.name, offset});
        break;
      }
    }
  }
  state.referenceAnswers = undefined;
}

/** The first byte where two answers differ (-1: one is missing), undefined when they are the same bytes. */
function firstByteDifference(a: Buffer | null, b: Buffer | null): number | undefined {
  if (a === null || b === null) return a === b ? undefined : -1;
  if (a.equals(b)) return undefined;
  let at = 0;
  while (at < a.length && at < b.length && a[at] === b[at]) at++;
  return at;
}

/** Verify each side's run of repetition `rep` now (expected/ written first); a side that did not pass every case fails. */
async function verifyRepetition(ctx: EvalContext, made: MadePoint, state: Repetitions, rep: number, step: string): Promise<void> {
  const {n} = made;
  await ensureExpected(ctx, made, rep);
  for (const [s, side] of state.sides.entries()) {
    const run = side.runs[rep];
    if (!run) continue;
    run.verdicts = await verifyRun(ctx, made, run);
    const passed = run.statuses.filter((status) => status.passed).length;
    if (passed < n) {
      ctx.progress('line', `${step}${ctx.sides.length > 1 ? ctx.sides[s]!.label : 'solution'} passed ${passed}/${n} case(s)`);
      state.failed = true;
    }
  }
}

/**
 * The relative half-width the stopping rule reads after repetition `rep`, said
 * in a progress line: of the ratio between two sides (their paired ratios of
 * this repetition pushed first), or of the one side's score.
 */
function stoppingHalfWidth(
  ctx: EvalContext,
  state: Repetitions,
  rep: number,
  step: string,
  earlier?: PointRatios[],
): {halfWidth: number; decision?: SequentialDecision} {
  const {sides, pairs} = state;
  let halfWidth: number;
  let decision: SequentialDecision | undefined;
  if (sides.length === 2) {
    const [first, second] = [sides[0]!.runs[rep]!.statuses, sides[1]!.runs[rep]!.statuses];
    pairs.push(first.map((status, i) => speedupRatio(timingOf(ctx, status).clock, timingOf(ctx, second[i]!).clock)));
    const ratio = speedScore([pairs]);
    const block = repetitionBlock(ctx);
    halfWidth = pairs.length >= 2 ? relativeHalfWidth(scoreInterval([pairs], stoppingResamples, 1, block), ratio) : Infinity;
    const scores = sides.map((side) => speedScore([side.ratios]).toPrecision(4)).join(' / ');
    const sequence = ratioSequence([pairs], block);
    decision = sequence ? sequentialDecision(sequence, ctx.plan.precision) : 'undecided';
    const shown = sequence ? `, sequence [${sequence[0].toPrecision(4)}, ${sequence[1].toPrecision(4)}]${decision === 'undecided' ? '' : `: ${decision}`}` : '';
    ctx.progress(
      'line',
      `${step}speedup ${scores}, ratio ${ratio.toPrecision(4)}${Number.isFinite(halfWidth) ? ` ±${(100 * halfWidth).toPrecision(2)}%` : ''}${shown} (${ctx.clock} clock)`,
    );
  } else {
    const {ratios} = sides[0]!;
    const score = speedScore([ratios]);
    // Either width ends the repetitions (stoppingHalfWidths), so no point runs longer than it would alone.
    const widths = stoppingHalfWidths(ratios, earlier, stoppingResamples, repetitionBlock(ctx));
    halfWidth = Math.min(widths.own, widths.score ?? Infinity);
    const shown = (width: number) => ` ±${(100 * width).toPrecision(2)}%`;
    ctx.progress(
      'line',
      `${step}speedup ${score.toPrecision(4)}${Number.isFinite(widths.own) ? shown(widths.own) : ''}${widths.score === undefined ? '' : `, score${shown(widths.score)}`} (${ctx.clock} clock)`,
    );
  }
  return {halfWidth, decision};
}

/** Record a run's first-case effect: its first timed case's time / the median of its other cases' (needs two cases). */
function pushFirstCase(effects: number[], times: number[]): void {
  if (times.length < 2 || !times.every((time) => Number.isFinite(time) && time > 0)) return;
  effects.push(times[0]! / median(times.slice(1)));
}

/**
 * The runs of repetition `rep`, in order: the reference (speedup) and each
 * side by index. Repetitions alternate, ABBA: the reference first, then the
 * sides; then the sides in reverse order, then the reference. So no run
 * always follows the same other one, and whatever a run's place does to its
 * times (what ran just before it, what the harness did in between) falls on
 * the reference and the solution alike. The first repetition starts with the
 * reference: the solution's time limits come from its times.
 */
function runOrder(ctx: EvalContext, rep: number): Array<'reference' | number> {
  const sides = ctx.sides.map((_, s) => s);
  if (ctx.plan.metric !== 'speedup') return sides;
  return rep % 2 === 0 ? ['reference', ...sides] : [...sides.reverse(), 'reference'];
}

/** How much slower a run starts than natively: valgrind's slowdown under the instructions clock. */
function slowdown(ctx: EvalContext): number {
  return ctx.clock === 'instructions' ? instructionsSlowdown : 1;
}

/**
 * Start a sandboxed run of `files` (reference or solution), not yet given a
 * point: Python and numpy load on the CPUs beside the eval's.
 */
function prepareRun(ctx: EvalContext, files: RunFiles): PreparedRun {
  const run = ctx.runCount++;
  const scratch = path.join(ctx.tmp, 'runs', `scratch-${run}`);
  mkdirSync(scratch, {recursive: true});
  // Instructions clock: callgrind's output goes to a folder of the harness's, writable by this run only, read once the run is over.
  const counter: Counter | undefined =
    ctx.clock === 'instructions'
      ? {valgrind: ctx.valgrind!, folder: path.join(ctx.tmp, 'runs', `callgrind-${run}`), runId: `run${run}-${randomBytes(4).toString('hex')}`}
      : undefined;
  if (counter) mkdirSync(counter.folder, {recursive: true});
  const group = createGroup(ctx.limits);
  // Where the group bounds memory, no address-space rlimit is needed (it would also count what numpy only reserves).
  const confinement = ctx.confinement && group?.bounds.memory ? {...ctx.confinement, addressSpace: undefined} : ctx.confinement;
  const launch = launchRun(ctx.sandbox, ctx.bwrap, ctx.python, {runner: ctx.runner, solutionDir: files.dir, entry: files.entry, scratch}, confinement, counter);
  ctx.report.cgroup &&= group !== undefined;
  // Times on the CPU clock come from the run's cgroup: never mix in a wall time for a run without one.
  if (!group && ctx.clock === 'cpu')
    throw new HarnessError(`no cgroup could be made for a run, though the eval times on the CPU clock; run it again`, 'no-cgroup');
  const started = startRun({
    launch,
    group,
    startCpus: startCpusFor(ctx.cpu),
    initTimeout: ctx.plan.initTimeout * slowdown(ctx),
    counterLogFd: counter ? counterLogFd : undefined,
  });
  return {files, process: started, scratch, counter, freezable: group?.canFreeze === true};
}

/** Remove a run's own folders once its processes are gone. */
async function releaseRun(prepared: PreparedRun): Promise<void> {
  await rm(prepared.scratch, {recursive: true, force: true}).catch(() => {});
  if (prepared.counter) await rm(prepared.counter.folder, {recursive: true, force: true}).catch(() => {});
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
async function runOnce(
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
  const initTimeout = ctx.plan.initTimeout * slowdown(ctx);
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
    exitGrace: 2 * slowdown(ctx),
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
function noteRepeatedCases(ctx: EvalContext): void {
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
async function servePaired(ctx: EvalContext, made: MadePoint, rep: number, limits: SideLimits[], step: string): Promise<RunOutcome[] | undefined> {
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
function pairsCases(ctx: EvalContext): boolean {
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

/** The last byte of an answer message: of its last non-empty result, else the header's newline. */
function lastByte(answer: Array<Buffer | null>): number {
  const last = answer.filter((bytes): bytes is Buffer => !!bytes && bytes.length > 0).pop();
  return last ? last[last.length - 1]! : 0x0a;
}

/**
 * Instructions clock: each answered case gets its count from callgrind's
 * output, or fails as tampered when the output shows the counter was
 * reached (lib/sandbox/instructions.ts).
 */
async function countInstructions(outcome: RunOutcome, counter: Counter, opens: number): Promise<void> {
  const parts: Array<PartFile & {tooLarge?: boolean}> = [];
  for (const name of await readdir(counter.folder).catch(() => [] as string[])) {
    const file = path.join(counter.folder, name);
    // lstat: the run could leave a symlink (to a FIFO, a device, a huge file) where a part should be; only regular files are read.
    const info = await lstat(file).catch(() => undefined);
    if (!info?.isFile()) {
      parts.push({name, text: '', tooLarge: true});
      continue;
    }
    parts.push(info.size > maxPartBytes ? {name, text: '', tooLarge: true} : {name, text: await readFile(file, 'utf8')});
  }
  const delivered = outcome.cases.filter((c) => c.status !== 'not-run').map((c) => c.i);
  // The last byte of each answer: the runner sent it only after opening the next case's count, and its closing dump's label records it.
  const held = new Map(outcome.cases.filter((c) => c.status === 'ok' && c.answer).map((c) => [c.i, lastByte(c.answer!)]));
  const counts =
    outcome.counterLog === undefined
      ? new Map(delivered.map((i) => [i, {problem: "instructions clock: valgrind's log ran past 16 MiB (something wrote into it)"}]))
      : readCounts({log: outcome.counterLog, parts, runId: counter.runId, cases: delivered, opens, held});
  for (const c of outcome.cases) {
    if (c.status !== 'ok') continue;
    const count = counts.get(c.i);
    if (count && 'instructions' in count) {
      c.instructions = count.instructions;
    } else {
      c.instructions = null;
      c.status = 'tampered';
      c.note = count?.problem ?? `instructions clock: case ${c.i} was not counted`;
      delete c.answer;
    }
  }
}

/**
 * Instructions clock: every counted case of a solution run against the
 * reference's median count and CPU time so far (lib/sandbox/instructions.ts crossCheck); a
 * case whose count is far lower than its CPU time allows fails as tampered.
 */
function crossCheckCounts(statuses: RepetitionReport[], reference: Timing[][]): void {
  for (const [i, status] of statuses.entries()) {
    const times = reference[i] ?? [];
    const cpus = times.flatMap((t) => (t.cpu === null ? [] : [t.cpu]));
    if (status.status !== 'ok' || !status.instructions || status.cpuSeconds == null || !times.length || cpus.length < times.length) continue;
    const problem = crossCheck(
      {instructions: median(times.map((t) => t.clock)), cpuSeconds: median(cpus)},
      {instructions: status.instructions, cpuSeconds: status.cpuSeconds},
    );
    if (problem) Object.assign(status, {status: 'tampered', note: problem});
  }
}

/** A case as a repetition report (before verification): a case over its limit is a timeout. */
function statusOf(c: CaseOutcome, limit: number): RepetitionReport {
  const counted = c.instructions === undefined ? {} : {instructions: c.instructions};
  const report: RepetitionReport = {seconds: c.seconds, cpuSeconds: c.cpuSeconds, ...counted, status: c.status, passed: false};
  if (c.note) report.note = c.note;
  if (c.status === 'ok' && c.seconds !== null && c.seconds > limit) {
    Object.assign(report, {status: 'timeout', note: `took ${c.seconds.toFixed(3)} s, limit ${limit.toFixed(3)} s`});
  }
  return report;
}

/**
 * Each crash's frames as the report's: those that name a line of the solution's
 * files as evaluated (its snapshot), with that line's text read from there.
 */
async function placeCrashes(files: RunFiles, cases: CaseOutcome[], statuses: RepetitionReport[]): Promise<void> {
  const folder = path.join(files.dir, path.dirname(files.entry));
  const sources = new Map<string, string[] | null>();
  for (const [k, c] of cases.entries()) {
    if (!c.where?.length || statuses[k]?.status !== 'crashed') continue;
    const where = await sourceFrames(folder, c.where, sources);
    if (where.length) statuses[k]!.where = where;
  }
}

/** Without a sandbox the solution could reach the work folder: check that nothing protected changed. */
async function markTampered(ctx: EvalContext, made: MadePoint, statuses: RepetitionReport[]): Promise<void> {
  const before = (ctx.pointHashes ??= new Map()).get(made.dir) ?? (await ctx.timed('check', () => hashTree([made.dir])));
  ctx.pointHashes.set(made.dir, before);
  const changed =
    firstDifference(ctx.protectedHash!, await ctx.timed('check', () => hashTree([ctx.protectedDir]))) ??
    firstDifference(before, await ctx.timed('check', () => hashTree([made.dir])));
  if (!changed) return;
  const note = `the solution changed a protected file (${path.relative(ctx.tmp, changed)})`;
  for (const status of statuses) Object.assign(status, {status: 'tampered', note});
}

/** The answers the harness received, as a bundle out/ folder (NNNNNN/<result>.bin) plus results.json. */
async function writeAnswers(out: string, cases: CaseOutcome[], signature: PointSignature): Promise<void> {
  await rm(out, {recursive: true, force: true});
  await mkdir(out, {recursive: true});
  for (const c of cases) {
    if (!c.answer) continue;
    const caseDir = path.join(out, String(c.i).padStart(6, '0'));
    await mkdir(caseDir);
    for (const [k, result] of signature.results.entries()) {
      const bytes = c.answer[k];
      if (bytes) await writeFile(path.join(caseDir, `${result.name}.bin`), bytes);
    }
  }
  const records = cases.map(({i, seconds, cpuSeconds, instructions, status, note}) => ({
    i,
    seconds,
    cpuSeconds,
    ...(instructions === undefined ? {} : {instructions}),
    status,
    note: note ?? null,
  }));
  await writeFile(path.join(out, 'results.json'), JSON.stringify({cases: records}));
}

/** Timed cases below this are dominated by the harness round trip. */
const quickCaseSeconds = 0.01;

/** Say so when the reference solves a case faster than timing can resolve well: speedups there are understated. */
function warnIfQuick(ctx: EvalContext, label: string, referenceBest: number[]): void {
  const fastest = Math.min(...referenceBest);
  if (!(fastest < quickCaseSeconds)) return;
  ctx.progress(
    'line',
    `warning: the reference solves a case of ${label} in ${formatSeconds(fastest)}; each timed case also includes the delivery of its inputs and answer, ` +
      `so large speedups on cases under ${quickCaseSeconds * 1000} ms are understated (make the point bigger)`,
  );
}

function formatSeconds(seconds: number): string {
  return seconds < 1 ? `${(seconds * 1000).toPrecision(3)} ms` : `${seconds.toPrecision(3)} s`;
}
