/** Plain summaries of a list of numbers: median, mean, spread. */

/** The median of a non-empty list (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Mean of finite values (0 for an empty list). */
export function mean(values: number[]): number {
  if (values.length === 0) return 0;
  let total = 0;
  for (const value of values) total += value;
  const result = total / values.length;
  return Number.isFinite(result) ? result : 0;
}

/** Mean, standard deviation and coefficient of variation of a list. */
export interface Spread {
  mean: number;
  sd: number;
  cv: number;
  min: number;
  max: number;
}

/** The spread of a list: its mean, sample standard deviation (n - 1), coefficient of variation, min and max. */
export function spread(values: number[]): Spread {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const sd = values.length > 1 ? Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1)) : 0;
  return {mean, sd, cv: mean ? sd / mean : 0, min: Math.min(...values), max: Math.max(...values)};
}
