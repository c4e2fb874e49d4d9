/**
 * Every command the CLI prints as a next step (scaffold's "Next steps", checkout's
 * "Next:") is run as printed, in a clean environment: `env -i` with only
 * PATH=/usr/bin:/bin and a fresh HOME, no arbor on the PATH, from a folder outside
 * arbor's repository: a fresh machine after the README's `npm install`.
 */
import {spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, realpathSync, symlinkSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {cliPath, repoRoot, tempDir} from './helpers/cli.js';

const invocation = (await import(path.join(repoRoot, 'dist/lib/invocation.js'))) as typeof import('../lib/invocation.js');
const {onPath} = (await import(path.join(repoRoot, 'dist/lib/pyenv.js'))) as typeof import('../lib/pyenv.js');

/** The clean PATH; node's own folder is added only where node is not in it (the README's install puts node on the PATH). */
const cleanPath = ['/usr/bin', '/bin'].some((dir) => existsSync(path.join(dir, 'node'))) ? '/usr/bin:/bin' : `/usr/bin:/bin:${path.dirname(process.execPath)}`;

/**
 * The python3 with numpy the README's install asks for, named by ARBOR_PYTHON (arbor's own setting):
 * on some machines the one in /usr/bin cannot import numpy in arbor's sandbox, and which python a
 * machine has is not what these tests are about.
 */
const python = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], {encoding: 'utf8'}).stdout.trim();

/** Run `command` through bash in a clean environment (`env -i`), in `cwd`. */
function clean(command: string, cwd: string, home: string, extra: Record<string, string> = {}) {
  const result = spawnSync(
    'env',
    ['-i', `PATH=${cleanPath}`, `HOME=${home}`, `ARBOR_PYTHON=${python}`, ...Object.entries(extra).map(([k, v]) => `${k}=${v}`), 'bash', '-c', command],
    {cwd, encoding: 'utf8'},
  );
  return {code: result.status, stdout: result.stdout, stderr: result.stderr};
}

/** The commands quoted in a scaffold's "Next steps" (every backquoted span but the placeholder marker). */
function nextCommands(stdout: string): string[] {
  const steps = stdout.slice(stdout.indexOf('Next steps:\n'));
  return [...steps.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).filter((text) => !text.startsWith('TODO(arbor)'));
}

/** arbor as a user without `npm link` starts it: node and the CLI's path. */
const arborFromRepo = `${process.execPath} ${cliPath}`;

describe('printed next steps run as printed in a clean environment', () => {
  // Each scaffold's lines in order: lock, (data), eval, verify. verify exits 1 while the folder is
  // not yet a finished zoo entry, as its line says ("until it exits 0", "lists what ... still needs").
  it.each([
    ['a speed task (zoo style, eval.sh)', ['demo'], 3],
    ['a data task (path split, light style, eval.py)', ['data_task', '--split-kind', 'path', '--style', 'light', '--entrypoint', 'eval.py'], 6],
  ])(
    'scaffold, %s: every command of "Next steps" runs; none is 127',
    (_what, args, count) => {
      const work = tempDir();
      const home = tempDir('arbor-home-');
      const made = clean(`${arborFromRepo} benchmark scaffold ${args.join(' ')}`, work, home);
      expect(made.code, made.stderr).toBe(0);
      const commands = nextCommands(made.stdout);
      expect(commands).toHaveLength(count);
      // Outside arbor's repository, with no arbor on the PATH: arbor is named by its path.
      expect(
        commands.filter((c) => c.includes(' benchmark ')).every((c) => c.startsWith(`node ${cliPath} `) || c.startsWith(`${process.execPath} ${cliPath} `)),
      ).toBe(true);
      for (const command of commands) {
        const run = clean(command, work, home);
        const expected = / benchmark verify /.test(command) ? 1 : 0;
        expect({command, code: run.code}, run.stderr).toEqual({command, code: expected});
        if (/eval\.(sh|py)/.test(command)) expect(run.stdout).toBe('score: 0.0\n');
      }
    },
    180_000,
  ); // a sandboxed eval and a handful of CLI starts, in sequence

  it('checkout of a scaffolded benchmark: the "Next:" line evaluates it, found through the arbor that made it', () => {
    const work = tempDir();
    const home = tempDir('arbor-home-');
    expect(clean(`${arborFromRepo} benchmark scaffold mine --metric accuracy --style light`, work, home).code).toBe(0);
    const out = clean(`${arborFromRepo} benchmark checkout mine 'my copy'`, work, home);
    expect(out.code, out.stderr).toBe(0);
    const next = /^Next: (.*)$/m.exec(out.stdout)![1]!;
    expect(next).toBe("cd 'my copy' && bash eval.sh dev");
    const run = clean(next, work, home);
    expect({code: run.code, stdout: run.stdout}, run.stderr).toEqual({code: 0, stdout: 'score: 0.0\n'});
  }, 180_000);

  it('in a benchmark repository with arbor installed (node_modules/.bin/arbor), the lines say `npx arbor`, and run', () => {
    const repo = tempDir();
    const home = tempDir('arbor-home-');
    mkdirSync(path.join(repo, 'node_modules/.bin'), {recursive: true});
    symlinkSync(cliPath, path.join(repo, 'node_modules/.bin/arbor'));
    writeFileSync(path.join(repo, 'package.json'), '{"name": "my-benchmarks", "private": true}\n');
    const made = clean(`${arborFromRepo} benchmark scaffold zoo/demo --style light`, repo, home);
    expect(made.code, made.stderr).toBe(0);
    const lock = nextCommands(made.stdout).find((c) => c.includes(' benchmark lock '));
    expect(lock).toBe('npx arbor benchmark lock zoo/demo');
    expect(clean(lock!, repo, home, {npm_config_update_notifier: 'false'}).code).toBe(0);
  });
});

describe('arborCommand: how this arbor is named in a printed command', () => {
  const node = (env: NodeJS.ProcessEnv) => {
    const found = onPath('node', env);
    return found && realpathSync(found) === realpathSync(process.execPath) ? 'node' : process.execPath;
  };

  it('`arbor` when the arbor on the PATH is this one, through a symlink (npm link)', () => {
    const bin = tempDir('arbor-bin-');
    symlinkSync(cliPath, path.join(bin, 'arbor'));
    expect(invocation.arborCommand({cwd: tempDir(), env: {PATH: `${bin}:${cleanPath}`}})).toBe('arbor');
  });

  it('not `arbor` when only npx put it on the PATH: the shell the line is pasted into has no such folder', () => {
    const bin = path.join(tempDir('arbor-npx-'), 'node_modules/.bin');
    mkdirSync(bin, {recursive: true});
    symlinkSync(cliPath, path.join(bin, 'arbor'));
    const env = {PATH: `${bin}:${cleanPath}`, npm_command: 'exec'};
    const cwd = tempDir();
    expect(invocation.arborCommand({cwd, env})).toBe(`${node(env)} ${cliPath}`);
    // The same folder on the user's own PATH (no npm around) is theirs: `arbor` works there.
    expect(invocation.arborCommand({cwd, env: {PATH: env.PATH}})).toBe('arbor');
  });

  it('not `arbor` when the arbor on the PATH is another one: this one by its path', () => {
    const bin = tempDir('arbor-bin-');
    writeFileSync(path.join(bin, 'arbor'), '#!/bin/sh\necho another arbor\n', {mode: 0o755});
    const env = {PATH: `${bin}:${cleanPath}`};
    expect(invocation.arborCommand({cwd: tempDir(), env})).toBe(`${node(env)} ${cliPath}`);
  });

  it("`npx arbor` in arbor's own repository, not in a folder whose npm project lacks it", () => {
    const env = {PATH: cleanPath};
    expect(invocation.arborCommand({cwd: path.join(repoRoot, 'test'), env})).toBe(
      existsSync('/usr/bin/npx') || existsSync('/bin/npx') ? 'npx arbor' : `${node(env)} ${cliPath}`,
    );
    // A nested project without arbor: npx would ask the registry, so the path is printed.
    const nested = tempDir();
    writeFileSync(path.join(nested, 'package.json'), '{}\n');
    expect(invocation.arborCommand({cwd: nested, env})).toBe(`${node(env)} ${cliPath}`);
  });

  it('quotes a path with spaces as one shell word', () => {
    expect(invocation.shellWord("/a b/it's")).toBe(`'/a b/it'\\''s'`);
    expect(invocation.shellWord('/plain/path-1.js')).toBe('/plain/path-1.js');
  });
});
