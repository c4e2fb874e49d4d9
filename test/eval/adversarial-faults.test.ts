// Killed evals, arbor.lock, runs without a sandbox, and work offloaded on the CPU clock (helpers in ./adversaries.ts).
import {spawn, spawnSync} from 'node:child_process';
import {cpSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {cgroupsWork} from '../../lib/sandbox/cgroup.js';
import {cliPath, fixtures, runCli, tempDir} from '../helpers/cli.js';
import {entryCopy, evaluate, eventually, marker, sandboxed, survivors, unsandboxedEnv} from './adversaries.js';

describe.skipIf(!sandboxed)('faults: a killed eval leaves nothing behind', () => {
  it('kill -9 of an eval ends its runs, and the next eval removes its work folder', async () => {
    const tmp = tempDir();
    const mark = marker();
    const {dir, candidate} = entryCopy('prefix-speed', 'sleep.py', {ARBOR_PROCESS_MARKER: mark});
    const env = {...process.env, TMPDIR: tmp, NO_COLOR: '1'};
    const child = spawn(process.execPath, [cliPath, 'benchmark', 'eval', dir, 'dev', '--solution', candidate], {env, stdio: 'ignore'});
    // Wait until the solution's child is running, then kill the eval outright.
    expect(eventually(() => survivors(mark).length > 0, 10_000)).toBe(true);
    expect(readdirSync(tmp).filter((name) => name.startsWith('arbor-eval-'))).toHaveLength(1);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('exit', resolve));
    expect(eventually(() => survivors(mark).length === 0)).toBe(true);
    // The next eval clears the dead eval's folder (and its own).
    const next = runCli(['benchmark', 'eval', dir, 'dev', '--quiet'], {env});
    expect(next.stdout).toMatch(/^score: /);
    expect(readdirSync(tmp).filter((name) => name.startsWith('arbor-eval-'))).toEqual([]);
  });

  it("a folder kept with --keep survives the next eval (it is not a killed eval's folder)", () => {
    const tmp = tempDir();
    const env = {...process.env, TMPDIR: tmp, NO_COLOR: '1'};
    const speed = path.join(fixtures, 'eval/prefix-speed');
    const first = runCli(['benchmark', 'eval', speed, 'dev', '--keep'], {env});
    expect(first.code).toBe(0);
    const kept = /kept the work folders in (\S+)/.exec(first.stderr)![1]!;
    expect(path.dirname(kept)).toBe(tmp);
    expect(path.basename(kept)).toMatch(/^arbor-eval-kept-/);
    const next = runCli(['benchmark', 'eval', speed, 'dev', '--quiet'], {env});
    expect(next.code).toBe(0);
    expect(readdirSync(tmp)).toEqual([path.basename(kept)]);
    // Every repetition's fresh cases are kept, each in a work folder of its own.
    expect(readdirSync(path.join(kept, 'points/0/rep-0/cases')).length).toBeGreaterThan(0);
    expect(readdirSync(path.join(kept, 'points/0/rep-1/cases')).length).toBeGreaterThan(0);
  });

  it('--json refuses a path that exists and is not a regular file (exit 2), and leaves it alone', () => {
    const dir = tempDir();
    const fifo = path.join(dir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const result = runCli(['benchmark', 'eval', path.join(fixtures, 'eval/prefix-speed'), 'dev', '--json-file', fifo]);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `arbor: --json-file ${fifo}: exists and is not a regular file, expected a new path or a regular file\n`,
    });
    expect(readdirSync(dir)).toEqual(['fifo']);
  });
});

describe('arbor.lock', () => {
  it('an eval whose protected files differ from arbor.lock runs nothing, prints no score and exits 3 naming the file; lock refreshes it', () => {
    const dir = path.join(tempDir(), 'entry');
    cpSync(path.join(fixtures, 'eval/prefix-speed'), dir, {recursive: true});
    writeFileSync(path.join(dir, 'plan.toml'), readFileSync(path.join(dir, 'plan.toml'), 'utf8').replace('repetitions = 2', 'repetitions = 3'));
    const result = runCli(['benchmark', 'eval', dir, 'dev']);
    expect(result).toMatchObject({code: 3, stdout: ''});
    expect(result.stderr).toBe(
      `arbor: ${dir}: its protected files differ from arbor.lock (plan.toml changed), so nothing was evaluated: restore them (e.g. with git checkout), or if the change is on purpose run 'arbor benchmark lock ${dir}'\n`,
    );
    expect(runCli(['benchmark', 'lock', '--check', dir])).toMatchObject({code: 1, stdout: `${dir}: differs from arbor.lock: plan.toml changed\n`});
    expect(runCli(['benchmark', 'lock', dir])).toMatchObject({code: 0, stdout: `${dir}: wrote arbor.lock (7 protected files)\n`});
    expect(runCli(['benchmark', 'lock', '--check', dir])).toMatchObject({code: 0});
    expect(Number(runCli(['benchmark', 'eval', dir, 'dev']).stdout.slice(7))).toBeGreaterThan(1);
  });

  it('an added bundle file or a changed reference differs too; editing the solution does not', () => {
    const dir = path.join(tempDir(), 'entry');
    cpSync(path.join(fixtures, 'eval/prefix-speed'), dir, {recursive: true});
    writeFileSync(path.join(dir, 'solution.py'), `${readFileSync(path.join(dir, 'solution.py'), 'utf8')}\n# edited\n`);
    mkdirSync(path.join(dir, 'bundle/__pycache__'));
    writeFileSync(path.join(dir, 'bundle/__pycache__/x.pyc'), '');
    expect(runCli(['benchmark', 'lock', '--check', dir]).code).toBe(0);
    writeFileSync(path.join(dir, 'bundle/extra.mjs'), '');
    expect(runCli(['benchmark', 'lock', '--check', '--json', dir]).stdout).toContain('"difference": "bundle/extra.mjs added"');
    rmSync(path.join(dir, 'bundle/extra.mjs'));
    writeFileSync(path.join(dir, 'reference.py'), 'def run(state, inputs):\n    return None\n');
    expect(runCli(['benchmark', 'lock', '--check', dir]).stdout).toBe(`${dir}: differs from arbor.lock: reference.py changed\n`);
  });

  it('a benchmark without arbor.lock is scored, with a warning naming the fix', () => {
    const dir = path.join(tempDir(), 'entry');
    cpSync(path.join(fixtures, 'eval/prefix-speed'), dir, {recursive: true});
    rmSync(path.join(dir, 'arbor.lock'));
    const json = path.join(path.dirname(dir), 'report.json');
    const result = runCli(['benchmark', 'eval', dir, 'dev', '--json-file', json]);
    expect(Number(result.stdout.slice(7))).toBeGreaterThan(1);
    expect(result.stderr).toContain(
      `warning: entry has no arbor.lock, so changes to its protected files go unnoticed; write one with 'arbor benchmark lock ${dir}'`,
    );
    expect(JSON.parse(readFileSync(json, 'utf8')).lock).toBe('missing');
  });
});

describe('where the sandbox cannot start', () => {
  it('dev runs without it, loudly; test refuses unless --unsandboxed; the report says "none"', () => {
    const env = {ARBOR_BWRAP: '/nonexistent/bwrap', ...unsandboxedEnv};
    const dev = evaluate('prefix-speed', '../prefix-speed/solution.py', {env});
    expect(dev.stderr).toMatch(/warning: bubblewrap \(bwrap\) is not installed; running the solution WITHOUT a sandbox/);
    expect(dev.report.sandbox).toBe('none');
    expect(dev.score).toBeGreaterThan(1);
    const test = runCli(['benchmark', 'eval', path.join(fixtures, 'eval/prefix-speed'), 'test'], {env});
    expect(test).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'arbor: bubblewrap (bwrap) is not installed: the test split is scored only in the sandbox; install bubblewrap (e.g. apt-get install bubblewrap; arbor doctor says what this machine lacks), or pass --unsandboxed to score it without one\n',
    });
    const forced = evaluate('prefix-speed', '../prefix-speed/solution.py', {split: 'test', env, args: ['--unsandboxed']});
    expect(forced.report.sandbox).toBe('none');
    expect(forced.stderr).toMatch(/warning: --unsandboxed/);
  });

  it('without a sandbox, the tamper checks still catch a solution that rewrites the bundle snapshot', () => {
    const {score, report} = evaluate('prefix-speed', 'tamper-bundle.py', {args: ['--unsandboxed'], env: unsandboxedEnv});
    expect(score).toBe(0);
    // Started by root, the run is a uid of its own that cannot reach the snapshot (0700): its answers just fail.
    expect(report.points[0].cases[0].status).toBe(process.getuid?.() === 0 ? 'failed' : 'tampered');
  });
});

// The CPU clock needs a cgroup per run (root, or a delegated cgroup); without one an eval times on the wall clock and says so.
describe.skipIf(!sandboxed || !cgroupsWork())('offloading work on the CPU clock', () => {
  // The reference is the same pure Python loop: doing that work elsewhere (a thread, a pool, a
  // daemon, started in the untimed init()) must cost the same CPU, so the score stays about 1
  // (the pool and the daemon would score about 2 on a wall clock with two cores).
  it.each(['thread-init.py', 'pool-init.py', 'daemon-socket.py'])('%s scores no more than doing the work itself', (solution) => {
    const {score, report} = evaluate('prefix-speed', solution);
    expect(report).toMatchObject({clock: 'cpu', cgroup: true});
    expect(report.points[0].cases.every((c: {passed: boolean}) => c.passed)).toBe(true);
    expect(score).toBeGreaterThan(0);
    expect(score).toBeLessThan(1.3);
  });
});

describe('a bundle that fails on the test split', () => {
  it('names no derived seed (nor the warm-up seed above them) in its one-line error', async () => {
    const {deriveSeeds} = await import('../../lib/eval/seeds.js');
    const {dir} = entryCopy('prefix-speed', '../prefix-speed/solution.py');
    // It fails in the eval only (a salted eval runs in eval-child.js): lock's determinism makes, with published seeds, succeed.
    const generator = readFileSync(path.join(dir, 'bundle/generate.mjs'), 'utf8');
    writeFileSync(
      path.join(dir, 'bundle/generate.mjs'),
      generator.replace(
        'export default function generate(point, stream) {\n',
        "export default function generate(point, stream) {\n  if (process.argv.some((arg) => arg.endsWith('eval-child.js'))) throw new Error('no cases today');\n",
      ),
    );
    expect(runCli(['benchmark', 'lock', dir]).code).toBe(0);
    const salt = 'a-secret-salt';
    const result = runCli(['benchmark', 'eval', dir, 'test', '--quiet'], {env: {ARBOR_TEST_SALT: salt, ARBOR_LEDGER: path.join(tempDir(), 'runs.db')}});
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^arbor: the bundle failed to make .*<derived seed>.*no cases today\n$/);
    const seeds = deriveSeeds(salt, 'eval_prefix', 3, [0, 1, 2]);
    for (const seed of [...seeds, Math.max(...seeds) + 1]) expect(result.stderr).not.toContain(String(seed));
  });
});
