// A pyenv shim read instead of run (lib/pyenv.ts): the interpreter pyenv would pick, taken only
// when certain; otherwise the shim runs. A fake pyenv root whose `pyenv` leaves a mark when it runs.
import {chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {findPython} from '../../lib/sandbox/python.js';
import {pyenvTarget} from '../../lib/pyenv.js';
import {resolvePython} from '../../lib/sandbox/sandbox.js';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';

const real = resolvePython(findPython()).executable;

/** A pyenv root with versions 9.9.9 and 8.8.8 (each bin/python3 a link to the real python), a global version, and its shim. */
function fakePyenv(global = '9.9.9\n') {
  const root = tempDir('arbor-pyenv-');
  const mark = path.join(root, 'shim-ran');
  for (const version of ['9.9.9', '8.8.8']) {
    mkdirSync(path.join(root, 'versions', version, 'bin'), {recursive: true});
    symlinkSync(real, path.join(root, 'versions', version, 'bin', 'python3'));
  }
  writeFileSync(path.join(root, 'version'), global);
  mkdirSync(path.join(root, 'libexec'));
  // pyenv's own exec, cut short: it leaves a mark, then runs the global version.
  writeFileSync(path.join(root, 'libexec', 'pyenv'), `#!/bin/sh\ntouch "${mark}"\nshift 2\nexec "${root}/versions/9.9.9/bin/python3" "$@"\n`);
  chmodSync(path.join(root, 'libexec', 'pyenv'), 0o755);
  mkdirSync(path.join(root, 'shims'));
  // The shim as pyenv writes it (pyenv rehash).
  const shim = path.join(root, 'shims', 'python3');
  writeFileSync(
    shim,
    `#!/usr/bin/env bash\nset -e\n[ -n "$PYENV_DEBUG" ] && set -x\n\nprogram="\${0##*/}"\n\nexport PYENV_ROOT="${root}"\n` +
      `exec "${root}/libexec/pyenv" exec "$program" "$@"\n`,
  );
  chmodSync(shim, 0o755);
  const project = path.join(root, 'project', 'sub');
  mkdirSync(project, {recursive: true});
  return {root, shim, mark, project};
}

/** The interpreter resolvePython finds for `python` with `dir` as the current folder (pyenv looks from there). */
function resolvedFrom(dir: string, python: string): string {
  const previous = process.cwd();
  process.chdir(dir);
  try {
    return resolvePython(python).executable;
  } finally {
    process.chdir(previous);
  }
}

describe('a pyenv shim', () => {
  it("is resolved to the global version's python without running it, and resolvePython gives the same interpreter", () => {
    const {root, shim, mark, project} = fakePyenv('# the global version\n9.9.9\n');
    expect(pyenvTarget(shim, {}, project)).toBe(path.join(root, 'versions/9.9.9/bin/python3'));
    expect(resolvedFrom(project, shim)).toBe(real);
    expect(existsSync(mark)).toBe(false);
  });

  it('takes the nearest .python-version above the folder, and PYENV_VERSION over both', () => {
    const {root, shim, project} = fakePyenv();
    writeFileSync(path.join(path.dirname(project), '.python-version'), '8.8.8\n');
    expect(pyenvTarget(shim, {}, project)).toBe(path.join(root, 'versions/8.8.8/bin/python3'));
    expect(pyenvTarget(shim, {PYENV_VERSION: '9.9.9'}, project)).toBe(path.join(root, 'versions/9.9.9/bin/python3'));
  });

  it('is left to run whenever the answer is not certain', () => {
    const {root, shim, mark, project} = fakePyenv();
    const cases: Array<[NodeJS.ProcessEnv, string | undefined]> = [
      [{PYENV_VERSION: '8.8.8:9.9.9'}, 'several versions'],
      [{PYENV_VERSION: 'system'}, 'the system python'],
      [{PYENV_VERSION: '9.9'}, 'a prefix pyenv completes'],
      [{PYENV_VERSION: '7.7.7'}, 'a version not installed'],
      [{PYENV_DIR: path.join(root, 'elsewhere')}, 'another folder to look from'],
    ];
    for (const [env, why] of cases) expect(pyenvTarget(shim, env, project), why).toBeUndefined();
    mkdirSync(path.join(root, 'versions/9.9.9/conda-meta'));
    expect(pyenvTarget(shim, {}, project), 'a conda environment').toBeUndefined();
    // Not a shim at all: the real interpreter, and a script that only mentions pyenv.
    expect(pyenvTarget(real, {}, project)).toBeUndefined();
    const script = path.join(root, 'python3');
    writeFileSync(script, '#!/bin/sh\n# pyenv exec python3\nexec python3 "$@"\n');
    expect(pyenvTarget(script, {}, project)).toBeUndefined();
    // So the shim runs (and leaves its mark) for a conda environment.
    expect(resolvedFrom(project, shim)).toBe(real);
    expect(existsSync(mark)).toBe(true);
  });

  it("as ARBOR_PYTHON or as python3 on the PATH, is passed over for a Python bundle's process too: its make never runs the shim", () => {
    const {shim, mark, project} = fakePyenv();
    const bundle = path.join(fixtures, 'bundle/knn-python');
    const point = '{"N":64,"Q":8,"D":4,"K":3}';
    const asVariable = runCli(['bundle', bundle, 'make', path.join(project, 'a'), '--point', point, '--seeds', '0-1'], {env: {ARBOR_PYTHON: shim}});
    expect(asVariable.stderr).toMatch(/^arbor: made 2 cases in /m);
    expect(asVariable.code).toBe(0);
    const onPath = runCli(['bundle', bundle, 'make', path.join(project, 'b'), '--point', point, '--seeds', '0-1'], {
      env: {ARBOR_PYTHON: '', PATH: `${path.dirname(shim)}${path.delimiter}${process.env.PATH ?? ''}`},
    });
    expect(onPath.stderr).toMatch(/^arbor: made 2 cases in /m);
    expect(onPath.code).toBe(0);
    expect(readFileSync(path.join(project, 'b/manifest.json'), 'utf8')).toBe(readFileSync(path.join(project, 'a/manifest.json'), 'utf8'));
    expect(existsSync(mark)).toBe(false);
  });
});
