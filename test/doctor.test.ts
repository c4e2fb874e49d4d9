/**
 * `arbor doctor` through the CLI: on this machine (everything installed) it
 * exits 0 with every feature ok; with a PATH that hides bubblewrap, valgrind
 * and Chromium it names each missing piece, what it disables and the one
 * apt-get line, and exits 1 (a sandboxed eval cannot run).
 */
import {spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, symlinkSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {runCli, tempDir} from './helpers/cli.js';

interface Report {
  ok: boolean;
  checks: Array<{id: string; ok: boolean; main: boolean; detail: string; disables?: string; fix?: string}>;
  state: Array<{what: string; path: string; bytes: number; exists: boolean; remove: string}>;
  install?: string;
}

/** The environment without the overrides that would point doctor past the PATH. */
function baseEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    XDG_CACHE_HOME: path.join(home, 'cache'),
    XDG_CONFIG_HOME: path.join(home, 'config'),
    XDG_STATE_HOME: path.join(home, 'state'),
  };
  for (const name of ['ARBOR_BWRAP', 'ARBOR_VALGRIND', 'ARBOR_CACHE_DIR', 'ARBOR_PYTHON']) delete env[name];
  return env;
}

/** A bin folder holding only python3 (the real interpreter, not a shim), taskset (and the `true` it starts) and redis-server. */
function partialBin(home: string): string {
  const bin = path.join(home, 'bin');
  mkdirSync(bin);
  const python = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], {encoding: 'utf8'}).stdout.trim();
  symlinkSync(python, path.join(bin, 'python3'));
  for (const tool of ['taskset', 'true', 'redis-server']) {
    // The file on the PATH (not `command -v`, which answers a shell builtin's name for `true`).
    const found = (process.env.PATH ?? '')
      .split(':')
      .map((dir) => path.join(dir, tool))
      .find((file) => existsSync(file));
    if (found) symlinkSync(found, path.join(bin, tool));
  }
  return bin;
}

describe('arbor doctor', () => {
  it('says every feature works on this machine, exit 0, and lists the state with sizes', {timeout: 120_000}, () => {
    const home = tempDir();
    mkdirSync(path.join(home, 'cache', 'arbor'), {recursive: true});
    writeFileSync(path.join(home, 'cache', 'arbor', 'list.json'), 'x'.repeat(1234));
    const result = runCli(['doctor', '--json'], {env: baseEnv(home)});
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.ok).toBe(true);
    expect(report.checks.filter((check) => !check.ok)).toEqual([]);
    expect(report.checks.map((check) => check.id)).toEqual(
      expect.arrayContaining([
        'python',
        'numpy',
        'bubblewrap',
        'user-namespaces',
        'seccomp',
        'sandbox',
        'cgroups',
        'freeze',
        'pinning',
        'valgrind',
        'redis',
        'chromium',
      ]),
    );
    expect(report.install).toBeUndefined();
    expect(report.state.find((entry) => entry.path === path.join(home, 'cache', 'arbor'))).toMatchObject({exists: true, bytes: 1234});
    expect(report.state.find((entry) => entry.path === path.join(home, 'config', 'arbor', 'test-salt'))).toMatchObject({exists: false});
    expect(report.state.find((entry) => entry.path === path.join(home, 'state', 'arbor', 'workspaces'))).toMatchObject({exists: false});
    const text = runCli(['doctor'], {env: baseEnv(home)});
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`1.2 kB  ${path.join(home, 'cache', 'arbor')}`);
    expect(text.stdout).toMatch(/the main job, a sandboxed eval, can run here\n$/);
  });

  it('names what a PATH without bubblewrap, valgrind and Chromium lacks, what it disables, and exits 1', {timeout: 120_000}, () => {
    const home = tempDir();
    const env = {...baseEnv(home), PATH: partialBin(home)};
    const result = runCli(['doctor', '--json'], {env});
    expect(result.code, result.stderr).toBe(1);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.ok).toBe(false);
    const failed = Object.fromEntries(report.checks.filter((check) => !check.ok).map((check) => [check.id, check]));
    expect(Object.keys(failed).sort()).toEqual(['bubblewrap', 'chromium', 'sandbox', 'valgrind']);
    expect(failed.bubblewrap).toMatchObject({main: true, fix: 'apt-get install bubblewrap'});
    expect(failed.bubblewrap!.disables).toMatch(/WITHOUT a sandbox.*test evals refuse/);
    expect(failed.valgrind).toMatchObject({main: false, fix: 'apt-get install valgrind'});
    expect(failed.valgrind!.disables).toMatch(/clock = "instructions" fall back to the cpu clock/);
    expect(failed.chromium).toMatchObject({main: false, fix: 'apt-get install chromium'});
    expect(report.install).toBe('apt-get install -y bubblewrap valgrind chromium');
    const text = runCli(['doctor'], {env});
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^MISSING  bubblewrap .*: bwrap is not on the PATH$/m);
    expect(text.stdout).toMatch(/^missing  valgrind .*\n {9}without it: plans with clock = "instructions"/m);
    expect(text.stdout).toContain('install what is missing (as root): apt-get install -y bubblewrap valgrind chromium\n');
    expect(text.stdout).toMatch(/cannot run here: fix the MISSING lines above \(exit 1\)\n$/);
  });
});
