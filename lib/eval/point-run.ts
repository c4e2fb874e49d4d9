/**
 * The run stage of a point (point.ts): each repetition runs the reference
 * (speedup), then each side, on the same fresh cases, in ABBA order, until the
 * score is as precise as the plan asks or the budget is spent; the sandbox
 * delivers every case and times it from outside (lib/sandbox, a run opened
 * from a spec). Which run serves a repetition (fresh, started ahead, or kept
 * for repetitionsPerRun repetitions and frozen between them) is
 * point-runs.ts's; what a run's answers say, point-answers.ts's.
 */
import {readFile} from 'node:fs/promises';
import path from 'node:path';
import {clockSlowdown, settlingWarmup, type RunOutcome, type RunService, type UntimedCall} from '../sandbox/index.js';
import {HarnessError} from './errors.js';
import type {EvalContext, RunFiles} from './context.js';
import {speedupRatio, timeOnClock, type CaseTimes} from './score.js';
import {
  median,
  raceDecision,
  raceFirstLook,
  raceInterval,
  ratioSequence,
  relativeHalfWidth,
  scoreInterval,
  sequentialDecision,
  speedScore,
  stoppingHalfWidths,
  stoppingResamples,
  trustedRepetitions,
  type PointRatios,
  type RaceDecision,
  type SequentialDecision,
} from '../stats/index.js';
import {caseSetOf, makeCaseSet, type MadePoint} from './point-make.js';
import {ensureExpected, verifyRun, type SideStage, type Timing} from './point-verify.js';
import {markTampered, placeCrashes, statusOf, crossCheckCounts, writeAnswers} from './point-answers.js';
import {noteRepeatedCases, pairsCases, repetitionBlock, runOnce, servePaired, sideName, type SideLimits} from './point-runs.js';

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
    // A race (one side against a recorded run) stops as soon as its interval decides (valid at every look);
    // a compare as soon as its ratio's confidence sequence decides (it holds at every look);
    // an eval when its score's interval is as narrow as the plan asks.
    const race = ctx.race && ctx.sides.length === 1 ? raceLook(ctx, made.index, state, step) : undefined;
    precise =
      race !== undefined
        ? race !== 'undecided' && rep + 1 >= raceFirstLook
        : decision !== undefined
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
    return state.referenceWarmup.length
      ? Math.max(plan.minTimeout, plan.timeoutFactor * Math.max(...state.referenceWarmup))
      : plan.initTimeout * clockSlowdown(ctx.clock);
  // The kill limit stays on wall time: it is about hangs, not speed.
  if (!made.fresh) return Math.max(plan.minTimeout, plan.timeoutFactor * Math.min(...state.reference[i]!.map((t) => t.wall)));
  const same = state.reference[i]![rep];
  if (same) return Math.max(plan.minTimeout, plan.timeoutFactor * same.wall);
  if (!sideFailed) return plan.timeout * clockSlowdown(ctx.clock);
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
  const ref = await runOnce(ctx, made, rep, ctx.referenceFiles!, (i) => (i < 0 ? plan.initTimeout : plan.timeout) * clockSlowdown(ctx.clock), next, {
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
      reference.map((times) => (ctx.clock === 'instructions' ? times[0]!.wall / clockSlowdown(ctx.clock) : times[0]!.clock)),
    );
}

/** A run of side s: its cases' statuses (checked for tampering), its answers written out for verification; a case not answered in time fails the side. */
async function runSide(ctx: EvalContext, made: MadePoint, state: Repetitions, s: number, rep: number, step: string, next: RunFiles | undefined): Promise<void> {
  const side = ctx.sides[s]!;
  ctx.progress('status', `${step}${sideName(ctx, s)}`);
  const limits = sideLimits(ctx, made, state, s, rep);
  // Secret cases: a crash's note keeps no message that could carry a value of the case (lib/sandbox/crash.ts).
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

/**
 * A race's look after a repetition of point `index` (SidesOptions.race): this point's repetitions
 * against the recorded run's same point alone (raceInterval over one point, at the whole error:
 * each point stops on its own, as with the precision rule), said in a progress line.
 */
function raceLook(ctx: EvalContext, index: number, state: Repetitions, step: string): RaceDecision {
  const recorded = ctx.race!.recorded[index];
  if (!recorded) return 'undecided';
  const interval = raceInterval([state.sides[0]!.ratios], [recorded], repetitionBlock(ctx));
  const decision = raceDecision(interval, ctx.plan.precision);
  const shown = interval ? `[${interval[0].toPrecision(4)}, ${interval[1].toPrecision(4)}]` : 'none yet';
  ctx.progress('line', `${step}against the recorded run: 95% interval ${shown}${decision === 'undecided' ? '' : `: ${decision}`}`);
  return decision;
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
