/**
 * The harness floor of a speedup eval: what a timed case costs that is not
 * the solution's (the null cases' median, overhead.ts), and the ceiling it
 * implies. A case's time is never below the floor, so its speedup is never
 * above the reference's time over the floor: no solution, however fast, can
 * score above that on this machine (a public rerun of an AlphaEvolve kernel
 * task found every correct program capped at 8.24x by its harness's own cost).
 *
 * The ceiling is aggregated as the score is (score.ts, pipeline's aggregate):
 * a point's is the mean over its cases of each case's reference time over the
 * point's floor; the eval's is the mean over every case of every point.
 */
import {formatDuration} from './overhead.js';
import {minSeconds} from './score.js';
import type {CaseReport, EvalReport, HarnessFloor, PointReport} from './types.js';

/** A score at or above this share of the ceiling is capped by the harness: the eval says so. */
const nearCeiling = 0.5;

/** Each case's ceiling with its floor: reference seconds over the point's floor (cases without a reference time left out). */
function caseCeilings(cases: readonly CaseReport[], floor: number): Array<{floor: number; ceiling: number}> {
  return cases.flatMap((c) =>
    typeof c.referenceSeconds === 'number' && Number.isFinite(c.referenceSeconds) ? [{floor, ceiling: c.referenceSeconds / Math.max(floor, minSeconds)}] : [],
  );
}

function summarize(cells: Array<{floor: number; ceiling: number}>): HarnessFloor | undefined {
  if (!cells.length) return undefined;
  const mean = (values: number[]) => values.reduce((total, value) => total + value, 0) / values.length;
  const floorSeconds = mean(cells.map((cell) => cell.floor));
  const maxSpeedup = mean(cells.map((cell) => cell.ceiling));
  return Number.isFinite(floorSeconds) && Number.isFinite(maxSpeedup) ? {floorSeconds, maxSpeedup} : undefined;
}

function pointCells(point: PointReport): Array<{floor: number; ceiling: number}> {
  const floor = point.overhead?.seconds;
  return typeof floor === 'number' && floor > 0 ? caseCeilings(point.cases, floor) : [];
}

/**
 * The eval's floor and ceiling (its floor: the mean over its cases of their point's floor), or
 * undefined when a point has no measured floor (accuracy, the instructions clock, a point not run):
 * a ceiling over part of the cases would not bound the score.
 */
export function evalFloor(report: Pick<EvalReport, 'metric' | 'points'>): HarnessFloor | undefined {
  if (report.metric !== 'speedup' || !report.points.length) return undefined;
  const cells = report.points.map(pointCells);
  if (cells.some((each) => !each.length)) return undefined;
  return summarize(cells.flat());
}

/** The report with its floor and ceiling, per point and for the eval (speedup with measured floors; else as it was). */
export function withHarnessFloor(report: EvalReport): EvalReport {
  if (report.metric !== 'speedup') return report;
  const points = report.points.map((point) => {
    const floor = summarize(pointCells(point));
    return floor ? {...point, harnessFloor: floor} : point;
  });
  const floor = evalFloor(report);
  return {...report, points, ...(floor ? {harnessFloor: floor} : {})};
}

/** The one stderr line for a score within `nearCeiling` of its ceiling (a solution capped by the harness), else undefined. */
export function ceilingLine(report: Pick<EvalReport, 'score' | 'failure' | 'harnessFloor'>): string | undefined {
  const floor = report.harnessFloor;
  if (!floor || report.failure || !(report.score >= nearCeiling * floor.maxSpeedup)) return undefined;
  return (
    `note: this eval cannot show a speedup above ${floor.maxSpeedup.toPrecision(4)} on this machine: ${formatDuration(floor.floorSeconds)} of every case is the harness's ` +
    `(delivering its inputs, taking its answer), not the solution's; a score of ${report.score.toPrecision(4)} is ${(report.score / floor.maxSpeedup).toFixed(2)} of that ceiling`
  );
}
