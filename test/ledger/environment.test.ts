import {spawnSync} from 'node:child_process';
import {chmodSync, readFileSync, writeFileSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {canonicalJson, describeEnvironment, environmentFingerprint, probePython, type Environment} from '../../lib/environment.js';
import {tempDir} from '../helpers/cli.js';

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
