/**
 * The result-package gate's evaluation and its output document: the paired comparison of
 * candidate and baseline, the gates in the reference's order, the decision. The inputs are
 * validated first (validate.ts); each system's metrics come from metrics.ts.
 */
import {createHash} from 'node:crypto';
import {calculateMetrics, type Metrics, type TaskResult} from './metrics.js';
import {bootstrapCounts} from './mt.js';
import {dumpsText, dumpsUtf8, utf8EncodeError, type DumpValue} from './dumps.js';
import {numbersEqual, repr, toFloat, type PyDict, type PyValue} from './py.js';
import {fail, gateFloat, get, SORTED_PROTOCOL_KEYS} from './validate.js';

const LIMITATIONS = [
  'Synthetic teaching cases do not estimate production performance.',
  'Private-test flags demonstrate a contract; these local fixtures are visible.',
  'Cost units are synthetic and are not a provider invoice.',
  'Five test tasks are too few for broad population claims.',
];

function systemById(results: PyDict, systemId: string): PyDict {
  for (const system of get(results, 'systems') as PyDict[]) if (get(system, 'system_id') === systemId) return system;
  fail(`system not found: ${systemId}`);
}

/** `fingerprint`: sha256 of the canonical JSON of the values, or the UnicodeEncodeError. */
function fingerprint(...values: PyValue[]): string {
  const payload = dumpsUtf8(values);
  if (!payload.wellFormed) {
    const encodeError = utf8EncodeError(dumpsText(values));
    if (encodeError !== undefined) fail(encodeError);
  }
  return 'sha256:' + createHash('sha256').update(payload.bytes).digest('hex');
}

function protocolMismatches(expected: PyDict, actual: PyDict, systemId: string): string[] {
  const out: string[] = [];
  for (const key of SORTED_PROTOCOL_KEYS) {
    const a = get(actual, key);
    const e = get(expected, key);
    const equal = typeof a === 'string' || typeof e === 'string' ? a === e : numbersEqual(a as bigint | number, e as bigint | number);
    if (!equal) out.push(`${systemId}.${key}: expected=${repr(e)}, actual=${repr(a)}`);
  }
  return out;
}

/** The fields of the output document (`decision_to_dict`) besides action, reasons and metrics. */
interface DocumentContext {
  spec: PyDict;
  caseFile: PyDict;
  evidence: string;
  baselineId: string;
  candidateId: string;
}

function outputDocument(
  context: DocumentContext,
  action: string,
  primaryReason: string,
  reasons: string[],
  comparable: boolean,
  metrics: {baseline: Metrics | null; candidate: Metrics | null},
  comparison: DumpValue,
): DumpValue {
  return {
    action,
    primary_reason: primaryReason,
    reasons,
    comparable,
    evidence_fingerprint: context.evidence,
    benchmark_id: get(context.spec, 'benchmark_id') as string,
    benchmark_version: get(context.spec, 'benchmark_version') as string,
    dataset_version: get(context.caseFile, 'dataset_version') as string,
    baseline_system: context.baselineId,
    candidate_system: context.candidateId,
    baseline_metrics: metrics.baseline,
    candidate_metrics: metrics.candidate,
    comparison,
    limitations: LIMITATIONS,
  };
}

/** Per test case, candidate task pass minus baseline task pass (-1, 0, 1), in test-case order. */
function taskDifferences(testCases: PyDict[], base: TaskResult[], cand: TaskResult[]): Int8Array {
  const baseTasks = new Map(base.map((t) => [t.caseId, t.taskPass]));
  const candTasks = new Map(cand.map((t) => [t.caseId, t.taskPass]));
  return Int8Array.from(testCases, (item) => {
    const id = get(item, 'id') as string;
    return (candTasks.get(id) ? 1 : 0) - (baseTasks.get(id) ? 1 : 0);
  });
}

/**
 * The paired comparison: the mean task-success delta and its bootstrap interval. The bootstrap
 * yields a histogram of the resampled delta sums (counts[k] for sum k - n), so a percentile is a
 * walk over the counts rather than a sort of `samples` means.
 */
function pairedComparison(bootstrap: PyDict, differences: Int8Array): {comparison: DumpValue; low: number} {
  const n = differences.length;
  let deltaSum = 0;
  for (const d of differences) deltaSum += d;
  const samples = Number(get(bootstrap, 'samples'));
  const confidence = toFloat(get(bootstrap, 'confidence') as bigint | number);
  const counts = bootstrapCounts(differences, samples, get(bootstrap, 'seed') as bigint);
  const tail = (1.0 - confidence) / 2.0;
  const rankValue = (probability: number): number => {
    if (probability <= 0 || probability > 1) fail('percentile probability must be in (0, 1]');
    const rank = Math.max(1, Math.ceil(probability * samples));
    let seen = 0;
    for (let k = 0; k < counts.length; k++) {
      seen += counts[k] as number;
      if (seen >= rank) return k - n === 0 ? 0 : (k - n) / n;
    }
    throw new Error('unreachable');
  };
  const low = rankValue(tail);
  const high = rankValue(1.0 - tail);
  const comparison: DumpValue = {
    paired_task_success_delta: deltaSum === 0 ? 0 : deltaSum / n,
    paired_bootstrap_interval: [low, high],
    confidence: get(bootstrap, 'confidence') as number,
    samples: get(bootstrap, 'samples') as bigint,
    seed: get(bootstrap, 'seed') as bigint,
    protocol_mismatches: [],
  };
  return {comparison, low};
}

/** The gates in the reference's order: blocking reasons first, then review reasons; the action they make. */
function decide(gates: PyDict, cand: {metrics: Metrics; critical: string[]}, low: number): {action: string; reasons: string[]} {
  const metric = (key: string): number => cand.metrics.get(key) as number;
  const block: string[] = [];
  const review: string[] = [];
  if (cand.critical.length > 0) block.push('critical task failure(s): ' + cand.critical.join(', '));
  if (metric('primary_task_success_rate') < gateFloat(gates, 'min_primary_task_success_rate')) block.push('primary task success rate below gate');
  if (metric('final_state_trial_rate') < gateFloat(gates, 'min_final_state_trial_rate')) block.push('final-state trial rate below gate');
  if (metric('side_effect_free_trial_rate') < gateFloat(gates, 'min_side_effect_free_trial_rate')) block.push('side-effect-free trial rate below gate');
  if (metric('trial_stability_rate') < gateFloat(gates, 'min_trial_stability_rate')) block.push('multi-trial stability below gate');
  if (metric('slice_task_success_gap') > gateFloat(gates, 'max_slice_task_success_gap')) review.push('slice task-success gap exceeds review gate');
  if (metric('mean_latency_ms') > gateFloat(gates, 'max_mean_latency_ms')) review.push('mean latency exceeds review gate');
  if (metric('p95_latency_ms') > gateFloat(gates, 'max_p95_latency_ms')) review.push('p95 latency exceeds review gate');
  if (metric('mean_cost_units') > gateFloat(gates, 'max_mean_cost_units')) review.push('mean cost exceeds review gate');
  if (low < gateFloat(gates, 'min_paired_delta_ci_low')) review.push('paired bootstrap lower bound is below review gate');
  if (block.length > 0) return {action: 'BLOCK', reasons: [...block, ...review]};
  if (review.length > 0) return {action: 'REVIEW', reasons: review};
  return {action: 'PASS', reasons: ['all frozen benchmark gates passed']};
}

/** `evaluate` + `decision_to_dict`: the output document and whether it is a PASS. */
export function evaluate(spec: PyDict, caseFile: PyDict, results: PyDict, candidateId: string): {document: DumpValue; pass: boolean} {
  const baselineId = get(spec, 'baseline_system_id') as string;
  if (candidateId === baselineId) fail('candidate system must differ from baseline');
  const baseline = systemById(results, baselineId);
  const candidate = systemById(results, candidateId);
  if (get(candidate, 'role') !== 'candidate') fail('selected candidate system does not have candidate role');
  const context: DocumentContext = {spec, caseFile, evidence: fingerprint(spec, caseFile, results, candidateId), baselineId, candidateId};
  const specProtocol = get(spec, 'protocol') as PyDict;
  const mismatches = [
    ...protocolMismatches(specProtocol, get(baseline, 'protocol') as PyDict, baselineId),
    ...protocolMismatches(specProtocol, get(candidate, 'protocol') as PyDict, candidateId),
  ];
  if (mismatches.length > 0) {
    const primary = 'run protocol does not match frozen benchmark protocol';
    const document = outputDocument(context, 'INCOMPARABLE', primary, mismatches, false, {baseline: null, candidate: null}, {protocol_mismatches: mismatches});
    return {document, pass: false};
  }
  const testCases = (get(caseFile, 'cases') as PyDict[]).filter((item) => get(item, 'split') === 'test');
  const base = calculateMetrics(spec, testCases, baseline);
  const cand = calculateMetrics(spec, testCases, candidate);
  const {comparison, low} = pairedComparison(get(spec, 'bootstrap') as PyDict, taskDifferences(testCases, base.tasks, cand.tasks));
  const {action, reasons} = decide(get(spec, 'gates') as PyDict, cand, low);
  const document = outputDocument(context, action, reasons[0] as string, reasons, true, {baseline: base.metrics, candidate: cand.metrics}, comparison);
  return {document, pass: action === 'PASS'};
}
