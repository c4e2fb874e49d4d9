/** Scores: per-case values, aggregation and the one `score:` line. */
import type {Clock} from '../benchmark/plan.js';
import type {CaseReport, EvalReport} from './types.js';

/** Smallest solution time a speedup ratio divides by (s): the clock's resolution is not a speedup. */
export const minSeconds = 1e-6;

/**
 * Write a finite score so that Python's float() and JavaScript's Number() both
 * read it back exactly: the shortest round-trip form, with `.0` on integers
 * (like Python's repr). Throws on NaN or infinities; -0 prints as 0.0.
 */
export function formatScore(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`score is not finite: ${value}`);
  if (Object.is(value, -0) || value === 0) return '0.0';
  const text = String(value);
  return /^-?\d+$/.test(text) ? `${text}.0` : text;
}

/** The speedup of one case: reference seconds / solution seconds (solution floored at minSeconds). */
export function speedupRatio(referenceSeconds: number, solutionSeconds: number): number {
  return referenceSeconds / Math.max(solutionSeconds, minSeconds);
}

/** What a run measured of one case: wall seconds, and CPU seconds and instructions where the clock counted them. */
export interface CaseTimes {
  seconds: number | null;
  cpuSeconds?: number | null;
  instructions?: number | null;
}

/** A case's time on a clock: CPU seconds, instructions, or wall seconds. */
export function timeOnClock(clock: Clock | null | undefined, times: CaseTimes): number | null | undefined {
  if (clock === 'cpu') return times.cpuSeconds;
  if (clock === 'instructions') return times.instructions;
  return times.seconds;
}

/**
 * A point's speedups rebuilt from a report's cases: [rep][case] reference /
 * solution on the clock, over the repetitions every case made (NaN where a
 * repetition has no time).
 */
export function repetitionSpeedups(cases: CaseReport[], clock: Clock | null | undefined): number[][] {
  const own = [...cases].sort((a, b) => a.i - b.i);
  const count = Math.min(...own.map((c) => Math.min(c.repetitions.length, c.referenceRepetitions?.length ?? 0)));
  return Array.from({length: Number.isFinite(count) ? count : 0}, (_, k) =>
    own.map((c) => speedupRatio(c.referenceRepetitions![k]!, timeOnClock(clock, c.repetitions[k]!) ?? NaN)),
  );
}

/** Every case of every point of a report, with the index of its point. */
export function flatCases(report: Pick<EvalReport, 'points'>) {
  return report.points.flatMap((point) => point.cases.map((c) => ({point: point.index, ...c})));
}

/**
 * The accuracy of one case: metrics[numerator] / metrics[denominator], or
 * undefined when the case has no metrics, either value is missing or not
 * finite, or the denominator is not positive.
 */
export function caseAccuracy(metrics: Record<string, unknown> | undefined, numerator: string, denominator: string): number | undefined {
  if (!metrics) return undefined;
  const top = metrics[numerator];
  const bottom = metrics[denominator];
  if (typeof top !== 'number' || typeof bottom !== 'number') return undefined;
  if (!Number.isFinite(top) || !Number.isFinite(bottom) || bottom <= 0) return undefined;
  const ratio = top / bottom;
  return Number.isFinite(ratio) ? ratio : undefined;
}

/** The accuracy of one case, 0 where caseAccuracy has none. */
export function accuracyRatio(metrics: Record<string, unknown> | undefined, numerator: string, denominator: string): number {
  return caseAccuracy(metrics, numerator, denominator) ?? 0;
}
