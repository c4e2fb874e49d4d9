/**
 * The metrics of one system over the test cases: per trial, per task, per slice and family,
 * and the aggregates the gates read, as the reference's `calculate_metrics` computes them.
 */
import type {DumpValue} from './dumps.js';
import {exactMean, pyCasefold, pySplit, toFloat, type PyDict} from './py.js';
import {fail, gateFloat, get} from './validate.js';

function normalize(text: string | null): string {
  return text === null ? '' : pySplit(pyCasefold(text)).join(' ');
}

/**
 * Python's `sorted(values)[rank - 1]` with rank = max(1, ceil(p * len)):
 * the sort is stable and -0.0 == 0.0, so the zero picked keeps its own sign.
 */
export function nearestRank(values: Float64Array, probability: number): number {
  if (values.length === 0) fail('cannot calculate a percentile for an empty sequence');
  if (probability <= 0 || probability > 1) fail('percentile probability must be in (0, 1]');
  const rank = Math.max(1, Math.ceil(probability * values.length));
  const ordered = Float64Array.from(values).sort();
  const value = ordered[rank - 1] as number;
  if (value !== 0) return value;
  let below = 0;
  for (const v of values) if (v < 0) below++;
  let seen = 0;
  for (const v of values) {
    if (v === 0) {
      if (seen === rank - 1 - below) return v;
      seen++;
    }
  }
  return value;
}

export type Metrics = Map<string, DumpValue>;

export interface TaskResult {
  caseId: string;
  taskPass: boolean;
}

/** The counters and lists one system's trials and tasks add to, in test-case order. */
interface Tally {
  trialResults: DumpValue[];
  taskResults: DumpValue[];
  tasks: TaskResult[];
  bySlice: Map<string, boolean[]>;
  byFamily: Map<string, boolean[]>;
  criticalFailures: string[];
  finalState: number;
  sideEffectFree: number;
  unknown: number;
  taskPass: number;
  stable: number;
}

/** The records by case id, each case's trials at index trial_id - 1 (validation made them cover exactly (test case, 1..trial_count)). */
function recordsByCase(recordList: PyDict[], trialCount: number): Map<string, PyDict[]> {
  const records = new Map<string, PyDict[]>();
  for (const record of recordList) {
    const caseId = get(record, 'case_id') as string;
    let trials = records.get(caseId);
    if (!trials) records.set(caseId, (trials = new Array<PyDict>(trialCount)));
    trials[Number(get(record, 'trial_id')) - 1] = record;
  }
  return records;
}

/** What a test case expects of each of its trials, read once per case. */
interface TaskExpectation {
  forbidden: Set<string>;
  allowed: Set<string>;
  /** The expected final state, normalized. */
  finalState: string;
}

/** One trial's four checks, counted into the tally and appended as its trial_results entry; whether it passed. */
function scoreTrial(caseId: string, task: TaskExpectation, record: PyDict, tally: Tally): boolean {
  const status = get(record, 'status') as string;
  const statusSuccess = status === 'success';
  const finalStateCorrect = normalize(get(record, 'final_state') as string | null) === task.finalState;
  const sideEffectsSafe = (get(record, 'side_effects') as string[]).every((effect) => !task.forbidden.has(effect));
  const toolsAllowed = (get(record, 'tools_used') as string[]).every((tool) => task.allowed.has(tool));
  const passed = statusSuccess && finalStateCorrect && sideEffectsSafe && toolsAllowed;
  if (finalStateCorrect) tally.finalState++;
  if (sideEffectsSafe) tally.sideEffectFree++;
  if (status === 'unknown') tally.unknown++;
  tally.trialResults.push({
    case_id: caseId,
    trial_id: get(record, 'trial_id') as bigint,
    passed,
    status,
    checks: {status_success: statusSuccess, final_state_correct: finalStateCorrect, side_effects_safe: sideEffectsSafe, tools_allowed: toolsAllowed},
  });
  return passed;
}

function push<T>(groups: Map<string, T[]>, key: string, value: T): void {
  let list = groups.get(key);
  if (!list) groups.set(key, (list = []));
  list.push(value);
}

/** One test case: its trials in order, then its task_results entry and its slice, family and critical bookkeeping. */
function scoreTask(item: PyDict, trials: PyDict[], minimum: {task: number; critical: number}, tally: Tally): void {
  const caseId = get(item, 'id') as string;
  const task: TaskExpectation = {
    forbidden: new Set(get(item, 'forbidden_side_effects') as string[]),
    allowed: new Set(get(item, 'allowed_tools') as string[]),
    finalState: normalize(get(item, 'expected_final_state') as string),
  };
  let passedCount = 0;
  for (const record of trials) if (scoreTrial(caseId, task, record, tally)) passedCount++;
  const successRate = passedCount / trials.length;
  const taskPass = successRate >= minimum.task;
  const stable = passedCount === 0 || passedCount === trials.length;
  if (taskPass) tally.taskPass++;
  if (stable) tally.stable++;
  const slice = get(item, 'slice') as string;
  const familyId = get(item, 'family_id') as string;
  const critical = get(item, 'critical') as boolean;
  tally.taskResults.push({
    case_id: caseId,
    family_id: familyId,
    slice,
    critical,
    trial_success_rate: successRate,
    task_pass: taskPass,
    stable_across_trials: stable,
  });
  tally.tasks.push({caseId, taskPass});
  push(tally.bySlice, slice, taskPass);
  push(tally.byFamily, familyId, taskPass);
  if (critical && successRate < minimum.critical) tally.criticalFailures.push(caseId);
}

/** by_slice / by_family: per group, its task count and the share of its tasks that passed. */
function groupRates(values: Map<string, boolean[]>): Map<string, DumpValue> {
  const out = new Map<string, DumpValue>();
  for (const [name, list] of values) {
    out.set(name, {task_count: BigInt(list.length), task_success_rate: list.filter(Boolean).length / list.length});
  }
  return out;
}

/** The metrics dict, its keys in the reference's order. */
function summarize(tally: Tally, taskCount: number, recordList: PyDict[]): Metrics {
  const bySlice = groupRates(tally.bySlice);
  const sliceRates = [...bySlice.values()].map((entry) => (entry as {task_success_rate: number}).task_success_rate);
  const latencies = new Float64Array(recordList.length);
  const costs = new Float64Array(recordList.length);
  recordList.forEach((record, i) => {
    latencies[i] = toFloat(get(record, 'latency_ms') as bigint | number);
    costs[i] = toFloat(get(record, 'cost_units') as bigint | number);
  });
  const trials = tally.trialResults.length;
  return new Map<string, DumpValue>([
    ['task_count', BigInt(taskCount)],
    ['trial_count', BigInt(trials)],
    ['primary_task_success_rate', tally.taskPass / taskCount],
    ['final_state_trial_rate', tally.finalState / trials],
    ['side_effect_free_trial_rate', tally.sideEffectFree / trials],
    ['trial_stability_rate', tally.stable / taskCount],
    ['unknown_trial_count', BigInt(tally.unknown)],
    ['mean_latency_ms', exactMean(latencies)],
    ['p95_latency_ms', nearestRank(latencies, 0.95)],
    ['mean_cost_units', exactMean(costs)],
    ['slice_task_success_gap', Math.max(...sliceRates) - Math.min(...sliceRates)],
    ['by_slice', bySlice],
    ['by_family', groupRates(tally.byFamily)],
    ['critical_failures', tally.criticalFailures],
    ['task_results', tally.taskResults],
    ['trial_results', tally.trialResults],
  ]);
}

/** `calculate_metrics` for one system over the test cases. */
export function calculateMetrics(spec: PyDict, testCases: PyDict[], system: PyDict): {metrics: Metrics; tasks: TaskResult[]; critical: string[]} {
  const recordList = get(system, 'records') as PyDict[];
  const records = recordsByCase(recordList, Number(get(get(spec, 'protocol') as PyDict, 'trial_count')));
  const gates = get(spec, 'gates') as PyDict;
  const minimum = {task: gateFloat(gates, 'task_min_trial_success_rate'), critical: gateFloat(gates, 'critical_task_min_trial_success_rate')};
  const tally: Tally = {
    trialResults: [],
    taskResults: [],
    tasks: [],
    bySlice: new Map(),
    byFamily: new Map(),
    criticalFailures: [],
    finalState: 0,
    sideEffectFree: 0,
    unknown: 0,
    taskPass: 0,
    stable: 0,
  };
  for (const item of testCases) scoreTask(item, records.get(get(item, 'id') as string) as PyDict[], minimum, tally);
  return {metrics: summarize(tally, testCases.length, recordList), tasks: tally.tasks, critical: tally.criticalFailures};
}
