/** `verify --probe`: the quick cases (no eval runs), and verify without it staying light. */
import {readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {repoRoot, runCli, tempDir} from '../helpers/cli.js';
import {probeLib} from './helpers.js';

describe('verify --probe without an eval to run', () => {
  it('a folder without plan.toml is a probe-plan error; a missing folder still exits 2', () => {
    const dir = 'test/fixtures/zoo/minimal-ok';
    const result = runCli(['benchmark', 'verify', '--probe', dir, 'test/fixtures/zoo/nope']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe(
      `${dir}: error: No \`plan.toml\`, so \`--probe\` has no eval to run the probes through; add one (its format is in lib/eval/README.md) (probe-plan)\n` +
        `${dir}: 1 error (0 probes in 0.0 s)\n`,
    );
    expect(result.stderr).toBe('arbor: Benchmark folder `test/fixtures/zoo/nope` does not exist, expected a benchmark folder\n');
  });

  it('the same folder without --probe is clean: probe findings come only with --probe', () => {
    expect(runCli(['benchmark', 'verify', 'test/fixtures/zoo/minimal-ok'])).toEqual({code: 0, stdout: 'test/fixtures/zoo/minimal-ok: ok\n', stderr: ''});
  });

  it('--json gives the probes and their seconds, an empty list when none ran', () => {
    const result = runCli(['benchmark', 'verify', '--probe', '--json', 'test/fixtures/zoo/minimal-ok']);
    expect(result.code).toBe(1);
    const [benchmark] = JSON.parse(result.stdout).benchmarks;
    expect(benchmark).toMatchObject({
      ok: false,
      errors: 1,
      probes: [],
      findings: [{ruleId: 'probe-plan', severity: 'error', file: 'test/fixtures/zoo/minimal-ok'}],
    });
    expect(typeof benchmark.probeSeconds).toBe('number');
  });

  it('verify without --probe never loads the eval or the probes', () => {
    const log = path.join(tempDir(), 'loads.txt');
    const hook = path.join(import.meta.dirname, '../zoo/helpers/record-loads.mjs');
    const result = runCli(['benchmark', 'verify', 'zoo/relu_poly'], {env: {ARBOR_LOAD_LOG: log, NODE_OPTIONS: `--import=${hook}`}});
    expect(result).toEqual({code: 0, stdout: 'zoo/relu_poly: ok\n', stderr: ''});
    const loaded = readFileSync(log, 'utf8');
    expect(loaded).toContain('/dist/lib/zoo/verify.js');
    expect(loaded).not.toContain('/dist/lib/eval/');
    expect(loaded).not.toContain('/dist/lib/probe/');
  });

  it('--help names the option and the exit codes', () => {
    const result = runCli(['benchmark', 'verify', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--probe');
    expect(result.stdout).toContain('--mutants');
    expect(result.stdout.replace(/\s+/g, ' ')).toContain(
      'Exit 0 when no folder has an error (warnings allowed), 1 when any has (with --probe: also a probe the eval rewards, or an eval that cannot run; ' +
        'with --probe or --mutants: a trivial answer the verifier rewards; with --mutants: fewer than 90% of the mutants killed), 2 when',
    );
  });

  it('the library refuses a probe name it does not know', async () => {
    await expect(probeLib.probeBenchmark('zoo/relu_poly', {only: ['zeros', 'nope']})).rejects.toThrow(
      'unknown probe "nope", expected one of zeros, empty, none, wrong-shape, wrong-dtype, nan, echo, random, constant, crash, sleep, fake-score, hunt',
    );
  });

  it('a plan override replaces only the values it defines, for one eval', async () => {
    const {loadPlan, overridePlan} = (await import(path.join(repoRoot, 'dist/lib/eval/index.js'))) as typeof import('../../lib/eval/index.js');
    const plan = await loadPlan(path.join(repoRoot, 'zoo/algotune_knn'));
    const probed = overridePlan(plan, {repetitions: 2, maxSeconds: 0, timeout: undefined});
    expect(probed).toEqual({...plan, repetitions: 2, maxSeconds: 0});
    expect(plan.repetitions).toBe(5);
    expect(overridePlan(plan)).toBe(plan);
  });
});
