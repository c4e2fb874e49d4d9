/**
 * What a dev run leaves: its record in the zoo's ledger, as the CLI records
 * it, and the tool's result. Computed in the run's own process (runner.ts),
 * so a run that outlives its server still lands in the ledger.
 */
import type {Plan} from '../benchmark/plan.js';
import type {CompareReport} from '../compare/index.js';
import type {EvalReport} from '../eval/index.js';
import {labelOf, type RunName} from '../eval/index.js';
import type {LabelKind} from '../ledger/ledger.js';
import {agentName, shownLabel} from './names.js';
import type {NamesContext} from './paths.js';

/** What the ledger calls the solution of a call: the label the agent gave, else the path it passed (never the run's copy). */
function callName(ctx: NamesContext, plan: Plan, solution: string, label: string | undefined): RunName {
  return label === undefined ? agentName(ctx, plan, solution) : {given: label};
}

/** Each case as evaluate answers it: status, ratio, time, and a failure's note and frames. */
function caseRows(cases: ReturnType<typeof import('../eval/index.js').flatCases>) {
  return cases.map((c) => ({
    point: c.point,
    i: c.i,
    status: c.status,
    passed: c.passed,
    ratio: c.ratio,
    seconds: c.seconds,
    ...(c.note ? {note: c.note} : {}),
    ...(c.where ? {where: c.where} : {}),
  }));
}

/** Record a dev eval as `arbor benchmark eval` does and shape the tool's result (in the run's process: runner.ts). */
export async function finishEval(ctx: NamesContext, id: string, name: string, report: EvalReport, plan: Plan, label?: string) {
  const {recordEvalRun, flatCases} = await import('../eval/index.js');
  // With the plan the eval was scored under (run-request.ts): plan.toml is not read again.
  const {runId, warnings} = await recordEvalRun(report, {plan, env: ctx.env, cwd: ctx.zoo, name: callName(ctx, plan, report.solution, label)});
  return {
    id,
    name,
    split: report.split,
    metric: report.metric,
    score: report.score,
    interval: report.interval ?? null,
    ...(report.failure ? {failure: report.failure} : {}),
    repetitions: report.repetitions,
    cases: caseRows(flatCases(report)),
    runId,
    warnings: [...(report.warnings ?? []), ...warnings],
  };
}

/**
 * A compare's sides named as the agent passed them (the report, unaliased, names the paths it gave; its own
 * labels would name the run's copies): each side's label and kind, the candidate's the label the agent gave if any.
 */
function compareNames(ctx: NamesContext, plan: Plan, report: CompareReport, label?: string) {
  const side = (which: 'baseline' | 'candidate') => {
    const summary = report[which];
    const solution = report.reports[which]?.solution;
    if (summary.run !== undefined || solution === undefined) return {label: summary.label, kind: summary.labelKind ?? null};
    return labelOf(callName(ctx, plan, solution, which === 'candidate' ? label : undefined), summary.solutionSha256);
  };
  return {baseline: side('baseline'), candidate: side('candidate')};
}

/** Record a dev compare as `arbor benchmark compare` does and shape the tool's result. */
export async function recordCompare(ctx: NamesContext, report: CompareReport, plan: Plan, label?: string): Promise<{runId: number | null; warnings: string[]}> {
  const {recordEvalRun} = await import('../eval/index.js');
  const names = compareNames(ctx, plan, report, label);
  const {compareOnRecord} = await import('../compare/index.js');
  const compare = compareOnRecord(report, names.baseline.label);
  return recordEvalRun(report.reports.candidate, {
    plan,
    env: ctx.env,
    cwd: ctx.zoo,
    kind: 'compare',
    compare,
    name: {label: names.candidate.label, kind: names.candidate.kind ?? 'file'},
  });
}

const side = (ctx: NamesContext, benchmark: string, s: CompareReport['baseline'], named: {label: string; kind: LabelKind | null}) => ({
  label: shownLabel(ctx, named.label, benchmark, s.solutionSha256, named.kind) ?? '-',
  score: s.score,
  interval: s.interval,
  ...(s.failure ? {failure: s.failure} : {}),
});

/** Record a dev compare and shape the tool's result (in the run's process). */
export async function finishCompare(ctx: NamesContext, id: string, name: string, report: CompareReport, plan: Plan) {
  const {runId, warnings} = await recordCompare(ctx, report, plan);
  const names = compareNames(ctx, plan, report);
  return {
    id,
    name,
    split: report.split,
    verdict: report.verdict,
    ratio: report.ratio,
    interval: report.ci,
    reason: report.reason,
    baseline: side(ctx, report.benchmark, report.baseline, names.baseline),
    candidate: side(ctx, report.benchmark, report.candidate, names.candidate),
    correctness: report.correctness,
    runId,
    warnings,
  };
}

/**
 * Record a race (evaluate with `against`) as `eval --against` does, a compare against the recorded run with
 * its verdict (never a best), and shape the tool's result: the race's answer, the candidate's cases.
 */
export async function finishRace(ctx: NamesContext, id: string, name: string, report: CompareReport, plan: Plan, label?: string) {
  const {flatCases} = await import('../eval/index.js');
  const {runId, warnings} = await recordCompare(ctx, report, plan, label);
  const candidate = report.reports.candidate;
  const race = report.race;
  return {
    id,
    name,
    split: report.split,
    metric: report.metric,
    verdict: report.verdict,
    ...(race ? {race: {...race, against: {run: race.against.run, score: race.against.score}}} : {reason: report.reason}),
    // The candidate's own score too, as precise as the race's repetitions made it (the race's answer is the verdict).
    score: candidate.score,
    interval: candidate.interval ?? null,
    ...(candidate.failure ? {failure: candidate.failure} : {}),
    repetitions: candidate.repetitions,
    cases: caseRows(flatCases(candidate)),
    runId,
    warnings: [...(candidate.warnings ?? []), ...warnings],
  };
}
