/**
 * What a timed case costs besides the solution's work: delivering its inputs
 * over the runner's socket, wrapping them as arrays, converting the answer and
 * sending it back. The reference's runs time it with null cases (the runner
 * answers zeros without calling run()); a solution whose cases take little
 * more than that has a speedup the clock cannot resolve, and the eval says so.
 *
 * The overhead is reported, never subtracted: a time minus the overhead tends
 * to zero (and its ratio to infinity) as a solution nears the overhead, so
 * noise in the delivery would become score. Unsubtracted, a speedup can only
 * be understated near the overhead, never inflated: its ratio is bounded by
 * the reference's time over the overhead.
 */
import type {CaseReport} from './types.js';

/** A solution's cases under this many times the overhead are mostly delivery: the point warns. */
const overheadFactor = 10;

/** The fastest passing case's median time over the overhead, or null when there is none to compare. */
export function overheadRatio(cases: readonly CaseReport[], overheadSeconds: number): number | null {
  const times = cases.flatMap((c) => (c.status === 'ok' && c.passed && typeof c.seconds === 'number' ? [c.seconds] : []));
  if (!times.length || !(overheadSeconds > 0)) return null;
  return Math.min(...times) / overheadSeconds;
}

/** The warning for a side whose cases are near the overhead, or undefined when they are not. */
export function overheadWarning(where: string, who: string, ratio: number | null, overheadSeconds: number): string | undefined {
  if (ratio === null || ratio >= overheadFactor) return undefined;
  return (
    `${where}: the ${who}'s fastest case takes ${formatDuration(ratio * overheadSeconds)}, ${ratio.toFixed(1)}x the ${formatDuration(overheadSeconds)} ` +
    `that delivering a case's inputs and taking its answer costs (under ${overheadFactor}x): its speedup is understated; a larger point measures it better`
  );
}

/** A duration in µs, ms or s, three significant digits. */
export function formatDuration(seconds: number): string {
  return seconds < 1e-3 ? `${(seconds * 1e6).toPrecision(3)} µs` : seconds < 1 ? `${(seconds * 1e3).toPrecision(3)} ms` : `${seconds.toPrecision(3)} s`;
}
