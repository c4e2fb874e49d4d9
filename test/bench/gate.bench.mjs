// `arbor benchmark gate` against the Python reference on the same large valid
// package (500 test tasks x 5 trials, 100,000 bootstrap samples), side by side:
// checks that stdout, stderr and exit code are byte-identical and prints the ratio.
import {spawnSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {target} from './targets.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.resolve(here, '../../dist/cli/index.js');
const reference = path.resolve(here, '../fixtures/gate/agent_gate_reference.py');
const tasks = Number(process.env.BENCH_GATE_TASKS ?? 500);
const samples = Number(process.env.BENCH_GATE_SAMPLES ?? 100000);
const rounds = Number(process.env.BENCH_GATE_ROUNDS ?? 1);

// A small deterministic PRNG so the package is the same on every run.
let state = 0x2545f491;
const rand = () => {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return (state >>> 0) / 2 ** 32;
};

function buildPackage(dir) {
  const protocol = {
    protocol_version: 'agent-protocol-v1',
    environment_id: 'sandbox-1',
    toolset_id: 'tools-1',
    reset_policy: 'fresh-per-trial',
    max_steps: 40,
    timeout_seconds: 30.0,
    retry_limit: 0,
    trial_count: 5,
  };
  const spec = {
    schema_version: 'agent-benchmark-spec-v1',
    benchmark_id: 'bench-large',
    benchmark_version: '1.0.0',
    private_test_frozen: true,
    claim: 'Large synthetic package for timing.',
    target_population: 'agents',
    baseline_system_id: 'baseline-v1',
    primary_metric: 'task_success_rate',
    protocol,
    gates: {
      task_min_trial_success_rate: 0.6,
      min_primary_task_success_rate: 0.5,
      critical_task_min_trial_success_rate: 0.6,
      min_final_state_trial_rate: 0.5,
      min_side_effect_free_trial_rate: 0.5,
      min_trial_stability_rate: 0.3,
      max_slice_task_success_gap: 0.5,
      max_mean_latency_ms: 5000,
      max_p95_latency_ms: 9000,
      max_mean_cost_units: 5.0,
      min_paired_delta_ci_low: -0.5,
    },
    bootstrap: {samples, seed: 20260101, confidence: 0.95},
  };
  const cases = [];
  const slices = ['billing', 'account', 'shipping', 'returns'];
  const add = (split, i) =>
    cases.push({
      id: `${split}-${i}`,
      family_id: `fam-${split}-${i}`,
      split,
      slice: slices[i % slices.length],
      critical: false,
      task_type: 'lookup',
      is_private: split === 'test',
      initial_state: 'open',
      expected_final_state: `Resolved ${i % 7}`,
      allowed_tools: ['search', 'lookup'],
      forbidden_side_effects: ['charge'],
    });
  for (let i = 0; i < 5; i++) add('train', i);
  for (let i = 0; i < 5; i++) add('development', i);
  for (let i = 0; i < tasks; i++) add('test', i);
  const system = (id, role, quality) => ({
    system_id: id,
    role,
    protocol,
    records: cases
      .filter((c) => c.split === 'test')
      .flatMap((c) => {
        const good = rand() < quality;
        return [1, 2, 3, 4, 5].map((trial) => {
          const ok = good ? rand() < 0.9 : rand() < 0.3;
          return {
            case_id: c.id,
            trial_id: trial,
            status: ok ? 'success' : 'error',
            final_state: ok ? c.expected_final_state.toUpperCase() : 'stuck',
            side_effects: [],
            tools_used: ['search'],
            latency_ms: Math.round(rand() * 4000 * 100) / 100,
            cost_units: Math.round(rand() * 300) / 100,
          };
        });
      }),
  });
  const results = {
    schema_version: 'agent-benchmark-results-v1',
    benchmark_id: 'bench-large',
    benchmark_version: '1.0.0',
    dataset_version: 'd1',
    result_set_version: 'r1',
    systems: [system('baseline-v1', 'baseline', 0.55), system('candidate-pass', 'candidate', 0.7)],
  };
  const caseFile = {schema_version: 'agent-benchmark-cases-v1', benchmark_id: 'bench-large', benchmark_version: '1.0.0', dataset_version: 'd1', cases};
  // timeout_seconds must stay a float: JSON.stringify would write 30.
  writeFileSync(path.join(dir, 'spec.json'), JSON.stringify(spec, null, 2).replace('"timeout_seconds": 30', '"timeout_seconds": 30.0'));
  writeFileSync(path.join(dir, 'cases.json'), JSON.stringify(caseFile));
  writeFileSync(path.join(dir, 'results.json'), JSON.stringify(results).replaceAll('"timeout_seconds":30', '"timeout_seconds":30.0'));
}

// CPU time of finished children (Linux: /proc/self/stat cutime + cstime), which
// is steadier than wall time on a shared, loaded machine; null elsewhere.
function childrenCpuMs() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return null;
  }
}

function time(command, args, cwd) {
  const cpuBefore = childrenCpuMs();
  const start = process.hrtime.bigint();
  const result = spawnSync(command, args, {cwd, encoding: 'utf8', maxBuffer: 1 << 28});
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const cpuAfter = childrenCpuMs();
  if (result.error) throw result.error;
  const cpu = cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore;
  return {ms, cpu, stdout: result.stdout, stderr: result.stderr, status: result.status};
}

const dir = mkdtempSync(path.join(tmpdir(), 'arbor-gate-bench-'));
try {
  buildPackage(dir);
  const args = ['--spec', 'spec.json', '--cases', 'cases.json', '--results', 'results.json', '--candidate', 'candidate-pass'];
  const py = [];
  const port = [];
  const pyCpu = [];
  const portCpu = [];
  let identical = true;
  for (let round = 0; round < rounds; round++) {
    const a = time('python3', [reference, ...args], dir);
    const b = time(process.execPath, [cli, 'benchmark', 'gate', ...args], dir);
    identical &&= a.stdout === b.stdout && a.stderr === b.stderr && a.status === b.status;
    py.push(a.ms);
    port.push(b.ms);
    if (a.cpu !== null && b.cpu !== null) {
      pyCpu.push(a.cpu);
      portCpu.push(b.cpu);
    }
    if (round === 0) console.log(`outcome          exit ${a.status}, ${a.stdout.length} bytes of stdout, action ${JSON.parse(a.stdout || '{}').action}`);
  }
  const best = (values) => Math.min(...values);
  console.log(`package          ${tasks} test tasks x 5 trials, ${samples} bootstrap samples`);
  console.log(`python reference ${best(py).toFixed(0)} ms (best of ${rounds})`);
  console.log(`arbor port       ${best(port).toFixed(0)} ms`);
  console.log(
    `speedup          ${(best(py) / best(port)).toFixed(1)}x wall clock ${target('gate speedup over the reference', best(py) / best(port), '>=', 20)} (aim 50x)`,
  );
  if (pyCpu.length > 0) {
    console.log(`cpu time         python ${best(pyCpu).toFixed(0)} ms, arbor ${best(portCpu).toFixed(0)} ms: ${(best(pyCpu) / best(portCpu)).toFixed(1)}x`);
  }
  console.log(`bytes identical  ${identical ? 'yes' : 'NO'}`);
  if (!identical) process.exitCode = 1;
} finally {
  rmSync(dir, {recursive: true, force: true});
}
