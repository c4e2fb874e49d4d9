import {spawnSync} from 'node:child_process';
import {chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {canonicalJson, describeEnvironment, environmentFingerprint, probePython, type Environment} from '../../lib/environment.js';
import {repoRoot, tempDir} from '../helpers/cli.js';

/** A stand-in python: a shell script that logs each start to `log` and prints `answer`. */
function fakePython(answer: string): {python: string; log: string} {
  const dir = tempDir();
  const log = path.join(dir, 'starts.log');
  const python = path.join(dir, 'python3');
  writeFileSync(python, `#!/bin/sh\necho "start $1" >> '${log}'\ncat <<'JSON'\n${answer}\nJSON\n`);
  chmodSync(python, 0o755);
  return {python, log};
}

const fakeAnswer = {version: '3.12.1', implementation: 'CPython', numpy: '2.1.0', blas: {name: 'openblas', version: '0.3.27', config: 'OpenBLAS 0.3.27 Zen'}};

describe('describeEnvironment', () => {
  it('describes the machine, the python, numpy and its BLAS, and the clock', async () => {
    const {python} = fakePython(JSON.stringify(fakeAnswer));
    const environment = await describeEnvironment({python, clock: 'cpu-tree'});
    expect(environment).toEqual({
      cpuModel: os.cpus()[0]!.model.trim(),
      cores: os.cpus().length,
      availableCores: os.availableParallelism(),
      os: {platform: os.platform(), release: os.release(), arch: os.arch()},
      node: process.versions.node,
      python: {executable: python, ...fakeAnswer},
      clock: 'cpu-tree',
      fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
  });

  it('asks each python once per process, isolated (-I)', async () => {
    const {python, log} = fakePython(JSON.stringify(fakeAnswer));
    const [a, b] = await Promise.all([describeEnvironment({python}), describeEnvironment({python, clock: 'wall'})]);
    await describeEnvironment({python});
    expect(readFileSync(log, 'utf8').split('\n').filter(Boolean)).toEqual(['start -I']);
    expect(a.python).toEqual(b.python);
  });

  it('does not fail when the python is missing or says something unreadable', async () => {
    const missing = await probePython(path.join(tempDir(), 'no-such-python'));
    expect(missing).toMatchObject({version: null, numpy: null, blas: null, error: expect.any(String)});
    const {python} = fakePython('Traceback: not json');
    expect(await probePython(python)).toMatchObject({version: null, error: expect.stringContaining('unreadable answer')});
    const environment = await describeEnvironment({python});
    expect(environment.fingerprint).toMatch(/^[0-9a-f]{16}$/);
  });

  it("reports the real python3's numpy version as numpy itself does", async () => {
    const real = spawnSync('python3', ['-I', '-c', 'import numpy, platform; print(platform.python_version(), numpy.__version__)'], {encoding: 'utf8'});
    expect(real.status).toBe(0);
    const [version, numpy] = real.stdout.trim().split(' ');
    const info = await probePython('python3');
    expect(info.error).toBeUndefined();
    expect(info).toMatchObject({version, numpy});
    expect(info.blas?.name).toEqual(expect.any(String));
  });
});

describe('environmentFingerprint', () => {
  const base: Omit<Environment, 'fingerprint'> = {
    cpuModel: 'AMD EPYC 7B13',
    cores: 2,
    availableCores: 2,
    os: {platform: 'linux', release: '6.1.0', arch: 'x64'},
    node: '20.19.0',
    python: {executable: '/usr/bin/python3', ...fakeAnswer},
    clock: 'cpu-tree',
  };

  it('is stable: a known value for a known environment, and key order does not matter', () => {
    expect(environmentFingerprint(base)).toBe(environmentFingerprint(JSON.parse(JSON.stringify(base))));
    const reordered = Object.fromEntries(Object.entries(base).reverse()) as typeof base;
    expect(environmentFingerprint(reordered)).toBe(environmentFingerprint(base));
    expect(environmentFingerprint(base)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('ignores what does not change timings: paths, Node, the CPUs this process may use', () => {
    const same = {...base, node: '22.0.0', availableCores: 1, python: {...base.python, executable: '/opt/py/bin/python3'}};
    expect(environmentFingerprint(same)).toBe(environmentFingerprint(base));
  });

  it.each([
    ['CPU model', {cpuModel: 'Intel Xeon'}],
    ['cores', {cores: 4}],
    ['kernel release', {os: {...base.os, release: '6.2.0'}}],
    ['clock', {clock: 'wall'}],
    ['numpy', {python: {...base.python, numpy: '2.2.0'}}],
    ['BLAS', {python: {...base.python, blas: {...fakeAnswer.blas, version: '0.3.28'}}}],
    ['python', {python: {...base.python, version: '3.12.2'}}],
  ])('changes with the %s', (_, change) => {
    expect(environmentFingerprint({...base, ...change})).not.toBe(environmentFingerprint(base));
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops undefined members', () => {
    expect(canonicalJson({b: 1, a: {d: [2, {z: 1, y: null}], c: undefined}})).toBe('{"a":{"d":[2,{"y":null,"z":1}]},"b":1}');
  });
});

describe('the python probe kept between processes', () => {
  const python = process.env.ARBOR_PYTHON ?? 'python3';
  const real = spawnSync(python, ['-I', '-c', 'import sys; print(sys.executable)'], {encoding: 'utf8'}).stdout.trim();
  /** probePython in a process of its own (the in-process memo would answer otherwise), with this cache home. */
  const probeIn = (cacheHome: string, executable = real) => {
    const code = `import(${JSON.stringify(path.join(repoRoot, 'dist/lib/environment.js'))}).then((m) => m.probePython(${JSON.stringify(executable)})).then((info) => console.log(JSON.stringify(info)))`;
    const result = spawnSync(process.execPath, ['-e', code], {encoding: 'utf8', env: {...process.env, ARBOR_CACHE_DIR: path.join(cacheHome, 'arbor')}});
    expect(result.stderr).toBe('');
    return JSON.parse(result.stdout);
  };
  const entryOf = (cacheHome: string) => {
    const folder = path.join(cacheHome, 'arbor');
    const files = readdirSync(folder).filter((name) => name.endsWith('.json'));
    expect(files).toHaveLength(1);
    return path.join(folder, files[0]!);
  };

  it('answers from the cache while the interpreter and its sys.path folders are unchanged, and asks again when one changed', () => {
    const cacheHome = tempDir();
    const asked = probeIn(cacheHome);
    expect(asked.error).toBeUndefined();
    expect(asked.numpy).toEqual(expect.any(String));
    expect(statSync(path.join(cacheHome, 'arbor')).mode & 0o777).toBe(0o700);
    const file = entryOf(cacheHome);
    const entry = JSON.parse(readFileSync(file, 'utf8'));
    expect(entry.info).toEqual({version: asked.version, implementation: asked.implementation, numpy: asked.numpy, blas: asked.blas});
    expect(Object.keys(entry.folders).length).toBeGreaterThan(0);
    // An answer only the cache holds comes back: no python was asked.
    writeFileSync(file, JSON.stringify({...entry, info: {...entry.info, numpy: 'from-the-cache'}}));
    expect(probeIn(cacheHome)).toEqual({...asked, numpy: 'from-the-cache'});
    // A folder on sys.path that changed since (a package installed): asked again, and the entry rewritten.
    const [folder] = Object.keys(entry.folders);
    writeFileSync(file, JSON.stringify({...entry, info: {...entry.info, numpy: 'from-the-cache'}, folders: {...entry.folders, [folder!]: 'changed'}}));
    expect(probeIn(cacheHome)).toEqual(asked);
    expect(JSON.parse(readFileSync(file, 'utf8')).info.numpy).toBe(asked.numpy);
    // Another binary at the same path (or the same one rebuilt): asked again.
    writeFileSync(file, JSON.stringify({...entry, info: {...entry.info, numpy: 'from-the-cache'}, binary: 'another'}));
    expect(probeIn(cacheHome)).toEqual(asked);
  });

  it('never keeps the answer of a script (a shim picks its python per folder), and asks past an unreadable entry', () => {
    const cacheHome = tempDir();
    const {python: script, log} = fakePython(JSON.stringify({...fakeAnswer, path: [tempDir()]}));
    probeIn(cacheHome, script);
    probeIn(cacheHome, script);
    expect(readFileSync(log, 'utf8').split('\n').filter(Boolean)).toEqual(['start -I', 'start -I']);
    expect(existsSync(path.join(cacheHome, 'arbor'))).toBe(false);
    probeIn(cacheHome);
    writeFileSync(entryOf(cacheHome), '{"not": "an entry"');
    expect(probeIn(cacheHome).numpy).toEqual(expect.any(String));
  });
});
