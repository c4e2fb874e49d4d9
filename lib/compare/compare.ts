/**
 * `arbor benchmark compare`: is the candidate really better than the
 * baseline? Both run in one eval (runSides): the same cases, the same
 * reference runs, the same clock and sandbox, interleaved per repetition.
 * Or the candidate runs alone against a baseline run recorded in the ledger.
 * Library code: progress goes through a callback, nothing is printed.
 */
import {rm, stat} from 'node:fs/promises';
import path from 'node:path';
import {UsageError} from '../errors.js';
import {HarnessError} from '../eval/index.js';
import {loadPlan, type Clock, type Plan} from '../benchmark/plan.js';
import {flatCases} from '../eval/index.js';
import {
  accuracyRatio,
  closingInterval,
  median,
  pairedRatio,
  type PointRatios,
  ratioSequence,
  sequentialDecision,
  type SequentialDecision,
  trustedRepetitions,
  unpairedRatio,
  type Verdict,
  verdictOf,
} from '../stats/index.js';
import type {CaseStatus, EvalOptions, EvalReport, Planned} from '../eval/index.js';
import {createWorkFolder} from '../eval/index.js';
import type {CompareOutcome} from '../ledger/ledger.js';
import type {LabelKind} from '../ledger/ledger.js';
import {describeSide, resolveSide, sideLabel, type SideSource} from './sides.js';
import {raceOutcome, type RaceOutcome} from './against.js';
import {readRecorded, speedups, type RecordedBaseline, type SideCase} from './recorded.js';

/** Options of runComparePlanned. */
export interface CompareOptions extends Omit<EvalOptions, 'solution' | 'bundleApi'> {
  /** A solution file, a folder of editable files, or a git revision (omitted with baselineRun). */
  baseline?: string;
  candidate: string;
  /** Reuse this ledger run as the baseline instead of running it. */
  baselineRun?: number;
  /**
   * Race the candidate against a recorded eval of this plan (a run id, a label, or `best`; against.ts):
   * its repetitions stop as soon as the race decides, and the verdict is the race's (`race`).
   */
  against?: string;
  /** The ledger baselineRun is read from (default: the benchmark's, as `eval` records to). */
  ledger?: string;
}

export type {SideCase} from './recorded.js';

/** One side as the report shows it. */
export interface SideSummary {
  /** The argument given (or `run <id>`). */
  argument: string;
  /** What it is: `solution.py (file, as committed)`, `HEAD~1 (commit …)`, `ledger run 12 (…)`. */
  description: string;
  /** Its name in the ledger: `solution.py@3fa2c1`, `../fast.py@07b1e9` (from the benchmark folder, with a digest), `commit 1a2b3c4d5e6f (HEAD~1)`, `ledger run #12`. */
  label: string;
  /** How the label was made (lib/ledger LabelKind); absent for a ledger run reused as the baseline. */
  labelKind?: LabelKind;
  score: number;
  interval: [number, number] | null;
  failure?: string;
  solutionSha256: string | null;
  repetitions: number;
  /** The ledger run it came from (`--baseline-run`). */
  run?: number;
  /** Fingerprint of the environment it was measured in. */
  environment: string | null;
}

/** One case, both sides. */
export interface CaseComparison {
  point: number;
  i: number;
  /** Candidate over baseline for this case (speed: median paired time ratio), null when undefined (a side failed, or a baseline share of 0). */
  ratio: number | null;
  baseline: {status: CaseStatus; passed: boolean; seconds: number | null; score: number};
  candidate: {status: CaseStatus; passed: boolean; seconds: number | null; score: number};
  /**
   * accuracy: the candidate's share on this case against the baseline's, under the
   * plan's direction (a partial-credit case that neither side gets perfect is no failure).
   */
  outcome?: 'better' | 'worse' | 'same';
}

/** The report (`--json FILE`). */
export interface CompareReport {
  benchmark: string;
  name: string;
  split: 'dev' | 'test';
  metric: Plan['metric'];
  verdict: Verdict;
  /** Candidate score over baseline score (above 1: better); null when a side failed outright. */
  ratio: number | null;
  /** The ratio's 95% interval. */
  ci: [number, number] | null;
  /** How the verdict was reached, in one line. */
  reason: string;
  /** speed: `paired` (one eval) or `unpaired` (against a recorded run). */
  pairing?: 'paired' | 'unpaired';
  /**
   * speed, paired: how the pairs were timed: `run`, each side's segment of a repetition's cases
   * in turn (the default); `case`, each case on both sides back to back (ARBOR_COMPARE_PAIRING=case).
   */
  pairedBy?: 'case' | 'run';
  /** speed: the stopping rule on the ratio: target half-width, reached half-width, whether met. */
  precision?: {target: number; halfWidth: number; reached: boolean};
  /**
   * speed, paired: the ratio's 97.5% confidence sequence, valid at every repetition at once,
   * which the stopping rule and the verdict read: `different` once it excludes 1, `same` once
   * it lies inside the band [1 / (1 + precision), 1 + precision], `undecided` when the budget
   * ended the repetitions first; with the pairs (case x repetition) it took, and how many
   * neighbouring repetitions shared their runs (kept runs), which its spread treats as correlated.
   * `closing`: when the budget ended the repetitions undecided, the closing look's 97.5% interval
   * over all of them and its decision against the same band (the sequence and the closing look
   * spend 2.5% each of the verdict's 5%, stats.ts).
   */
  sequence?: {
    interval: [number, number];
    band: [number, number];
    decision: SequentialDecision;
    pairs: number;
    repetitionsPerRun: number;
    closing?: {interval: [number, number]; decision: SequentialDecision};
  };
  clock?: EvalReport['clock'];
  sandbox: EvalReport['sandbox'];
  repetitions: number;
  baseline: SideSummary;
  candidate: SideSummary;
  cases: CaseComparison[];
  /**
   * Cases that one side (or both) fails. speed: a wrong answer or none (the
   * side scores 0.0). accuracy: no answer the verifier could score (crashed,
   * timeout, no-answer, not-run, tampered: the case scores the plan's
   * fail_score); an imperfect answer is partial credit, never listed here.
   */
  correctness: Array<{point: number; i: number; failing: 'baseline' | 'candidate' | 'both'}>;
  /** The environment of this run (the candidate's). */
  environment?: EvalReport['environment'];
  /** Set when the recorded baseline was measured elsewhere: the comparison mixes environments. */
  environmentNote?: string;
  /** Seconds the compare took. */
  seconds: number;
  /** The full eval reports (the baseline's is null when it came from the ledger). */
  reports: {baseline: EvalReport | null; candidate: EvalReport};
  /** The recorded baseline's cases (with --baseline-run), as the package needs them. */
  recordedBaseline?: {cases: SideCase[]; clock: string | null};
  /** `against`: what the race decided, at what confidence, after how many repetitions. */
  race?: RaceOutcome;
}

/** Run the comparison, and answer it with the plan both sides were scored under (read once, here); throws UsageError / HarnessError when it cannot be made. */
export async function runComparePlanned(options: CompareOptions): Promise<Planned<CompareReport>> {
  const started = process.hrtime.bigint();
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const dir = path.resolve(cwd, options.benchmark);
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory())
    throw new UsageError(`benchmark folder ${options.benchmark} ${info ? 'is not a folder' : 'does not exist'}: pass a folder holding plan.toml`, 'not-found');
  if (options.split !== 'dev' && options.split !== 'test') throw new UsageError(`unknown split "${options.split}": expected dev or test`, 'usage');
  const plan = options.plan ?? (await loadPlan(dir));
  const recording = options.against !== undefined || options.baselineRun !== undefined;
  if (options.against !== undefined && plan.metric !== 'speedup')
    throw new UsageError(`--against races speed scores: ${plan.name} is an accuracy benchmark, whose score is exact: evaluate it without --against`, 'usage');
  const recorded = recording ? await readRecorded({...options, split: options.split}, plan, env, cwd) : undefined;
  const race = options.against !== undefined && recorded ? {recorded: speedups(recorded.cases, recorded.environment.clock as Clock | undefined)} : undefined;
  const scratch = await createWorkFolder();
  try {
    const context = {plan, cwd, scratch};
    const baseline = recorded ? undefined : await resolveSide('baseline', options.baseline ?? '', context);
    const candidate = await resolveSide('candidate', options.candidate, context);
    const {runSides} = await import('../eval/index.js');
    const outcome = await runSides({
      benchmark: options.benchmark,
      split: options.split,
      cwd,
      env,
      keep: options.keep,
      unsandboxed: options.unsandboxed,
      onProgress: options.onProgress,
      planOverride: options.planOverride,
      plan,
      sides: baseline ? [baseline.request, candidate.request] : [candidate.request],
      // A race makes the plan's fewest and stops when it decides; an unpaired compare as many as the recorded run.
      ...(race ? {race} : {minRepetitions: recorded?.repetitions}),
    });
    const reports = {baseline: baseline ? outcome.reports[0]! : null, candidate: outcome.reports[outcome.reports.length - 1]!};
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    const {pairs, precise, budgetEnded, pairedBy, repetitionBlock} = outcome;
    const report = buildReport({
      plan,
      split: options.split,
      cwd,
      baseline,
      candidate,
      recorded,
      reports,
      pairs,
      precise,
      budgetEnded,
      pairedBy,
      repetitionBlock,
      seconds,
      race: race !== undefined,
    });
    return {report, plan};
  } finally {
    await rm(scratch, {recursive: true, force: true}).catch(() => {});
  }
}

interface BuildInput {
  plan: Plan;
  split: 'dev' | 'test';
  cwd: string;
  baseline?: SideSource;
  candidate: SideSource;
  recorded?: RecordedBaseline;
  reports: CompareReport['reports'];
  pairs: PointRatios[];
  precise: boolean;
  /** The budget (or the cap) ended every point's repetitions: the closing look may be taken. */
  budgetEnded?: boolean;
  pairedBy?: CompareReport['pairedBy'];
  /** Neighbouring repetitions that shared their runs (SidesOutcome). */
  repetitionBlock?: number;
  seconds: () => number;
  /** The candidate raced the recorded run (`against`). */
  race?: boolean;
}

/** The comparison of two measured sides: the cases matched, the verdict, each case both ways, and each side's summary. */
function buildReport(input: BuildInput): CompareReport {
  const {plan, reports, recorded} = input;
  const candidateReport = reports.candidate;
  const matched = matchCases(input);
  const clock = candidateReport.clock;
  const baseFailure = recorded ? (recorded.status === 'failed' ? `ledger run ${recorded.id} scored 0.0` : undefined) : reports.baseline!.failure;
  const candFailure = candidateReport.failure;
  const speed = plan.metric === 'speedup';
  const judgement = speed ? judgeSpeed(input, matched, baseFailure, candFailure) : judgeAccuracy(matched, plan.direction === 'minimize');
  const {ratio, ci, verdict, reason, pairing, sequence} = judgement;
  const {cases, correctness} = caseRows(matched, judgement.perCase, speed ? undefined : plan.direction === 'minimize');
  const report: CompareReport = {
    benchmark: candidateReport.benchmark,
    name: candidateReport.name,
    split: input.split,
    metric: plan.metric,
    verdict,
    ratio,
    ci,
    reason,
    ...(pairing ? {pairing} : {}),
    ...(pairing === 'paired' && input.pairedBy ? {pairedBy: input.pairedBy} : {}),
    ...(sequence ? {sequence} : {}),
    ...(clock ? {clock} : {}),
    sandbox: candidateReport.sandbox,
    repetitions: candidateReport.repetitions,
    baseline: recorded ? recordedSummary(recorded, baseFailure) : sideSummary(input, input.baseline!, reports.baseline!),
    candidate: sideSummary(input, input.candidate, candidateReport),
    cases,
    correctness,
    environment: candidateReport.environment,
    seconds: input.seconds(),
    reports,
  };
  if (speed && ci && ratio) report.precision = {target: plan.precision, halfWidth: (ci[1] - ci[0]) / 2 / ratio, reached: input.precise};
  if (judgement.race) report.race = judgement.race;
  if (recorded) {
    report.recordedBaseline = {cases: recorded.cases, clock: recorded.environment.clock ?? null};
    const here = candidateReport.environment?.fingerprint;
    if (here !== recorded.environment.fingerprint) {
      report.environmentNote = `ledger run ${recorded.id} was measured in another environment (${recorded.environment.fingerprint}) than this run (${here ?? 'unknown'}): the ratio mixes machines or software versions`;
    }
  }
  return report;
}

/** A case's key among both sides' cases: its point and index. */
function caseKey(c: {point: number; i: number}): string {
  return `${c.point}:${c.i}`;
}

/** Both sides' cases, the baseline's by key. */
interface MatchedCases {
  baseCases: SideCase[];
  candCases: SideCase[];
  baseByKey: Map<string, SideCase>;
}

/** Both sides' cases, or the HarnessError when a recorded baseline ran on other seeds or other cases. */
function matchCases(input: BuildInput): MatchedCases {
  const {reports, recorded} = input;
  const candidateReport = reports.candidate;
  const baseCases = recorded ? recorded.cases : flatCases(reports.baseline!);
  const candCases = flatCases(candidateReport);
  const baseByKey = new Map(baseCases.map((c) => [caseKey(c), c]));
  if (recorded && (recorded.seeds.source !== candidateReport.seeds.source || recorded.seeds.count !== candidateReport.seeds.count)) {
    const seeds = (s: {source: string; count: number}) => `${s.count} ${s.source} seed(s)`;
    throw new HarnessError(
      `ledger run ${recorded.id} ran on ${seeds(recorded.seeds)}, this eval on ${seeds(candidateReport.seeds)}: not the same cases, so they cannot be compared`,
      'not-comparable',
    );
  }
  if (candCases.some((c) => !baseByKey.has(caseKey(c))) || baseCases.length !== candCases.length) {
    throw new HarnessError(
      `ledger run ${recorded?.id} has ${baseCases.length} case(s), this eval ${candCases.length}: not the same cases, so they cannot be compared`,
      'not-comparable',
    );
  }
  return {baseCases, candCases, baseByKey};
}

/** The overall ratio, its interval and the verdict with its reason; the ratio of each case by key. */
interface Judgement {
  ratio: number | null;
  ci: [number, number] | null;
  verdict: Verdict;
  reason: string;
  pairing?: CompareReport['pairing'];
  sequence?: CompareReport['sequence'];
  race?: RaceOutcome;
  perCase: Map<string, number | null>;
}

/**
 * Speed: a side that fails a case scores 0.0 and decides the verdict;
 * otherwise the ratio of scores with its interval, paired per repetition in
 * one eval, unpaired against a recorded run (on the clock each side was timed on).
 */
function judgeSpeed(input: BuildInput, matched: MatchedCases, baseFailure: string | undefined, candFailure: string | undefined): Judgement {
  const {recorded} = input;
  const {baseCases, candCases, baseByKey} = matched;
  const clock = input.reports.candidate.clock;
  const perCase = new Map<string, number | null>();
  if (baseFailure || candFailure) {
    const verdict: Verdict = baseFailure && candFailure ? 'same' : candFailure ? 'worse' : 'better';
    const ratio = candFailure && !baseFailure ? 0 : null;
    const reason =
      baseFailure && candFailure ? 'both sides fail a case, so both score 0.0' : `the ${candFailure ? 'candidate' : 'baseline'} fails a case, so it scores 0.0`;
    return {ratio, ci: null, verdict, reason, perCase};
  }
  if (input.race && recorded) return judgeRace(input, recorded, matched);
  const pairing = recorded ? 'unpaired' : 'paired';
  const result = recorded
    ? unpairedRatio(speedups(baseCases, (recorded.environment.clock as Clock | undefined) ?? clock), speedups(candCases, clock))
    : pairedRatio(input.pairs, input.repetitionBlock);
  let verdict = verdictOf(result.interval);
  let reason = `the ratio's 95% interval ${verdict === 'same' ? 'contains' : verdict === 'better' ? 'lies above' : 'lies below'} 1`;
  let sequence: CompareReport['sequence'];
  const band = input.plan.precision;
  // The sequence is read from trustedRepetitions on (the stopping rule's fewest): a compare the budget
  // ended before that keeps the bootstrap interval's verdict, as an eval trusts no interval before it.
  const fewest = Math.min(...input.pairs.map((point) => point.length));
  const interval = recorded || !(fewest >= trustedRepetitions) ? undefined : ratioSequence(input.pairs, input.repetitionBlock);
  if (interval) {
    // The verdict of a paired compare is its confidence sequence's (it stopped on it, and a
    // fixed-n interval read after looking at every repetition would say "different" too often),
    // or, where the budget ended the repetitions first, its closing look's.
    const decision = sequentialDecision(interval, band);
    const pairs = input.pairs.reduce((total, point) => total + point.reduce((sum, rep) => sum + rep.length, 0), 0);
    sequence = {interval, band: [1 / (1 + band), 1 + band], decision, pairs, repetitionsPerRun: input.repetitionBlock ?? 1};
    const shown = (bounds: [number, number]) => `[${bounds[0].toPrecision(4)}, ${bounds[1].toPrecision(4)}]`;
    const percent = `${Number((100 * band).toPrecision(3))}%`;
    // The budget ended the repetitions before the sequence decided: one closing look over all of
    // them, at the 2.5% the sequence left (closingInterval: their number is the clock's, not the data's).
    const closing = decision === 'undecided' && input.budgetEnded ? closingInterval(input.pairs, input.repetitionBlock) : undefined;
    const closingDecision = closing && sequentialDecision(closing, band);
    if (closing && closingDecision) sequence.closing = {interval: closing, decision: closingDecision};
    const after = `after ${pairs} pairs`;
    const atEnd = `the budget ended the repetitions after ${pairs} pairs with the ratio's 97.5% confidence sequence ${shown(interval)} undecided, and`;
    if (decision === 'different') {
      verdict = interval[0] > 1 ? 'better' : 'worse';
      reason = `the ratio's 97.5% confidence sequence ${shown(interval)} lies ${verdict === 'better' ? 'above' : 'below'} 1 (${after})`;
    } else if (decision === 'same') {
      verdict = 'same';
      reason = `the ratio's 97.5% confidence sequence ${shown(interval)} lies within ±${percent} of 1 (${after})`;
    } else if (closing && closingDecision === 'different') {
      verdict = closing[0] > 1 ? 'better' : 'worse';
      reason = `${atEnd} its closing 97.5% interval ${shown(closing)} lies ${verdict === 'better' ? 'above' : 'below'} 1`;
    } else if (closing && closingDecision === 'same') {
      verdict = 'same';
      reason = `${atEnd} its closing 97.5% interval ${shown(closing)} lies within ±${percent} of 1`;
    } else {
      verdict = 'same';
      // The last interval read says how small a difference it leaves open.
      const last = closing ?? interval;
      reason = `no difference shown: the ratio's 97.5% confidence sequence ${shown(interval)}${closing ? ` and its closing 97.5% interval ${shown(closing)} hold` : ' holds'} 1 but ${closing ? 'are' : 'is'} wider than ±${percent} (the budget ended the repetitions after ${pairs} pairs; a difference under about ${Number((100 * Math.max(last[1] - 1, 1 - last[0])).toPrecision(2))}% is not ruled out)`;
    }
  }
  if (recorded) {
    for (const c of candCases) perCase.set(caseKey(c), c.ratio / baseByKey.get(caseKey(c))!.ratio);
  } else {
    for (const c of candCases) perCase.set(caseKey(c), median(input.pairs[c.point]!.map((rep) => rep[c.i]!)));
  }
  return {ratio: result.ratio, ci: result.interval, verdict, reason, pairing, perCase, ...(sequence ? {sequence} : {})};
}

/** A race against a recorded run (`against`): the verdict and interval are the race's, its repetitions looked at as they came (against.ts). */
function judgeRace(input: BuildInput, recorded: RecordedBaseline, matched: MatchedCases): Judgement {
  const clock = input.reports.candidate.clock;
  const race = raceOutcome(speedups(matched.candCases, clock), speedups(recorded.cases, (recorded.environment.clock as Clock | undefined) ?? clock), {
    band: input.plan.precision,
    block: input.repetitionBlock ?? 1,
    decided: input.precise,
    run: recorded.run,
  });
  const perCase = new Map<string, number | null>();
  for (const c of matched.candCases) perCase.set(caseKey(c), c.ratio / matched.baseByKey.get(caseKey(c))!.ratio);
  const reason = `the race's ${Math.round(100 * race.confidence)}% interval, valid at every repetition, ${race.decision === 'better' ? 'lies above 1' : race.decision === 'worse' ? 'lies below 1' : race.decision === 'same' ? 'holds 1' : 'is not yet formed'}`;
  return {ratio: race.ratio, ci: race.interval, verdict: race.decision, reason, pairing: 'unpaired', perCase, race};
}

/**
 * Accuracy: the ratio of mean scores with its interval over cases, candidate over baseline, or
 * baseline over candidate under minimize (above 1 the candidate is better either way); a
 * denominator side that scores 0.0 gives none, and the verdict says who scores.
 */
function judgeAccuracy(matched: MatchedCases, minimize: boolean): Judgement {
  const {candCases, baseByKey} = matched;
  const perCase = new Map<string, number | null>();
  let ratio: number | null = null;
  let ci: [number, number] | null = null;
  let verdict: Verdict;
  let reason: string;
  const base = candCases.map((c) => baseByKey.get(caseKey(c))!.ratio);
  const cand = candCases.map((c) => c.ratio);
  const [under, over] = minimize ? [cand, base] : [base, cand];
  const result = accuracyRatio(under, over);
  if (result) {
    ({ratio, interval: ci} = result);
    verdict = verdictOf(ci);
    reason = `the ratio's 95% interval over cases ${verdict === 'same' ? 'contains' : verdict === 'better' ? 'lies above' : 'lies below'} 1`;
  } else if (minimize) {
    const baselineErrs = base.some((b) => b > 0);
    verdict = baselineErrs ? 'better' : 'same';
    reason = baselineErrs ? 'the candidate scores 0.0, the best under minimize, and the baseline does not' : 'both sides score 0.0';
  } else {
    const candidateScores = cand.some((c) => c > 0);
    verdict = candidateScores ? 'better' : 'same';
    reason = candidateScores ? 'the baseline scores 0.0 and the candidate does not' : 'both sides score 0.0';
  }
  candCases.forEach((c, k) => {
    const [low, high] = minimize ? [cand[k]!, base[k]!] : [base[k]!, cand[k]!];
    perCase.set(caseKey(c), low > 0 ? high / low : null);
  });
  return {ratio, ci, verdict, reason, perCase};
}

/** Case statuses whose answer the verifier scored, right or wrong (an accuracy case in any other status scores fail_score). */
export const scorableStatuses: ReadonlySet<CaseStatus> = new Set<CaseStatus>(['ok', 'failed']);

/**
 * Each case both ways, and the cases one side (or both) fails: for speed
 * (minimize undefined) a wrong answer or none; for accuracy only no scorable
 * answer, as a share below 1 is partial credit, and each case says which side scores better.
 */
function caseRows(matched: MatchedCases, perCase: Map<string, number | null>, minimize: boolean | undefined): Pick<CompareReport, 'cases' | 'correctness'> {
  const {candCases, baseByKey} = matched;
  const speed = minimize === undefined;
  const fails = (c: SideCase) => (speed ? c.status !== 'ok' || !c.passed : !scorableStatuses.has(c.status));
  const cases: CaseComparison[] = candCases.map((c) => {
    const b = baseByKey.get(caseKey(c))!;
    const side = (s: SideCase) => ({status: s.status, passed: s.passed, seconds: s.seconds, score: s.ratio});
    const row: CaseComparison = {point: c.point, i: c.i, ratio: perCase.get(caseKey(c)) ?? null, baseline: side(b), candidate: side(c)};
    if (!speed) row.outcome = c.ratio === b.ratio ? 'same' : c.ratio > b.ratio !== minimize ? 'better' : 'worse';
    return row;
  });
  const correctness = candCases.flatMap((c) => {
    const b = baseByKey.get(caseKey(c))!;
    const [bf, cf] = [fails(b), fails(c)];
    if (!bf && !cf) return [];
    return [{point: c.point, i: c.i, failing: (bf && cf ? 'both' : bf ? 'baseline' : 'candidate') as 'baseline' | 'candidate' | 'both'}];
  });
  return {cases, correctness};
}

/** A side that ran in this eval, as the report shows it. */
function sideSummary(input: BuildInput, side: SideSource, report: EvalReport): SideSummary {
  return {
    argument: side.argument,
    description: describeSide(side, input.cwd),
    ...labelFields(sideLabel(side, input.plan, input.cwd, report.solutionSha256 ?? null)),
    score: report.score,
    interval: report.interval ?? null,
    ...(report.failure ? {failure: report.failure} : {}),
    solutionSha256: report.solutionSha256 ?? null,
    repetitions: report.repetitions,
    environment: report.environment?.fingerprint ?? null,
  };
}

const labelFields = ({label, kind}: {label: string; kind: LabelKind}) => ({label, labelKind: kind});

/** A baseline read from the ledger (`--baseline-run`), as the report shows it. */
function recordedSummary(recorded: RecordedBaseline, failure: string | undefined): SideSummary {
  return {
    argument: `run ${recorded.id}`,
    description: `ledger run ${recorded.id} (${recorded.time})`,
    label: `ledger run #${recorded.id}`,
    score: recorded.score,
    interval: recorded.interval,
    ...(failure ? {failure} : {}),
    solutionSha256: recorded.solutionSha256,
    repetitions: recorded.repetitions,
    run: recorded.id,
    environment: recorded.environment.fingerprint,
  };
}

/** What the ledger keeps of a compare beside its candidate's eval (the CLI's and MCP's records alike); the baseline named as the caller shows it. */
export function compareOnRecord(report: CompareReport, baselineLabel: string | null = report.baseline.label): CompareOutcome {
  return {
    verdict: report.verdict,
    ratio: report.ratio,
    interval: report.ci,
    baselineSha256: report.baseline.solutionSha256,
    baselineRun: report.baseline.run ?? null,
    baselineLabel,
  };
}
