/** Scores: per-case values, aggregation and the one `score:` line. */

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

/**
 * The accuracy of one case: metrics[numerator] / metrics[denominator], or 0
 * when the case has no metrics, either value is missing or not finite, or the
 * denominator is not positive.
 */
export function accuracyRatio(metrics: Record<string, unknown> | undefined, numerator: string, denominator: string): number {
  if (!metrics) return 0;
  const top = metrics[numerator];
  const bottom = metrics[denominator];
  if (typeof top !== 'number' || typeof bottom !== 'number') return 0;
  if (!Number.isFinite(top) || !Number.isFinite(bottom) || bottom <= 0) return 0;
  const ratio = top / bottom;
  return Number.isFinite(ratio) ? ratio : 0;
}

/** Mean of finite values (0 for an empty list). */
export function mean(values: number[]): number {
  if (values.length === 0) return 0;
  let total = 0;
  for (const value of values) total += value;
  const result = total / values.length;
  return Number.isFinite(result) ? result : 0;
}
