/**
 * A speed comparison as a result package in the gate's own format
 * (spec/agent_gate_reference.py), so the gate decides PASS / REVIEW / BLOCK /
 * INCOMPARABLE exactly as it does for any package. The mapping:
 *
 * - one gate task per case of the compared split (point x seed), every one a
 *   private test task and critical; where every repetition draws fresh cases
 *   (speedup over seeds), a task is a case slot (point x index) and each of
 *   its trials a fresh case drawn for that slot, the same one for the baseline
 *   and the candidate (their trial k is the same repetition): the gate then
 *   judges how the sides fare over the split's distribution of cases; the contract's train and development
 *   splits hold one placeholder case of another seed per point (no records);
 *   families are `<split>:<point>`, so none spans two splits;
 * - trials are repetitions: trial_count is the fewest any case made (points
 *   stop repeating on their own, each once precise; at least 2, at most 100);
 *   a later repetition that failed replaces the last trial, and a repetition
 *   a side did not make is an `error` record;
 * - a trial succeeds when the case verified (status `success`, final state
 *   `verified`); a timeout is `timeout`, anything else `error`;
 * - latency_ms is the case's time on the eval's clock (CPU or wall; the wall
 *   time on the instructions clock), cost_units its CPU seconds: on the CPU
 *   clock a moment's preemption on a busy machine, which the score never
 *   sees, cannot push the candidate's p95 over the baseline's;
 * - every success gate is 1.0, the paired-delta gate 0.0, and the latency and
 *   cost gates are the baseline's own mean latency, p95 latency and mean cost
 *   from the same records: a correct candidate no slower on average PASSes, a
 *   slower one gets REVIEW, one failing a case BLOCKs;
 * - environment_id is the environment fingerprint of each side's run, so a
 *   baseline recorded elsewhere makes the package INCOMPARABLE.
 *
 * Salted and fresh test seeds never appear: cases are named by point and index.
 */
import {mkdirSync, statSync} from 'node:fs';
import {createHash} from 'node:crypto';
import path from 'node:path';
import {UsageError} from '../errors.js';
import {HarnessError} from '../eval/index.js';
import {writeFileAtomic} from '../files.js';
import {computeLock} from '../benchmark/lock.js';
import type {Clock, Plan} from '../benchmark/plan.js';
import type {RepetitionReport} from '../eval/index.js';
import {exactMean} from '../gate/py.js';
import {nearestRank} from '../gate/metrics.js';
import {arborVersion} from '../version.js';
import {flatCases, timeOnClock} from '../eval/index.js';
import type {CompareReport, SideCase} from './compare.js';

/** The three files, as the gate's --spec, --cases and --results take them. */
const packageFiles = {
  spec: 'benchmark_spec.json',
  cases: 'benchmark_cases.json',
  results: 'benchmark_results.json',
  decision: 'gate_decision.json',
} as const;

/** What writing and gating a package gave. */
export interface PackageOutcome {
  dir: string;
  /** PASS, REVIEW, BLOCK or INCOMPARABLE. */
  action: string;
  primaryReason: string;
  /** The gate's exit code (0 PASS, 1 otherwise). */
  exitCode: number;
}

/** Refuse `--package` where the mapping does not hold (before anything runs). */
export function checkPackageable(plan: Pick<Plan, 'metric' | 'name'>, dir: string): void {
  if (plan.metric !== 'speedup') {
    throw new UsageError(
      `--package: ${plan.name} is an accuracy benchmark; its verifier passes a case only when every value is within tolerance, so every imperfect solution would BLOCK: compare it without --package`,
      'usage',
    );
  }
  const info = statSync(dir, {throwIfNoEntry: false});
  if (info && !info.isDirectory()) throw new UsageError(`--package ${dir}: exists and is not a folder, expected a folder for the package files`, 'usage');
}

type Json = null | boolean | number | string | Json[] | {[key: string]: Json};

/** Build the package's three documents. */
async function buildPackage(report: CompareReport, plan: Plan): Promise<{spec: Json; cases: Json; results: Json}> {
  const candidate = flatCases(report.reports.candidate);
  const baseline = report.reports.baseline ? flatCases(report.reports.baseline) : report.recordedBaseline!.cases;
  // Points stop repeating on their own (each once precise), so counts differ between points:
  // the trials are the repetitions every case has, and a failure in a later one counts (below).
  const trials = Math.min(100, Math.max(2, Math.min(...candidate.map((c) => c.repetitions.length), ...baseline.map((c) => c.repetitions.length))));
  const points = report.reports.candidate.points.map((point) => point.point);
  const pointText = (p: number) => JSON.stringify(points[p]);

  const lock = await computeLock(plan.dir, plan);
  const benchmarkVersion = `lock-${createHash('sha256').update(JSON.stringify(lock)).digest('hex').slice(0, 16)}`;
  const datasetVersion = datasetVersionOf(report, plan);
  const latencyOf = latencyClock(report.clock);
  const baselineRecords = trialRecords(baseline, trials, latencyOf);
  const candidateRecords = trialRecords(candidate, trials, latencyOf);
  const latencies = Float64Array.from(baselineRecords.map((r) => (r as {latency_ms: number}).latency_ms));
  const costs = baselineRecords.map((r) => (r as {cost_units: number}).cost_units);

  const protocol = (environment: string | null): Json => ({
    protocol_version: 'arbor-compare-1',
    environment_id: environment ?? 'unknown',
    toolset_id: `arbor ${arborVersion()}, sandbox ${report.sandbox}, ${report.clock ?? 'wall'} clock`,
    reset_policy: 'fresh-sandbox-per-repetition',
    max_steps: 1,
    timeout_seconds: plan.timeout,
    retry_limit: 0,
    trial_count: trials,
  });
  const spec: Json = {
    schema_version: 'agent-benchmark-spec-v1',
    benchmark_id: plan.name,
    benchmark_version: benchmarkVersion,
    private_test_frozen: true,
    claim: `The candidate solution of ${plan.name} verifies on every ${report.split} case and is no slower than the baseline.`,
    target_population: `${plan.name} ${report.split} cases: ${candidate.length} case(s) over ${points.length} point(s)`,
    baseline_system_id: 'baseline',
    primary_metric: 'task_success_rate',
    protocol: protocol(report.candidate.environment),
    gates: {
      task_min_trial_success_rate: 1,
      min_primary_task_success_rate: 1,
      critical_task_min_trial_success_rate: 1,
      min_final_state_trial_rate: 1,
      min_side_effect_free_trial_rate: 1,
      min_trial_stability_rate: 1,
      max_slice_task_success_gap: 1,
      max_mean_latency_ms: exactMean(latencies),
      max_p95_latency_ms: nearestRank(latencies, 0.95),
      max_mean_cost_units: exactMean(costs),
      min_paired_delta_ci_low: 0,
    },
    bootstrap: {samples: 2000, seed: 1, confidence: 0.95},
  };
  const task = (id: string, family: string, split: string, point: number, state: string): Json => ({
    id,
    family_id: family,
    split,
    slice: pointText(point),
    critical: split === 'test',
    task_type: plan.metric,
    is_private: split === 'test',
    initial_state: state,
    expected_final_state: 'verified',
    allowed_tools: [],
    forbidden_side_effects: [],
  });
  const caseList: Json[] = [];
  const fresh = report.reports.candidate.seeds.source === 'fresh';
  for (const [p] of points.entries()) {
    caseList.push(task(`train:p${p}`, `train:${pointText(p)}`, 'train', p, `point ${pointText(p)}, a case of a seed outside both splits`));
    caseList.push(task(`development:p${p}`, `development:${pointText(p)}`, 'development', p, `point ${pointText(p)}, a case of a seed outside both splits`));
  }
  for (const c of candidate.slice().sort((a, b) => a.point - b.point || a.i - b.i)) {
    const what = fresh ? `case slot ${c.i} of the ${report.split} split, a fresh case every trial` : `case ${c.i} of the ${report.split} split`;
    caseList.push(task(taskId(c), `test:${pointText(c.point)}`, 'test', c.point, `point ${pointText(c.point)}, ${what}`));
  }
  const cases: Json = {
    schema_version: 'agent-benchmark-cases-v1',
    benchmark_id: plan.name,
    benchmark_version: benchmarkVersion,
    dataset_version: datasetVersion,
    cases: caseList,
  };
  const results: Json = {
    schema_version: 'agent-benchmark-results-v1',
    benchmark_id: plan.name,
    benchmark_version: benchmarkVersion,
    dataset_version: datasetVersion,
    result_set_version: `arbor compare ${new Date().toISOString()}`,
    systems: [
      {system_id: 'baseline', role: 'baseline', protocol: protocol(report.baseline.environment), records: baselineRecords},
      {system_id: 'candidate', role: 'candidate', protocol: protocol(report.candidate.environment), records: candidateRecords},
    ],
  };
  return {spec, cases, results};
}

/** A test case's task id in the package. */
function taskId(c: {point: number; i: number}): string {
  return `test:p${c.point}:c${c.i}`;
}

/** What the cases are: the split and where its seeds came from (never the derived seeds themselves). */
function datasetVersionOf(report: CompareReport, plan: Plan): string {
  const seeds = report.reports.candidate.seeds;
  if (seeds.source === 'derived') return `${report.split}: ${seeds.count} seeds derived from ARBOR_TEST_SALT`;
  if (seeds.source === 'files') return `${report.split}: ${seeds.count} cases from files`;
  if (seeds.source === 'fresh') return `${report.split}: ${seeds.count} fresh cases a point and repetition`;
  return `${report.split}: seeds ${plan[report.split].seedsText}`;
}

/** A repetition's latency in seconds: its time on the eval's clock, or its wall time where that clock is not a time. */
type LatencyOf = (repetition: RepetitionReport) => number | null | undefined;

function latencyClock(clock: Clock | null | undefined): LatencyOf {
  // An instruction count is no time: there the wall time stands in.
  const timed = clock === 'instructions' ? 'wall' : clock;
  return (repetition) => timeOnClock(timed, repetition);
}

/** One side's records: `trials` per case, in point and case order. */
function trialRecords(cases: SideCase[], trials: number, latencyOf: LatencyOf): Json[] {
  return cases
    .slice()
    .sort((a, b) => a.point - b.point || a.i - b.i)
    .flatMap((c) => {
      const kept = c.repetitions.slice(0, trials);
      // A repetition past the trials that failed replaces the last trial: a failure is never dropped.
      const failure = c.repetitions.slice(trials).find((r) => !(r.status === 'ok' && r.passed));
      if (failure && kept.length === trials) kept[trials - 1] = failure;
      return Array.from({length: trials}, (_, k) => record(taskId(c), k + 1, kept[k], latencyOf));
    });
}

/** One trial's record; a repetition not made is an `error` with no time. */
function record(caseId: string, trial: number, repetition: RepetitionReport | undefined, latencyOf: LatencyOf): Json {
  const verified = repetition?.status === 'ok' && repetition.passed;
  return {
    case_id: caseId,
    trial_id: trial,
    status: verified ? 'success' : repetition?.status === 'timeout' ? 'timeout' : 'error',
    final_state: verified ? 'verified' : null,
    side_effects: [],
    tools_used: [],
    latency_ms: Math.max(0, ((repetition && latencyOf(repetition)) ?? repetition?.seconds ?? 0) * 1000),
    cost_units: Math.max(0, repetition?.cpuSeconds ?? repetition?.seconds ?? 0),
  };
}

/** Write the package into `dir` (each file atomically) and gate it; the gate's document goes to gate_decision.json. */
export async function writePackage(dir: string, report: CompareReport, plan: Plan): Promise<PackageOutcome> {
  const documents = await buildPackage(report, plan);
  const text = (value: Json) => `${JSON.stringify(value, null, 2)}\n`;
  try {
    mkdirSync(dir, {recursive: true});
    writeFileAtomic(path.join(dir, packageFiles.spec), text(documents.spec));
    writeFileAtomic(path.join(dir, packageFiles.cases), text(documents.cases));
    writeFileAtomic(path.join(dir, packageFiles.results), text(documents.results));
  } catch (error) {
    throw new HarnessError(
      `--package ${dir}: cannot write the package (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); the comparison above is recorded, pass a writable folder to package it`,
      'write-failed',
    );
  }
  const {runGate} = await import('../gate/index.js');
  const outcome = runGate({spec: packageFiles.spec, cases: packageFiles.cases, results: packageFiles.results, candidate: 'candidate', cwd: dir});
  if (outcome.exitCode === 2 || !outcome.stdout) {
    // A package arbor wrote that the gate refuses is arbor's bug, not the user's.
    throw new Error(`the gate refused the package arbor wrote in ${dir}: ${outcome.stderr.trim()}`);
  }
  writeFileAtomic(path.join(dir, packageFiles.decision), outcome.stdoutBytes ?? outcome.stdout);
  const decision = JSON.parse(outcome.stdout) as {action: string; primary_reason: string};
  return {dir, action: decision.action, primaryReason: decision.primary_reason, exitCode: outcome.exitCode};
}
