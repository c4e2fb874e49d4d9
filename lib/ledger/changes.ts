/**
 * Regressions and improvements over the run ledger: steps in the score series
 * of a fixed solution lineage (`arbor benchmark runs --changes`). The series
 * are the ledger's; the step detection is lib/stats/steps.ts (its method and
 * why it was chosen are there).
 */
import {detectSteps, type DetectOptions, type Segment} from '../stats/index.js';
import type {LedgerRun} from './ledger.js';

/** Which runs form one series: the same code over time, or the clean commits of the repository. */
export type LineageKind = 'solution' | 'commits';

/** The lineages `findChanges` follows unless told otherwise. */
const lineageKinds: readonly LineageKind[] = ['solution', 'commits'];

/** One score series: the counted runs of a benchmark and split in one lineage, oldest first. */
export interface Lineage {
  benchmark: string;
  split: string;
  kind: LineageKind;
  /** The digest every run shares (`solution`); null for `commits`, which spans digests. */
  solutionSha256: string | null;
  /** The runs' metric (`speedup` runs carry intervals, `accuracy` runs none: their scores are deterministic per case). */
  metric: string;
  runs: LedgerRun[];
}

/** Options of `findChanges`. */
export interface FindChangesOptions extends DetectOptions {
  /** The lineages to follow (default both). */
  lineages?: readonly LineageKind[];
  /** Benchmarks whose plan says direction = "minimize": a step down is their improvement. */
  minimize?: ReadonlySet<string>;
}

/** A run on one side of a step, as the report names it. */
export interface ChangeRun {
  id: number;
  time: string;
  git: {commit: string; dirty: boolean} | null;
  solutionSha256: string | null;
  score: number;
  interval: [number, number] | null;
  environment: string;
}

/** One side of a step: its runs' level and the run next to the step. */
interface ChangeSide {
  /** How many runs the segment holds. */
  runs: number;
  level: number;
  interval: [number, number];
  /** The last run before the step (`before`) or the first after it (`after`). */
  run: ChangeRun;
}

/** A regression or improvement found in one lineage's score series. */
export interface Change {
  benchmark: string;
  split: string;
  lineage: LineageKind;
  /** The lineage's digest (`solution`), null for `commits`. */
  solutionSha256: string | null;
  /** The runs' metric: an `accuracy` series has no per-run intervals, so its levels rest on their scatter alone. */
  metric: string;
  /** Scores are higher-is-better, so a ratio below 1 is a regression. */
  direction: 'regression' | 'improvement';
  /** The level after over the level before. */
  ratio: number;
  interval: [number, number];
  before: ChangeSide;
  after: ChangeSide;
  /** Whether the environment fingerprint differs between the runs either side (a machine or dependency change). */
  environmentChanged: boolean;
}

/**
 * Runs that count in a series: scored evals this ledger recorded. Zero or negative scores have no log and are left out
 * (a failing run is status `failed` anyway); so are runs imported from another ledger (`runs --merge`): nothing proves they were measured here.
 */
function counts(run: LedgerRun): boolean {
  return !run.importedFrom && run.kind === 'eval' && run.status === 'ok' && run.score !== null && Number.isFinite(run.score) && run.score > 0;
}

/**
 * Group runs (any order) into lineages, each oldest first (by time, then id);
 * sorted by benchmark, split, kind, digest. `solution`: the runs of one digest,
 * dirty or not, so a step is the harness, machine or dependencies changing
 * under the same code. `commits`: the runs at clean commits whatever their
 * digest, so a step is usually a commit that changed the score.
 */
export function lineagesOf(runs: readonly LedgerRun[], kinds: readonly LineageKind[] = lineageKinds): Lineage[] {
  const groups = new Map<string, Lineage>();
  const add = (run: LedgerRun, kind: LineageKind, sha: string | null): void => {
    const key = [run.benchmark.name, run.split, kind, sha ?? ''].join('\0');
    let group = groups.get(key);
    if (!group) groups.set(key, (group = {benchmark: run.benchmark.name, split: run.split, kind, solutionSha256: sha, metric: run.metric, runs: []}));
    group.runs.push(run);
  };
  for (const run of runs) {
    if (!counts(run)) continue;
    if (kinds.includes('solution') && run.solutionSha256) add(run, 'solution', run.solutionSha256);
    if (kinds.includes('commits') && run.git && !run.git.dirty) add(run, 'commits', null);
  }
  const order = (a: LedgerRun, b: LedgerRun): number => Date.parse(a.time) - Date.parse(b.time) || a.id - b.id;
  for (const group of groups.values()) group.runs.sort(order);
  return [...groups.values()].sort(
    (a, b) =>
      compareText(a.benchmark, b.benchmark) ||
      compareText(a.split, b.split) ||
      compareText(a.kind, b.kind) ||
      compareText(a.solutionSha256 ?? '', b.solutionSha256 ?? ''),
  );
}

/** Find the regressions and improvements in every lineage of `runs` (any order); sorted by benchmark, split, lineage, time. */
export function findChanges(runs: readonly LedgerRun[], options: FindChangesOptions = {}): Change[] {
  const changes: Change[] = [];
  for (const lineage of lineagesOf(runs, options.lineages)) {
    const steps = detectSteps(
      lineage.runs.map((run) => ({value: run.score!, interval: run.interval})),
      options,
    );
    for (const step of steps) {
      const last = lineage.runs[step.index - 1]!;
      const first = lineage.runs[step.index]!;
      changes.push({
        benchmark: lineage.benchmark,
        split: lineage.split,
        lineage: lineage.kind,
        solutionSha256: lineage.solutionSha256,
        metric: lineage.metric,
        direction: step.ratio < 1 !== (options.minimize?.has(lineage.benchmark) ?? false) ? 'regression' : 'improvement',
        ratio: step.ratio,
        interval: step.interval,
        before: side(step.before, last),
        after: side(step.after, first),
        environmentChanged: last.environment.fingerprint !== first.environment.fingerprint,
      });
    }
  }
  return changes;
}

function side(segment: Segment, run: LedgerRun): ChangeSide {
  return {
    runs: segment.end - segment.start,
    level: segment.level,
    interval: segment.interval,
    run: {
      id: run.id,
      time: run.time,
      git: run.git,
      solutionSha256: run.solutionSha256,
      score: run.score!,
      interval: run.interval,
      environment: run.environment.fingerprint,
    },
  };
}

/** What the series of a `--changes` report were made of: the runs read, those left out of every series and why, and those left out of the commits series. */
export interface ChangesCoverage {
  /** Runs read (after `--split` and `<benchmark>`). */
  runs: number;
  /** Runs a series may hold: the ok eval runs with a positive score this ledger recorded. */
  counted: number;
  /** Runs in no series, by reason (only reasons with runs). */
  leftOut: Array<{reason: 'imported' | 'compare' | 'not-ok' | 'no-positive-score'; runs: number}>;
  /** Counted runs made at an uncommitted state (a dirty working tree) or outside git: in their digest's series, never in the commits series. */
  uncommitted: number;
  /** How many series there are, and how many runs the longest holds. */
  series: number;
  longest: number;
  /** The metrics of the counted runs (an `accuracy` run has no interval). */
  metrics: string[];
}

/** How `findChanges` saw `runs` (any order): which runs it read, left out and why, and the series they formed. */
export function changesCoverage(runs: readonly LedgerRun[], options: Pick<FindChangesOptions, 'lineages'> = {}): ChangesCoverage {
  const reasons = new Map<ChangesCoverage['leftOut'][number]['reason'], number>();
  const kinds = options.lineages ?? lineageKinds;
  let counted = 0;
  let uncommitted = 0;
  const metrics = new Set<string>();
  for (const run of runs) {
    if (counts(run)) {
      counted++;
      metrics.add(run.metric);
      if (kinds.includes('commits') && !(run.git && !run.git.dirty)) uncommitted++;
      continue;
    }
    const reason = run.importedFrom ? 'imported' : run.kind !== 'eval' ? 'compare' : run.status !== 'ok' ? 'not-ok' : 'no-positive-score';
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  const lineages = lineagesOf(runs, kinds);
  const order = ['not-ok', 'compare', 'imported', 'no-positive-score'] as const;
  return {
    runs: runs.length,
    counted,
    leftOut: order.filter((reason) => reasons.has(reason)).map((reason) => ({reason, runs: reasons.get(reason)!})),
    uncommitted,
    series: lineages.length,
    longest: Math.max(0, ...lineages.map((l) => l.runs.length)),
    metrics: [...metrics].sort(compareText),
  };
}

/** Plain code-unit order (not the locale's), so that the order is the same everywhere. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
