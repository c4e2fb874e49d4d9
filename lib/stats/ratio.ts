/**
 * The compare ratio, candidate over baseline (above 1: the candidate is
 * better), its 95% interval and the verdict it gives.
 *
 * Speed, both sides in one eval: per case and repetition the paired ratio
 * baseline time / candidate time (the two runs are adjacent in time, so a
 * slow phase of the machine moves both), per case its median, the ratio their
 * mean: the estimator of the speed score itself (lib/stats/speed.ts), with its
 * bootstrap over repetitions. Against a recorded baseline run the sides were
 * not measured together: per case the candidate's median speedup over the
 * baseline's, each side's repetitions resampled on their own.
 *
 * Accuracy is deterministic per case: the ratio of the mean per-case scores,
 * its interval a paired bootstrap over cases (how much the verdict rests on
 * the particular cases drawn).
 */
import {median} from './describe.js';
import {generator, percentileInterval, scoreInterval, speedScore, type PointRatios} from './speed.js';

/** `undecided`: a race (`eval --against`) that formed no interval; a compare always decides. */
export type Verdict = 'better' | 'worse' | 'same' | 'undecided';

/** better when the interval lies above 1, worse when below, same when it holds 1. */
export function verdictOf([low, high]: [number, number]): Verdict {
  if (low > 1) return 'better';
  if (high < 1) return 'worse';
  return 'same';
}

/**
 * Paired speed ratio and interval from per-point [rep][case] ratios baseline time / candidate time;
 * `block`: neighbouring repetitions that shared their runs (scoreInterval).
 */
export function pairedRatio(pairs: PointRatios[], block = 1): {ratio: number; interval: [number, number]} {
  return {ratio: speedScore(pairs), interval: scoreInterval(pairs, 2000, 1, block)};
}

/** Per case, the median candidate speedup over the median baseline speedup; their mean. */
function unpairedScore(baseline: PointRatios[], candidate: PointRatios[]): number {
  let total = 0;
  let count = 0;
  for (const [p, base] of baseline.entries()) {
    const cand = candidate[p]!;
    const cases = base[0]?.length ?? 0;
    for (let c = 0; c < cases; c++) {
      total += median(cand.map((rep) => rep[c]!)) / median(base.map((rep) => rep[c]!));
      count++;
    }
  }
  return count ? total / count : 0;
}

/** Speed ratio of two separately measured runs (per-point [rep][case] speedups over the reference), with a bootstrap resampling each side's repetitions. */
export function unpairedRatio(baseline: PointRatios[], candidate: PointRatios[], resamples = 2000, seed = 1): {ratio: number; interval: [number, number]} {
  const random = generator(seed);
  const draw = (points: PointRatios[]) => points.map((ratios) => ratios.map(() => ratios[Math.floor(random() * ratios.length)]!));
  const scores: number[] = [];
  for (let b = 0; b < resamples; b++) scores.push(unpairedScore(draw(baseline), draw(candidate)));
  return {ratio: unpairedScore(baseline, candidate), interval: percentileInterval(scores)};
}

/** Accuracy ratio mean(candidate) / mean(baseline) over paired per-case scores, with a bootstrap over cases; null when the baseline scores 0. */
export function accuracyRatio(baseline: number[], candidate: number[], resamples = 2000, seed = 1): {ratio: number; interval: [number, number]} | null {
  const ratioOf = (indexes: number[]) => {
    const base = indexes.reduce((sum, k) => sum + baseline[k]!, 0);
    const cand = indexes.reduce((sum, k) => sum + candidate[k]!, 0);
    return base > 0 ? cand / base : cand > 0 ? Infinity : 1;
  };
  const all = baseline.map((_, k) => k);
  if (!(all.reduce((sum, k) => sum + baseline[k]!, 0) > 0)) return null;
  const random = generator(seed);
  const scores: number[] = [];
  for (let b = 0; b < resamples; b++) {
    // A resample where the baseline scores nothing has no ratio: it is left out, as undefined.
    const score = ratioOf(all.map(() => Math.floor(random() * all.length)));
    if (Number.isFinite(score)) scores.push(score);
  }
  return {ratio: ratioOf(all), interval: percentileInterval(scores)};
}
