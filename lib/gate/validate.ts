/**
 * Validation of the gate's three input documents (spec, cases, results), in the reference's
 * exact order and with its exact messages: the first failed check is the one reported.
 */
import {GateError} from './json.js';
import {compareCodePoints, floatRepr, pyStrip, repr, sortedStrings, toFloat, type PyDict, type PyValue} from './py.js';

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
export const SORTED_PROTOCOL_KEYS = sortedStrings(PROTOCOL_KEYS);

export function fail(message: string): never {
  throw new GateError(message);
}

/** A dict's value by a key known to be present. */
export function get(dict: PyDict, key: string): PyValue {
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

export function gateFloat(gates: PyDict, key: string): number {
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
