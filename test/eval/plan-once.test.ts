// plan.toml is read once per eval: the plan an eval is scored under is the one it goes on record with.
// A preload replaces plan.toml by an invalid one right after its first read: any later read (a
// command reading the plan again to record the eval, the secret-free child reading it again) fails.
import {chmodSync, cpSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {describe, expect, it} from 'vitest';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';
import {unsandboxedEnv} from './adversaries.js';

const accuracy = path.join(fixtures, 'eval/accuracy-abs');

/** A preload that turns plan.toml (ARBOR_TEST_PLAN) into an invalid plan as soon as it has been read once. */
const preload = `
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import {syncBuiltinESMExports} from 'node:module';
const target = process.env.ARBOR_TEST_PLAN;
const read = fsp.readFile;
fsp.readFile = async function (file, ...rest) {
  const text = await read.call(this, file, ...rest);
  if (target && String(file) === target && fs.readFileSync(target, 'utf8') !== 'metric = "replaced"\\n') fs.writeFileSync(target, 'metric = "replaced"\\n');
  return text;
};
syncBuiltinESMExports();
`;

function entry(): {dir: string; env: NodeJS.ProcessEnv} {
  const root = tempDir('arbor-plan-once-');
  const dir = path.join(root, 'entry');
  cpSync(accuracy, dir, {recursive: true});
  // Unlocked (a warning): a lock would refuse the replaced plan.toml as a stale protected file, which is not what is tested.
  rmSync(path.join(dir, 'arbor.lock'));
  const hook = path.join(root, 'replace-plan.mjs');
  writeFileSync(hook, preload);
  const env = {
    ARBOR_LEDGER: path.join(root, 'runs.db'),
    ARBOR_TEST_PLAN: path.join(dir, 'plan.toml'),
    NODE_OPTIONS: `--import=${pathToFileURL(hook).href}`,
  };
  return {dir, env};
}

describe('eval reads plan.toml once', () => {
  it.each([
    ['in this process', 'dev', {}],
    ['in the child that holds no salt', 'test', {ARBOR_TEST_SALT: 'plan-once-salt'}],
  ])('%s: scored and recorded with the plan read before the eval, although plan.toml was replaced since', (_where, split, extra) => {
    const {dir, env} = entry();
    const result = runCli(['benchmark', 'eval', dir, split, '--quiet'], {env: {...env, ...extra}});
    expect(readFileSync(path.join(dir, 'plan.toml'), 'utf8')).toBe('metric = "replaced"\n');
    expect(result.stderr).not.toContain('"metric" must be');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^score: \S+\n$/);
    const runs = JSON.parse(runCli(['benchmark', 'runs', '--json'], {env: {ARBOR_LEDGER: env.ARBOR_LEDGER}}).stdout).runs;
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({kind: 'eval', split});
  });
});

describe('a solution that rewrites plan.toml while it runs', () => {
  it('cannot raise the test_budget its test eval is recorded under: the over-budget warning stands', () => {
    const root = tempDir('arbor-plan-raise-');
    const dir = path.join(root, 'entry');
    cpSync(accuracy, dir, {recursive: true});
    rmSync(path.join(dir, 'arbor.lock'));
    const plan = path.join(dir, 'plan.toml');
    writeFileSync(plan, `test_budget = 1\n${readFileSync(plan, 'utf8')}`);
    // An author's mistake the attack needs: a plan.toml the run can write (a run started by root has a uid of its own).
    chmodSync(root, 0o755);
    chmodSync(dir, 0o755);
    chmodSync(plan, 0o666);
    // Without the sandbox (where a solution can reach the folder at all), with an interpreter a dropped uid can start.
    const env = {ARBOR_LEDGER: path.join(root, 'runs.db'), ...unsandboxedEnv};
    expect(runCli(['benchmark', 'eval', dir, 'test', '--unsandboxed', '--quiet'], {env}).code).toBe(0);
    // The second distinct solution on test is over the budget of 1; on import it sets the budget to 100.
    const evil = path.join(root, 'evil.py');
    writeFileSync(
      evil,
      `${readFileSync(path.join(dir, 'solution.py'), 'utf8')}\n` +
        `_plan = ${JSON.stringify(plan)}\n` +
        `try:\n    _text = open(_plan).read().replace("test_budget = 1\\n", "test_budget = 100\\n")\n    open(_plan, "w").write(_text)\nexcept OSError:\n    pass\n`,
    );
    const second = runCli(['benchmark', 'eval', dir, 'test', '--unsandboxed', '--quiet', '--solution', evil], {env});
    expect(readFileSync(plan, 'utf8')).toContain('test_budget = 100');
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/warning: .*2 .*test_budget.*1/);
  });
});
