/**
 * What a dev run leaves: its record in the zoo's ledger, as the CLI records
 * it, and the tool's result. Computed in the run's own process (runner.ts),
 * so a run that outlives its server still lands in the ledger.
 */
import type {Plan} from '../benchmark/plan.js';
import type {CompareReport} from '../compare/index.js';
import type {EvalReport} from '../eval/index.js';
import {shownLabel} from './names.js';
import type {NamesContext} from './paths.js';

/** Record a dev eval as `arbor benchmark eval` does and shape the tool's result (in the run's process: runner.ts). */
export async function finishEval(ctx: NamesContext, id: string, name: string, report: EvalReport, plan: Plan) {
  const [{recordEvalRun}, {flatCases}] = await Promise.all([import('../eval/index.js'), import('../eval/index.js')]);
  // With the plan the eval was scored under (run-request.ts): plan.toml is not read again.
  const {runId, warnings} = await recordEvalRun(report, {plan, env: ctx.env, cwd: ctx.zoo});
  return {
    id,
    name,
    split: report.split,
    metric: report.metric,
    score: report.score,
    interval: report.interval ?? null,
    ...(report.failure ? {failure: report.failure} : {}),
    repetitions: report.repetitions,
    cases: flatCases(report).map((c) => ({
      point: c.point,
      i: c.i,
      status: c.status,
      passed: c.passed,
      ratio: c.ratio,
      seconds: c.seconds,
      ...(c.note ? {note: c.note} : {}),
      ...(c.where ? {where: c.where} : {}),
    })),
    runId,
    warnings: [...(report.warnings ?? []), ...warnings],
  };
}

/** Record a dev compare as `arbor benchmark compare` does and shape the tool's result. */
export async function recordCompare(ctx: NamesContext, report: CompareReport, plan: Plan): Promise<{runId: number | null; warnings: string[]}> {
  const {recordEvalRun} = await import('../eval/index.js');
  const compare = {
    verdict: report.verdict,
    ratio: report.ratio,
    interval: report.ci,
    baselineSha256: report.baseline.solutionSha256,
    baselineRun: report.baseline.run ?? null,
    baselineLabel: report.baseline.label,
  };
  return recordEvalRun(report.reports.candidate, {
    plan,
    env: ctx.env,
    cwd: ctx.zoo,
    kind: 'compare',
    compare,
    solutionLabel: report.candidate.label,
  });
}

const side = (ctx: NamesContext, benchmark: string, s: CompareReport['baseline']) => ({
  label: shownLabel(ctx, s.label, benchmark, s.solutionSha256) ?? '-',
  score: s.score,
  interval: s.interval,
  ...(s.failure ? {failure: s.failure} : {}),
});

/** Record a dev compare and shape the tool's result (in the run's process). */
export async function finishCompare(ctx: NamesContext, id: string, name: string, report: CompareReport, plan: Plan) {
  const {runId, warnings} = await recordCompare(ctx, report, plan);
  return {
    id,
    name,
    split: report.split,
    verdict: report.verdict,
    ratio: report.ratio,
    interval: report.ci,
    reason: report.reason,
    baseline: side(ctx, report.benchmark, report.baseline),
    candidate: side(ctx, report.benchmark, report.candidate),
    correctness: report.correctness,
    runId,
    warnings,
  };
}
