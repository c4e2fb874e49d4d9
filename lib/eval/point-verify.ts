/**
 * The verify stage of a point (point.ts): with every process of every run
 * gone, the answers received are moved into the work folder, the oracle
 * writes expected/, and the bundle verifies each repetition's answers; then
 * each case's report over its repetitions.
 */
import {rename, rm} from 'node:fs/promises';
import path from 'node:path';
import type {Verdict} from '../bundle/index.js';
import type {EvalContext} from './context.js';
import {HarnessError} from './errors.js';
import {explainFailure} from './failure.js';
import {shownCase, shownVerifierError, type ShownCases} from './redact.js';
import {caseAccuracy, timeOnClock} from './score.js';
import {median, type PointRatios} from '../stats/index.js';
import type {CaseReport, RepetitionReport} from './types.js';
import {messageOf} from '../errors.js';
import {bundleFailure, caseSetOf, type MadePoint} from './point-make.js';

/** One solution repetition, before verification. */
export interface SolutionRun {
  out: string;
  /** The repetition it ran in (its cases are that repetition's set). */
  rep: number;
  statuses: RepetitionReport[];
  /** Fresh cases: the run went before the reference's run on the same cases, so its limits are judged again after it (point-run.ts). */
  judgedBefore?: boolean;
  /** Set once the run's answers were verified. */
  verdicts?: Verdict[];
}

/** The times of one case in one run, on the plan's clock and on the wall clock (and its CPU seconds, for the instructions clock's cross-check). */
export interface Timing {
  clock: number;
  wall: number;
  cpu: number | null;
}

/** One side's runs of a point. */
export interface SideStage {
  runs: SolutionRun[];
  /** speedup: paired ratios reference / solution on the plan's clock, [rep][case]. */
  ratios: PointRatios;
  /** Per run with every case answered: its first timed case's time / the median of its others'. */
  firstCase: number[];
}

export async function verifyPoint(ctx: EvalContext, made: MadePoint, stage: SideStage, reference: Timing[][]): Promise<CaseReport[]> {
  const {plan} = ctx;
  const {runs} = stage;
  const {n} = made;
  const tampered = runs.some((run) => run.statuses.some((status) => status.status === 'tampered'));
  const verdictsByRun: Verdict[][] = [];
  // A run that touched protected files scores 0.0; nothing it may have rewritten is executed.
  if (!tampered) {
    for (const run of runs) {
      if (!run.verdicts) await ensureExpected(ctx, made, run.rep);
      verdictsByRun.push((run.verdicts ??= await verifyRun(ctx, made, run)));
    }
  }
  // What of each case leaves the eval: everything on dev, a fixed vocabulary on secret cases (redact.ts).
  const shown: ShownCases = {secret: ctx.secretCases, scoreMetrics: plan.metric === 'accuracy' ? [plan.numerator!, plan.denominator!] : []};
  return Array.from({length: n}, (_, i): CaseReport => {
    const reps = runs.map((run) => run.statuses[i]!);
    const worst = reps.find((r) => r.status !== 'ok' || !r.passed) ?? reps[reps.length - 1]!;
    const verdict = verdictsByRun[reps.indexOf(worst)]?.find((v) => v.i === i);
    const clock = (r: RepetitionReport) => timeOnClock(ctx.clock, r);
    const times = reps.map(clock).filter((t): t is number => typeof t === 'number');
    const seconds = times.length ? median(times) : null;
    const ok = reps.every((r) => r.status === 'ok' && r.passed);
    const referenceTimes = reference[i]?.map((t) => t.clock) ?? [];
    let ratio = 0;
    if (plan.metric === 'speedup') {
      if (ok && stage.ratios.length === reps.length) ratio = median(stage.ratios.map((rep) => rep[i]!));
    } else {
      // A case the verifier could not score gets the plan's fail_score (0 unless a minimize plan says its worst).
      const scored = worst.status === 'ok' || worst.status === 'failed' ? caseAccuracy(verdict?.metrics, plan.numerator!, plan.denominator!) : undefined;
      ratio = scored ?? plan.failScore;
    }
    const report: CaseReport = {i, status: worst.status, passed: ok, seconds, ratio, repetitions: reps};
    const metrics = verdict?.metrics;
    if (metrics) report.metrics = metrics;
    const failure = ok ? undefined : explainFailure(metrics);
    if (failure) report.failure = failure;
    if (worst.note) report.note = worst.note;
    if (worst.where) report.where = worst.where;
    // A failure of a fresh case names its seed, so `arbor bundle make --seeds` reproduces it (shownCase drops it on secret cases).
    const seed = ok || !made.fresh ? undefined : caseSetOf(made, runs[reps.indexOf(worst)]?.rep ?? 0).seeds[i];
    if (seed !== undefined) report.seed = seed;
    if (plan.metric === 'speedup' && referenceTimes.length) {
      report.referenceSeconds = median(referenceTimes);
      report.referenceRepetitions = referenceTimes;
    }
    return shownCase(report, shown);
  });
}

/** Let the oracle write expected/ of repetition `rep`'s cases (once a set; never while a solution process runs). */
export async function ensureExpected(ctx: EvalContext, made: MadePoint, rep: number): Promise<void> {
  const set = caseSetOf(made, rep);
  if (set.expectedWritten) return;
  if (set.expectedFrom) {
    await ctx.timed('expected', () => rename(set.expectedFrom!, path.join(set.work, 'expected')));
    set.expectedWritten = true;
    return;
  }
  ctx.progress('status', `${made.label}: writing expected answers${made.fresh ? ` of repetition ${rep + 1}` : ''}`);
  try {
    await ctx.timed('expected', () => ctx.api.writeExpected(ctx.bundle, set.work));
  } catch (error) {
    throw bundleFailure(`the bundle's oracle failed on ${made.label}`, error, ctx.hiddenSeeds);
  }
  set.expectedWritten = true;
}

/** Verify one repetition's answers in the work folder, and fold the verdicts into its statuses. */
export async function verifyRun(ctx: EvalContext, made: MadePoint, run: SolutionRun): Promise<Verdict[]> {
  const {work} = caseSetOf(made, run.rep);
  const target = path.join(work, 'out');
  await rm(target, {recursive: true, force: true});
  await rename(run.out, target);
  let verdicts: Verdict[];
  try {
    verdicts = (await ctx.timed('verify', () => ctx.api.verifyWorkDir(ctx.bundle, work))).cases;
  } catch (error) {
    // On secret cases the verifier read answers the solution chose, and its words may quote the case: its type alone leaves (redact.ts).
    if (ctx.secretCases) throw new HarnessError(`the bundle's verifier failed on ${made.label}: ${shownVerifierError(messageOf(error), true)}`, 'bad-bundle');
    throw bundleFailure(`the bundle's verifier failed on ${made.label}`, error, ctx.hiddenSeeds);
  } finally {
    await rename(target, run.out).catch(() => {});
  }
  for (const [i, status] of run.statuses.entries()) {
    const verdict = verdicts.find((v) => v.i === i);
    status.passed = status.status === 'ok' && verdict?.passed === true && !verdict.error;
    if (status.status === 'ok' && verdict?.error) {
      // The answer made the verifier raise: a failing case (never a harness failure the
      // solution could provoke), flagged loudly because it may be the bundle's bug.
      ctx.progress('line', `warning: the bundle's verifier raised on case ${i} of ${made.label}: ${shownVerifierError(verdict.error, ctx.secretCases)}`);
      status.status = 'failed';
      status.note = `the verifier raised: ${verdict.error}`;
    } else if (status.status === 'ok' && !status.passed) {
      status.status = verdict?.note ? 'no-answer' : 'failed';
      status.note = [status.note, verdict?.note].filter(Boolean).join('; ') || undefined;
    }
  }
  return verdicts;
}
