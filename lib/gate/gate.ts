/**
 * The result-package gate: validation in the reference's exact order and
 * messages, evaluation, and the output document.
 */
import {createHash} from 'node:crypto';
import {GateError} from './json.js';
import {bootstrapCounts} from './mt.js';
import {
  compareCodePoints,
  dumpsText,
  dumpsUtf8,
  exactMean,
  floatRepr,
  numbersEqual,
  pyCasefold,
  pySplit,
  pyStrip,
  repr,
  sortedStrings,
  toFloat,
  utf8EncodeError,
  type DumpValue,
  type PyDict,
  type PyValue,
} from './py.js';

const SPLITS = ['development', 'test', 'train'];
const STATUSES = ['error', 'success', 'timeout', 'unknown'];
const SPEC_KEYS = [
  'schema_version',
  'benchmark_id',
  'benchmark_version',
  'private_test_frozen',
  'claim',
  'target_population',
  'baseline_system_id',
  'primary_metric',
  'protocol',
  'gates',
  'bootstrap',
];
const PROTOCOL_KEYS = ['protocol_version', 'environment_id', 'toolset_id', 'reset_policy', 'max_steps', 'timeout_seconds', 'retry_limit', 'trial_count'];
const GATE_KEYS = [
  'task_min_trial_success_rate',
  'min_primary_task_success_rate',
  'critical_task_min_trial_success_rate',
  'min_final_state_trial_rate',
  'min_side_effect_free_trial_rate',
  'min_trial_stability_rate',
  'max_slice_task_success_gap',
  'max_mean_latency_ms',
  'max_p95_latency_ms',
  'max_mean_cost_units',
  'min_paired_delta_ci_low',
];
const BOOTSTRAP_KEYS = ['samples', 'seed', 'confidence'];
const CASES_KEYS = ['schema_version', 'benchmark_id', 'benchmark_version', 'dataset_version', 'cases'];
const CASE_KEYS = [
  'id',
  'family_id',
  'split',
  'slice',
  'critical',
  'task_type',
  'is_private',
  'initial_state',
  'expected_final_state',
  'allowed_tools',
  'forbidden_side_effects',
];
const RESULTS_KEYS = ['schema_version', 'benchmark_id', 'benchmark_version', 'dataset_version', 'result_set_version', 'systems'];
const SYSTEM_KEYS = ['system_id', 'role', 'protocol', 'records'];
const RECORD_KEYS = ['case_id', 'trial_id', 'status', 'final_state', 'side_effects', 'tools_used', 'latency_ms', 'cost_units'];
const SORTED_PROTOCOL_KEYS = sortedStrings(PROTOCOL_KEYS);

const LIMITATIONS = [
  'Synthetic teaching cases do not estimate production performance.',
  'Private-test flags demonstrate a contract; these local fixtures are visible.',
  'Cost units are synthetic and are not a provider invoice.',
  'Five test tasks are too few for broad population claims.',
];

function fail(message: string): never {
  throw new GateError(message);
}

/** A dict's value by a key known to be present. */
function get(dict: PyDict, key: string): PyValue {
  return dict.get(key) as PyValue;
}

function requireExactDict(value: PyValue, keys: readonly string[], context: string): PyDict {
  if (!(value instanceof Map)) fail(`${context} must be an object`);
  if (value.size === keys.length && keys.every((key) => value.has(key))) return value;
  const missing = sortedStrings(keys.filter((key) => !value.has(key)));
  const expected = new Set(keys);
  const unknown = sortedStrings([...value.keys()].filter((key) => !expected.has(key)));
  if (missing.length > 0 || unknown.length > 0) {
    fail(`${context} fields mismatch; missing=${repr(missing)}, unknown=${repr(unknown)}`);
  }
  return value;
}

function requireString(value: PyValue, context: string): string {
  if (typeof value !== 'string' || pyStrip(value) === '') fail(`${context} must be a non-empty string`);
  return value;
}

function requireNullableString(value: PyValue, context: string): string | null {
  return value === null ? null : requireString(value, context);
}

function requireBool(value: PyValue, context: string): boolean {
  if (typeof value !== 'boolean') fail(`${context} must be boolean`);
  return value;
}

function requireNumber(value: PyValue, context: string, minimum?: number, maximum?: number): number {
  if (typeof value !== 'bigint' && typeof value !== 'number') fail(`${context} must be a number, not boolean`);
  const number = toFloat(value);
  if (!Number.isFinite(number)) fail(`${context} must be finite`);
  if (minimum !== undefined && number < minimum) fail(`${context} must be >= ${floatRepr(minimum)}`);
  if (maximum !== undefined && number > maximum) fail(`${context} must be <= ${floatRepr(maximum)}`);
  return number;
}

function requireInteger(value: PyValue, context: string, minimum?: bigint, maximum?: bigint): bigint {
  if (typeof value !== 'bigint') fail(`${context} must be an integer, not boolean`);
  if (minimum !== undefined && value < minimum) fail(`${context} must be >= ${minimum}`);
  if (maximum !== undefined && value > maximum) fail(`${context} must be <= ${maximum}`);
  return value;
}

function requireUniqueStringList(value: PyValue, context: string): string[] {
  if (!Array.isArray(value)) fail(`${context} must be an array`);
  const result = value.map((item, index) => requireString(item, `${context}[${index}]`));
  if (new Set(result).size !== result.length) fail(`${context} contains duplicates`);
  return result;
}

function validateProtocol(value: PyValue, context: string): PyDict {
  const protocol = requireExactDict(value, PROTOCOL_KEYS, context);
  for (const key of ['protocol_version', 'environment_id', 'toolset_id', 'reset_policy']) {
    requireString(get(protocol, key), `${context}.${key}`);
  }
  requireInteger(get(protocol, 'max_steps'), `${context}.max_steps`, 1n);
  requireNumber(get(protocol, 'timeout_seconds'), `${context}.timeout_seconds`, 0.001);
  requireInteger(get(protocol, 'retry_limit'), `${context}.retry_limit`, 0n);
  requireInteger(get(protocol, 'trial_count'), `${context}.trial_count`, 2n, 100n);
  return protocol;
}

/** `validate_spec`. */
export function validateSpec(value: PyValue): PyDict {
  const spec = requireExactDict(value, SPEC_KEYS, 'spec');
  if (requireString(get(spec, 'schema_version'), 'spec.schema_version') !== 'agent-benchmark-spec-v1') {
    fail('spec.schema_version must be agent-benchmark-spec-v1');
  }
  for (const key of ['benchmark_id', 'benchmark_version', 'claim', 'target_population', 'baseline_system_id']) {
    requireString(get(spec, key), `spec.${key}`);
  }
  if (!requireBool(get(spec, 'private_test_frozen'), 'spec.private_test_frozen')) fail('spec.private_test_frozen must be true');
  if (requireString(get(spec, 'primary_metric'), 'spec.primary_metric') !== 'task_success_rate') {
    fail('spec.primary_metric must be task_success_rate');
  }
  validateProtocol(get(spec, 'protocol'), 'spec.protocol');
  const gates = requireExactDict(get(spec, 'gates'), GATE_KEYS, 'spec.gates');
  for (const key of GATE_KEYS.slice(0, 7)) requireNumber(get(gates, key), `spec.gates.${key}`, 0.0, 1.0);
  if (gateFloat(gates, 'critical_task_min_trial_success_rate') < gateFloat(gates, 'task_min_trial_success_rate')) {
    fail('spec.gates.critical_task_min_trial_success_rate must be >= task_min_trial_success_rate');
  }
  for (const key of ['max_mean_latency_ms', 'max_p95_latency_ms', 'max_mean_cost_units']) {
    requireNumber(get(gates, key), `spec.gates.${key}`, 0.0);
  }
  requireNumber(get(gates, 'min_paired_delta_ci_low'), 'spec.gates.min_paired_delta_ci_low', -1.0, 1.0);
  const bootstrap = requireExactDict(get(spec, 'bootstrap'), BOOTSTRAP_KEYS, 'spec.bootstrap');
  requireInteger(get(bootstrap, 'samples'), 'spec.bootstrap.samples', 100n, 100000n);
  requireInteger(get(bootstrap, 'seed'), 'spec.bootstrap.seed');
  requireNumber(get(bootstrap, 'confidence'), 'spec.bootstrap.confidence', 0.5, 0.999);
  return spec;
}

function gateFloat(gates: PyDict, key: string): number {
  return toFloat(get(gates, key) as bigint | number);
}

function validateCase(value: PyValue, index: number): PyDict {
  const context = `cases.cases[${index}]`;
  const item = requireExactDict(value, CASE_KEYS, context);
  for (const key of ['id', 'family_id', 'slice', 'task_type', 'initial_state', 'expected_final_state']) {
    requireString(get(item, key), `${context}.${key}`);
  }
  const split = requireString(get(item, 'split'), `${context}.split`);
  if (!SPLITS.includes(split)) fail(`${context}.split must be one of ${repr(SPLITS)}`);
  requireBool(get(item, 'critical'), `${context}.critical`);
  const isPrivate = requireBool(get(item, 'is_private'), `${context}.is_private`);
  if (isPrivate !== (split === 'test')) fail(`${context}.is_private must be true only for test cases`);
  requireUniqueStringList(get(item, 'allowed_tools'), `${context}.allowed_tools`);
  requireUniqueStringList(get(item, 'forbidden_side_effects'), `${context}.forbidden_side_effects`);
  return item;
}

/** `validate_cases`. */
export function validateCases(value: PyValue, spec: PyDict): PyDict {
  const caseFile = requireExactDict(value, CASES_KEYS, 'cases');
  if (requireString(get(caseFile, 'schema_version'), 'cases.schema_version') !== 'agent-benchmark-cases-v1') {
    fail('cases.schema_version must be agent-benchmark-cases-v1');
  }
  for (const key of ['benchmark_id', 'benchmark_version', 'dataset_version']) requireString(get(caseFile, key), `cases.${key}`);
  if (get(caseFile, 'benchmark_id') !== get(spec, 'benchmark_id')) fail('cases.benchmark_id does not match spec');
  if (get(caseFile, 'benchmark_version') !== get(spec, 'benchmark_version')) fail('cases.benchmark_version does not match spec');
  const list = get(caseFile, 'cases');
  if (!Array.isArray(list) || list.length === 0) fail('cases.cases must be a non-empty array');
  const cases = list.map((item, index) => validateCase(item, index));
  const ids = cases.map((item) => get(item, 'id') as string);
  if (new Set(ids).size !== ids.length) fail('case IDs must be unique');
  const familySplits = new Map<string, string>();
  for (const item of cases) {
    const familyId = get(item, 'family_id') as string;
    const split = get(item, 'split') as string;
    const previous = familySplits.get(familyId);
    if (previous === undefined) familySplits.set(familyId, split);
    else if (previous !== split) fail(`split contamination: family_id=${familyId} appears in ${previous} and ${split}`);
  }
  const present = new Set(cases.map((item) => get(item, 'split') as string));
  if (present.size !== SPLITS.length) fail(`cases must contain train/development/test; got ${repr(sortedStrings(present))}`);
  return caseFile;
}

function validateRecord(value: PyValue, context: string): PyDict {
  const record = requireExactDict(value, RECORD_KEYS, context);
  requireString(get(record, 'case_id'), `${context}.case_id`);
  requireInteger(get(record, 'trial_id'), `${context}.trial_id`, 1n);
  const status = requireString(get(record, 'status'), `${context}.status`);
  if (!STATUSES.includes(status)) fail(`${context}.status must be one of ${repr(STATUSES)}`);
  requireNullableString(get(record, 'final_state'), `${context}.final_state`);
  requireUniqueStringList(get(record, 'side_effects'), `${context}.side_effects`);
  requireUniqueStringList(get(record, 'tools_used'), `${context}.tools_used`);
  requireNumber(get(record, 'latency_ms'), `${context}.latency_ms`, 0.0);
  requireNumber(get(record, 'cost_units'), `${context}.cost_units`, 0.0);
  return record;
}

/**
 * A sufficient test for requireString: a first character that is printable
 * ASCII and not a space leaves something after Python's strip().
 */
function isPlainNonEmptyString(value: PyValue | undefined): value is string {
  if (typeof value !== 'string' || value.length === 0) return false;
  const c = value.charCodeAt(0);
  return c > 0x20 && c < 0x7f;
}

function isPlainUniqueStringList(value: PyValue | undefined): boolean {
  if (!Array.isArray(value)) return false;
  for (const item of value) if (!isPlainNonEmptyString(item)) return false;
  if (value.length < 2) return true;
  if (value.length === 2) return value[0] !== value[1];
  return new Set(value).size === value.length;
}

function isPlainNonNegative(value: PyValue | undefined): boolean {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0;
  return typeof value === 'bigint' && value >= 0n && value <= 2n ** 53n;
}

/**
 * True only when validateRecord would accept the record. Thousands of records
 * are valid: this checks them without building the ten error-context strings
 * per record that validateRecord needs for its messages; anything unusual
 * (or invalid) goes through validateRecord for the exact message.
 */
function isPlainValidRecord(value: PyValue): value is PyDict {
  if (!(value instanceof Map) || value.size !== RECORD_KEYS.length) return false;
  for (const key of RECORD_KEYS) if (!value.has(key)) return false;
  const trialId = value.get('trial_id');
  const finalState = value.get('final_state');
  return (
    isPlainNonEmptyString(value.get('case_id')) &&
    typeof trialId === 'bigint' &&
    trialId >= 1n &&
    STATUSES.includes(value.get('status') as string) &&
    (finalState === null || isPlainNonEmptyString(finalState)) &&
    isPlainUniqueStringList(value.get('side_effects')) &&
    isPlainUniqueStringList(value.get('tools_used')) &&
    isPlainNonNegative(value.get('latency_ms')) &&
    isPlainNonNegative(value.get('cost_units'))
  );
}

function pairKey(caseId: string, trialId: bigint): string {
  return `${trialId}:${caseId}`;
}

function comparePairs(a: [string, bigint], b: [string, bigint]): number {
  const byId = compareCodePoints(a[0], b[0]);
  if (byId !== 0) return byId;
  return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

function reprPairs(pairs: [string, bigint][]): string {
  return (
    '[' +
    pairs
      .sort(comparePairs)
      .map((pair) => repr({tuple: pair}))
      .join(', ') +
    ']'
  );
}

/** `validate_results`. */
export function validateResults(value: PyValue, spec: PyDict, caseFile: PyDict): PyDict {
  const results = requireExactDict(value, RESULTS_KEYS, 'results');
  if (requireString(get(results, 'schema_version'), 'results.schema_version') !== 'agent-benchmark-results-v1') {
    fail('results.schema_version must be agent-benchmark-results-v1');
  }
  for (const key of ['benchmark_id', 'benchmark_version', 'dataset_version', 'result_set_version']) {
    requireString(get(results, key), `results.${key}`);
  }
  for (const key of ['benchmark_id', 'benchmark_version']) {
    if (get(results, key) !== get(spec, key)) fail(`results.${key} does not match spec`);
  }
  if (get(results, 'dataset_version') !== get(caseFile, 'dataset_version')) {
    fail('results.dataset_version does not match cases.dataset_version');
  }
  const systems = get(results, 'systems');
  if (!Array.isArray(systems) || systems.length === 0) fail('results.systems must be a non-empty array');

  const trialCount = Number(get(get(spec, 'protocol') as PyDict, 'trial_count'));
  const testIds = new Set<string>();
  for (const item of get(caseFile, 'cases') as PyDict[]) if (get(item, 'split') === 'test') testIds.add(get(item, 'id') as string);
  const expected = new Map<string, [string, bigint]>();
  for (const id of testIds) for (let t = 1; t <= trialCount; t++) expected.set(pairKey(id, BigInt(t)), [id, BigInt(t)]);

  const systemIds: string[] = [];
  const roles: string[] = [];
  systems.forEach((systemValue, systemIndex) => {
    const context = `results.systems[${systemIndex}]`;
    const system = requireExactDict(systemValue, SYSTEM_KEYS, context);
    systemIds.push(requireString(get(system, 'system_id'), `${context}.system_id`));
    const role = requireString(get(system, 'role'), `${context}.role`);
    if (role !== 'baseline' && role !== 'candidate') fail(`${context}.role must be baseline or candidate`);
    roles.push(role);
    validateProtocol(get(system, 'protocol'), `${context}.protocol`);
    const recordList = get(system, 'records');
    if (!Array.isArray(recordList)) fail(`${context}.records must be an array`);
    const records = recordList.map((record, recordIndex) =>
      isPlainValidRecord(record) ? record : validateRecord(record, `${context}.records[${recordIndex}]`),
    );
    const actual = new Map<string, [string, bigint]>();
    for (const record of records) {
      const pair: [string, bigint] = [get(record, 'case_id') as string, get(record, 'trial_id') as bigint];
      actual.set(pairKey(...pair), pair);
    }
    if (actual.size !== records.length) fail(`${context}.records contains duplicate case/trial`);
    let same = actual.size === expected.size;
    if (same) for (const key of actual.keys()) if (!expected.has(key)) same = false;
    if (!same) {
      const missing = [...expected].filter(([key]) => !actual.has(key)).map(([, pair]) => pair);
      const unknown = [...actual].filter(([key]) => !expected.has(key)).map(([, pair]) => pair);
      fail(`${context}.records must exactly cover frozen private test trials; missing=${reprPairs(missing)}, unknown=${reprPairs(unknown)}`);
    }
  });
  if (new Set(systemIds).size !== systemIds.length) fail('system IDs must be unique');
  if (roles.filter((r) => r === 'baseline').length !== 1 || roles.filter((r) => r === 'candidate').length !== 1) {
    fail('results must contain exactly one baseline and one candidate');
  }
  const baseline = (systems as PyDict[]).find((system) => get(system, 'role') === 'baseline') as PyDict;
  if (get(baseline, 'system_id') !== get(spec, 'baseline_system_id')) fail('baseline system does not match spec.baseline_system_id');
  return results;
}

function systemById(results: PyDict, systemId: string): PyDict {
  for (const system of get(results, 'systems') as PyDict[]) if (get(system, 'system_id') === systemId) return system;
  fail(`system not found: ${systemId}`);
}

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

type Metrics = Map<string, DumpValue>;

interface TaskResult {
  caseId: string;
  taskPass: boolean;
}

function calculateMetrics(spec: PyDict, testCases: PyDict[], system: PyDict): {metrics: Metrics; tasks: TaskResult[]; critical: string[]} {
  const recordList = get(system, 'records') as PyDict[];
  const trialCount = Number(get(get(spec, 'protocol') as PyDict, 'trial_count'));
  // Validation made the records cover exactly (test case, 1..trial_count).
  const records = new Map<string, PyDict[]>();
  for (const record of recordList) {
    const caseId = get(record, 'case_id') as string;
    let trials = records.get(caseId);
    if (!trials) records.set(caseId, (trials = new Array<PyDict>(trialCount)));
    trials[Number(get(record, 'trial_id')) - 1] = record;
  }
  const gates = get(spec, 'gates') as PyDict;
  const taskMin = gateFloat(gates, 'task_min_trial_success_rate');
  const criticalMin = gateFloat(gates, 'critical_task_min_trial_success_rate');
  const trialResults: DumpValue[] = [];
  const taskResults: DumpValue[] = [];
  const tasks: TaskResult[] = [];
  const bySliceValues = new Map<string, boolean[]>();
  const byFamilyValues = new Map<string, boolean[]>();
  const criticalFailures: string[] = [];
  let finalStateCount = 0;
  let sideEffectCount = 0;
  let unknownCount = 0;
  let taskPassCount = 0;
  let stableCount = 0;

  for (const item of testCases) {
    const caseId = get(item, 'id') as string;
    const forbidden = new Set(get(item, 'forbidden_side_effects') as string[]);
    const allowed = new Set(get(item, 'allowed_tools') as string[]);
    const expectedState = normalize(get(item, 'expected_final_state') as string);
    let passedCount = 0;
    const trials = records.get(caseId) as PyDict[];
    for (let t = 1; t <= trialCount; t++) {
      const record = trials[t - 1] as PyDict;
      const status = get(record, 'status') as string;
      const statusSuccess = status === 'success';
      const finalStateCorrect = normalize(get(record, 'final_state') as string | null) === expectedState;
      const sideEffectsSafe = (get(record, 'side_effects') as string[]).every((effect) => !forbidden.has(effect));
      const toolsAllowed = (get(record, 'tools_used') as string[]).every((tool) => allowed.has(tool));
      const passed = statusSuccess && finalStateCorrect && sideEffectsSafe && toolsAllowed;
      if (passed) passedCount++;
      if (finalStateCorrect) finalStateCount++;
      if (sideEffectsSafe) sideEffectCount++;
      if (status === 'unknown') unknownCount++;
      trialResults.push({
        case_id: caseId,
        trial_id: get(record, 'trial_id') as bigint,
        passed,
        status,
        checks: {
          status_success: statusSuccess,
          final_state_correct: finalStateCorrect,
          side_effects_safe: sideEffectsSafe,
          tools_allowed: toolsAllowed,
        },
      });
    }
    const successRate = passedCount / trialCount;
    const taskPass = successRate >= taskMin;
    const stable = passedCount === 0 || passedCount === trialCount;
    if (taskPass) taskPassCount++;
    if (stable) stableCount++;
    const slice = get(item, 'slice') as string;
    const familyId = get(item, 'family_id') as string;
    const critical = get(item, 'critical') as boolean;
    taskResults.push({
      case_id: caseId,
      family_id: familyId,
      slice,
      critical,
      trial_success_rate: successRate,
      task_pass: taskPass,
      stable_across_trials: stable,
    });
    tasks.push({caseId, taskPass});
    let sliceValues = bySliceValues.get(slice);
    if (!sliceValues) bySliceValues.set(slice, (sliceValues = []));
    sliceValues.push(taskPass);
    let familyValues = byFamilyValues.get(familyId);
    if (!familyValues) byFamilyValues.set(familyId, (familyValues = []));
    familyValues.push(taskPass);
    if (critical && successRate < criticalMin) criticalFailures.push(caseId);
  }

  const group = (values: Map<string, boolean[]>): Map<string, DumpValue> => {
    const out = new Map<string, DumpValue>();
    for (const [name, list] of values) {
      out.set(name, {task_count: BigInt(list.length), task_success_rate: list.filter(Boolean).length / list.length});
    }
    return out;
  };
  const bySlice = group(bySliceValues);
  const sliceRates = [...bySlice.values()].map((entry) => (entry as {task_success_rate: number}).task_success_rate);
  const latencies = new Float64Array(recordList.length);
  const costs = new Float64Array(recordList.length);
  recordList.forEach((record, i) => {
    latencies[i] = toFloat(get(record, 'latency_ms') as bigint | number);
    costs[i] = toFloat(get(record, 'cost_units') as bigint | number);
  });
  const trials = trialResults.length;
  const metrics: Metrics = new Map<string, DumpValue>([
    ['task_count', BigInt(testCases.length)],
    ['trial_count', BigInt(trials)],
    ['primary_task_success_rate', taskPassCount / testCases.length],
    ['final_state_trial_rate', finalStateCount / trials],
    ['side_effect_free_trial_rate', sideEffectCount / trials],
    ['trial_stability_rate', stableCount / testCases.length],
    ['unknown_trial_count', BigInt(unknownCount)],
    ['mean_latency_ms', exactMean(latencies)],
    ['p95_latency_ms', nearestRank(latencies, 0.95)],
    ['mean_cost_units', exactMean(costs)],
    ['slice_task_success_gap', Math.max(...sliceRates) - Math.min(...sliceRates)],
    ['by_slice', bySlice],
    ['by_family', group(byFamilyValues)],
    ['critical_failures', criticalFailures],
    ['task_results', taskResults],
    ['trial_results', trialResults],
  ]);
  return {metrics, tasks, critical: criticalFailures};
}

/** `fingerprint`: sha256 of the canonical JSON of the values, or the UnicodeEncodeError. */
export function fingerprint(...values: PyValue[]): string {
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

/** `evaluate` + `decision_to_dict`: the output document and whether it is a PASS. */
export function evaluate(spec: PyDict, caseFile: PyDict, results: PyDict, candidateId: string): {document: DumpValue; pass: boolean} {
  const baselineId = get(spec, 'baseline_system_id') as string;
  if (candidateId === baselineId) fail('candidate system must differ from baseline');
  const baseline = systemById(results, baselineId);
  const candidate = systemById(results, candidateId);
  if (get(candidate, 'role') !== 'candidate') fail('selected candidate system does not have candidate role');
  const evidence = fingerprint(spec, caseFile, results, candidateId);
  const specProtocol = get(spec, 'protocol') as PyDict;
  const mismatches = [
    ...protocolMismatches(specProtocol, get(baseline, 'protocol') as PyDict, baselineId),
    ...protocolMismatches(specProtocol, get(candidate, 'protocol') as PyDict, candidateId),
  ];
  const document = (
    action: string,
    primaryReason: string,
    reasons: string[],
    comparable: boolean,
    baselineMetrics: Metrics | null,
    candidateMetrics: Metrics | null,
    comparison: DumpValue,
  ): DumpValue => ({
    action,
    primary_reason: primaryReason,
    reasons,
    comparable,
    evidence_fingerprint: evidence,
    benchmark_id: get(spec, 'benchmark_id') as string,
    benchmark_version: get(spec, 'benchmark_version') as string,
    dataset_version: get(caseFile, 'dataset_version') as string,
    baseline_system: baselineId,
    candidate_system: candidateId,
    baseline_metrics: baselineMetrics,
    candidate_metrics: candidateMetrics,
    comparison,
    limitations: LIMITATIONS,
  });
  if (mismatches.length > 0) {
    return {
      document: document('INCOMPARABLE', 'run protocol does not match frozen benchmark protocol', mismatches, false, null, null, {
        protocol_mismatches: mismatches,
      }),
      pass: false,
    };
  }
  const testCases = (get(caseFile, 'cases') as PyDict[]).filter((item) => get(item, 'split') === 'test');
  const base = calculateMetrics(spec, testCases, baseline);
  const cand = calculateMetrics(spec, testCases, candidate);
  const baseTasks = new Map(base.tasks.map((t) => [t.caseId, t.taskPass]));
  const candTasks = new Map(cand.tasks.map((t) => [t.caseId, t.taskPass]));
  const n = testCases.length;
  const differences = new Int8Array(n);
  let deltaSum = 0;
  testCases.forEach((item, i) => {
    const id = get(item, 'id') as string;
    const d = (candTasks.get(id) ? 1 : 0) - (baseTasks.get(id) ? 1 : 0);
    differences[i] = d;
    deltaSum += d;
  });
  const bootstrap = get(spec, 'bootstrap') as PyDict;
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

  const gates = get(spec, 'gates') as PyDict;
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
  let action: string;
  let reasons: string[];
  if (block.length > 0) {
    action = 'BLOCK';
    reasons = [...block, ...review];
  } else if (review.length > 0) {
    action = 'REVIEW';
    reasons = review;
  } else {
    action = 'PASS';
    reasons = ['all frozen benchmark gates passed'];
  }
  return {document: document(action, reasons[0] as string, reasons, true, base.metrics, cand.metrics, comparison), pass: action === 'PASS'};
}
