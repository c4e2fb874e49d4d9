/**
 * `eval --against <run id | label | best>` (and MCP evaluate's `against`): a race of one solution
 * against a recorded eval of the same entry, split and plan. This file is the one place that decides
 * which recorded run may be raced against, and what the race answers; the interval and its error
 * are lib/eval/stats.ts's raceInterval.
 *
 * What a reference must be, and why: an `eval` run (a compare's or a calibration's is no full
 * score, a race's own verdict none at all) recorded in this ledger (an imported run was measured
 * elsewhere), of this entry and split, under this very plan (its digest: the same points, seeds,
 * clock and limits), that scored (a run that failed a case has no speed to race), with at least two
 * repetitions (else the spread of its score is unknown).
 */
import path from 'node:path';
import {UsageError} from '../errors.js';
import type {Plan} from '../benchmark/plan.js';
import type {LedgerRun} from '../ledger/ledger.js';
import {planDigest} from '../benchmark/plan.js';
import {raceAlpha, raceDecision, raceInterval, type PointRatios, type RaceDecision} from '../stats/index.js';

/** What a race answers (CompareReport.race, eval --against's line, MCP evaluate's `race`). */
export interface RaceOutcome {
  /** `better` / `worse`: the interval excludes 1; `same`: it holds 1, and no difference over `within` is left; `undecided`: no interval (too few repetitions). */
  decision: RaceDecision;
  /** `same`: the largest difference the interval leaves open, as a fraction (0.084: within 8.4%). */
  within?: number;
  /** The confidence the interval holds at, at every look at once (0.95). */
  confidence: number;
  /** The candidate's speed over the reference run's (geometric mean over points), and its interval. */
  ratio: number | null;
  interval: [number, number] | null;
  /** The repetitions the candidate made (the most any point needed) and the reference run had. */
  repetitions: number;
  referenceRepetitions: number;
  /** Whether the race stopped because it decided (false: the budget ended it). */
  decided: boolean;
  /** The reference run: its ledger id and label. */
  against: {run: number; label: string | null; score: number | null};
}

/** The run `against` names, among the ledger's runs of this entry and split (newest first): an id, `best`, or a label; `what` names the argument in errors. */
export function pickAgainst(against: string, runs: readonly LedgerRun[], plan: Plan, split: string, ledgerFile: string, what = '--against'): number {
  const id = /^#?(\d{1,12})$/.exec(against.trim());
  if (id) return Number(id[1]);
  const digest = planDigest(plan);
  // Only runs that could be raced against: a best or a label of another plan would be refused below anyway.
  const candidates = runs.filter((run) => run.kind === 'eval' && !run.importedFrom && run.score !== null && recordedDigest(run) === digest);
  const where = `of ${plan.name} on ${split} under this plan.toml in ${ledgerFile}`;
  if (against === 'best') {
    const best = candidates.filter((run) => run.status === 'ok' && run.labelKind !== 'file').sort((a, b) => b.score! - a.score! || b.id - a.id)[0];
    if (!best)
      throw new UsageError(`${what} best: no scored eval named by a label, a commit or the entry's own solution ${where}: evaluate one first`, 'not-found');
    return best.id;
  }
  const labelled = candidates.find((run) => run.solutionLabel === against);
  if (!labelled) throw new UsageError(`${what} ${JSON.stringify(against)}: no eval labelled so ${where} (a run id, the label of one, or best)`, 'not-found');
  return labelled.id;
}

/** The plan digest a run was recorded with (lib/eval/record.ts), if any. */
function recordedDigest(run: Pick<LedgerRun, 'environment'>): string | undefined {
  const digest = (run.environment as {planDigest?: unknown}).planDigest;
  return typeof digest === 'string' ? digest : undefined;
}

/** Why run `run` cannot be raced against under `plan` on `split`, in words; undefined when it can. */
export function againstProblem(run: LedgerRun, plan: Plan, split: string): string | undefined {
  if (run.benchmark.name !== plan.name && run.benchmark.path !== plan.dir) return `is of benchmark ${run.benchmark.name}, not ${plan.name}`;
  if (run.split !== split) return `is on the ${run.split} split, not ${split}`;
  if (run.kind !== 'eval') return `is a ${run.kind} run, not an eval: race against an eval's full score`;
  if (run.importedFrom) return `was imported from ${path.basename(run.importedFrom)}: it was not measured here`;
  const digest = recordedDigest(run);
  if (digest === undefined) return 'was recorded without its plan digest (by an older arbor): evaluate that solution again and race against the new run';
  if (digest !== planDigest(plan))
    return `was scored under another plan.toml (digest ${String(digest).slice(0, 16)}, now ${planDigest(plan).slice(0, 16)}): evaluate that solution again`;
  if (run.status !== 'ok' || run.score === null) return `did not score (${run.status}): race against a run that passed every case`;
  return undefined;
}

/** The race's answer from both sides' per-point [rep][case] speedups. */
export function raceOutcome(
  candidate: PointRatios[],
  recorded: PointRatios[],
  input: {band: number; block: number; decided: boolean; run: LedgerRun},
): RaceOutcome {
  const interval = raceInterval(candidate, recorded, input.block) ?? null;
  let decision = raceDecision(interval ?? undefined, input.band);
  // The budget ended the race with the interval holding 1: the difference it leaves open is the answer.
  if (decision === 'undecided' && interval && interval[0] <= 1 && interval[1] >= 1) decision = 'same';
  const repetitions = (points: PointRatios[]) => Math.max(0, ...points.map((point) => point.length));
  return {
    decision,
    ...(decision === 'same' && interval ? {within: Math.max(interval[1] - 1, 1 - interval[0])} : {}),
    confidence: 1 - raceAlpha,
    ratio: interval ? raceRatio(candidate, recorded) : null,
    interval,
    repetitions: repetitions(candidate),
    referenceRepetitions: repetitions(recorded),
    decided: input.decided,
    against: {run: input.run.id, label: input.run.solutionLabel, score: input.run.score},
  };
}

/** The race's estimate: the geometric mean over points of exp(mean log speedup of the candidate - the recorded run's). */
function raceRatio(candidate: PointRatios[], recorded: PointRatios[]): number {
  const meanLog = (ratios: PointRatios) => {
    const logs = ratios.flatMap((rep) => rep.map(Math.log));
    return logs.reduce((a, b) => a + b, 0) / logs.length;
  };
  const points = Math.min(candidate.length, recorded.length);
  let total = 0;
  for (let p = 0; p < points; p++) total += meanLog(candidate[p]!) - meanLog(recorded[p]!);
  return Math.exp(total / points);
}

/** The race in one line: what was decided, at what confidence, after how many repetitions. */
export function raceLine(race: RaceOutcome): string {
  const percent = (value: number) => `${Number((100 * value).toPrecision(2))}%`;
  const what = race.decision === 'same' ? `same within ${percent(race.within!)}` : race.decision;
  const reference = `run #${race.against.run}${race.against.label ? ` (${race.against.label})` : ''}`;
  const shown = race.interval
    ? `${race.ratio!.toPrecision(3)}x ${reference}, ${Math.round(100 * race.confidence)}% interval [${race.interval[0].toPrecision(3)}, ${race.interval[1].toPrecision(3)}]`
    : `against ${reference}, no interval`;
  const how = race.decided ? 'decided' : 'the budget ended the race';
  return `verdict: ${what}: ${shown}, ${how} after ${race.repetitions} repetition(s) (the reference run had ${race.referenceRepetitions})`;
}
