/** Python entry points (lib/bundle/host.py, python.ts) and the shipped Python stream (lib/bundle/stream.py). */
import {spawn, spawnSync} from 'node:child_process';
import {chmodSync, cpSync, existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {fixtures, repoRoot, runCli, tempDir} from '../helpers/cli.js';
import {randomRuns, runAll, type Run} from './stream-ops.js';

const shippedOps = path.join(fixtures, 'bundle/shipped-stream-ops.py');
const knnPython = path.join(fixtures, 'bundle/knn-python');
const knnJs = path.join(repoRoot, 'zoo/algotune_knn/bundle');
const modes = path.join(fixtures, 'bundle/py-modes');

/** The interpreter behind `python3` (a pyenv shim costs a second per start). */
const python = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], {encoding: 'utf8'}).stdout.trim();
// A make slower than a second (Python starting on a loaded machine) says where it is on stderr: timing, not results.
const progressLine = /^arbor: make: case \d+ of \d+, .* written\)\n/gm;
/** runCli with that interpreter as ARBOR_PYTHON unless told otherwise, without make's progress lines. */
const arbor = (args: string[], env: Record<string, string> = {}) => {
  const result = runCli(args, {env: {ARBOR_PYTHON: python, ...env}});
  return {...result, stderr: result.stderr.replace(progressLine, '')};
};

function shipped(runs: Run[]): string[][] {
  const result = spawnSync(python, [shippedOps], {input: JSON.stringify(runs), encoding: 'utf8', maxBuffer: 1 << 28});
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as string[][];
}

/** Every file under `dir` with its bytes, by relative path. */
function tree(dir: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(path.join(dir, prefix), {withFileTypes: true})) {
    const rel = path.join(prefix, entry.name);
    if (entry.isDirectory()) Object.assign(out, tree(dir, rel));
    else out[rel] = readFileSync(path.join(dir, rel)).toString('hex');
  }
  return out;
}

/** An ARBOR_PYTHON that writes its process id to `log`, then becomes python3 (exec: the same process). */
/** The pid of the bundle's Python host below process `ancestor`: in the sandbox, `python -I -B /arbor/runner.py`, bwrap's grandchild. */
function hostPid(ancestor: number): number {
  const parents = new Map<number, number>();
  const hosts: number[] = [];
  for (const name of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      parents.set(Number(name), Number(readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]));
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (path.basename(argv[0]!).startsWith('python') && argv.includes('/arbor/runner.py')) hosts.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  const below = (pid: number) => {
    for (let up = parents.get(pid); up; up = parents.get(up)) if (up === ancestor) return true;
    return false;
  };
  const found = hosts.filter(below);
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** An ARBOR_BWRAP that logs its arguments to `log`, one line a start, then runs bubblewrap. */
function loggingBwrap(log: string): string {
  const script = path.join(tempDir(), 'bwrap');
  writeFileSync(script, `#!/bin/sh\necho "$*" >> '${log}'\nexec bwrap "$@"\n`);
  chmodSync(script, 0o755);
  return script;
}

/** An ARBOR_PYTHON that logs its working folder and arguments to `log`, then runs python3. */
function loggingPython(log: string): string {
  const script = path.join(tempDir(), 'python3');
  writeFileSync(script, `#!/bin/sh\necho "$(pwd) $*" >> '${log}'\nexec '${python}' "$@"\n`);
  chmodSync(script, 0o755);
  return script;
}

describe('the shipped Python stream (lib/bundle/stream.py)', () => {
  it('reproduces the known-answer vectors', () => {
    const vectors = JSON.parse(readFileSync(path.join(repoRoot, 'lib/bundle/vectors/stream.json'), 'utf8')) as {runs: Run[]};
    expect(shipped(vectors.runs)).toEqual(vectors.runs.map((run) => run.results));
  });

  it('agrees with the TypeScript stream on thousands of random draws', () => {
    const runs = randomRuns(60, 80, 777);
    const want = runAll(runs);
    const got = shipped(runs);
    for (let r = 0; r < runs.length; r++)
      for (let k = 0; k < runs[r]!.ops.length; k++)
        if (got[r]![k] !== want[r]![k]) expect({run: r, op: runs[r]!.ops[k], got: got[r]![k]}).toEqual({run: r, op: runs[r]!.ops[k], got: want[r]![k]});
  });

  it('agrees on wide ranges, large permutations and draws across many blocks', () => {
    const runs: Run[] = [
      {
        spec: 'zoo/wide@1',
        seed: 2 ** 53 - 1,
        ops: [
          ['ints', 'u64', 50, '0', '18446744073709551615'],
          ['ints', 'i64', 50, '-9223372036854775808', '9223372036854775807'],
          ['ints', 'u32', 300, '0', '4294967295'],
          ['ints', 'i64', 9, '-36028797018963968', '36028797018963967'],
          ['permutation', 70_000],
          ['bytes', 32 * 5_000 + 3],
          ['float32s', 1000, -1e30, 1e30],
          ['float64s', 1000, -0.5, 1e-300],
        ],
      },
    ];
    expect(shipped(runs)).toEqual(runAll(runs));
  });
});

describe('a Python port of zoo/algotune_knn/bundle', () => {
  it('makes byte-identical cases/, expected/ and manifest.json, and its verifier agrees', () => {
    const work = tempDir();
    const point = '{"N": 300, "Q": 20, "D": 5, "K": 7}';
    for (const [bundle, dir] of [
      [knnPython, 'py'],
      [knnJs, 'js'],
    ]) {
      const made = arbor(['bundle', bundle!, 'make', path.join(work, dir!), '--point', point, '--seeds', '0-2,7,1000']);
      expect(made, made.stderr).toMatchObject({code: 0, stdout: ''});
    }
    const js = tree(path.join(work, 'js'));
    expect(Object.keys(js).sort()).toContain('manifest.json');
    expect(Object.keys(js).filter((f) => f.startsWith('expected/'))).toHaveLength(5);
    expect(tree(path.join(work, 'py'))).toEqual(js);

    // Right answers, and answers with the first two rows swapped (wrong order) in case 1.
    for (const dir of ['py', 'js']) {
      cpSync(path.join(work, dir, 'expected'), path.join(work, dir, 'out'), {recursive: true});
      const file = path.join(work, dir, 'out/000001/ids.bin');
      const ids = readFileSync(file);
      writeFileSync(file, Buffer.concat([ids.subarray(4, 8), ids.subarray(0, 4), ids.subarray(8)]));
    }
    expect(arbor(['bundle', knnPython, 'verify', path.join(work, 'py')]).code).toBe(0);
    expect(arbor(['bundle', knnJs, 'verify', path.join(work, 'js')]).code).toBe(0);
    const verdicts = readFileSync(path.join(work, 'py/verdicts.json'), 'utf8');
    expect(verdicts).toBe(readFileSync(path.join(work, 'js/verdicts.json'), 'utf8'));
    expect(JSON.parse(verdicts).cases.map((v: {passed: boolean}) => v.passed)).toEqual([true, false, true, true, true]);
  });

  it('starts one isolated Python process per make and per verify, in the sandbox, in the bundle folder', () => {
    const work = path.join(tempDir(), 'w');
    const log = path.join(tempDir(), 'log');
    const env = {ARBOR_BWRAP: loggingBwrap(log)};
    expect(arbor(['bundle', knnPython, 'make', work, '--point', '{"N": 20, "Q": 3, "D": 2, "K": 2}', '--seeds', '0-5'], env).code).toBe(0);
    cpSync(path.join(work, 'expected'), path.join(work, 'out'), {recursive: true});
    expect(arbor(['bundle', knnPython, 'verify', work], env).code).toBe(0);
    // A host's sandbox binds arbor's stream.py beside host.py (a solution's run has none).
    const starts = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .filter((line) => line.includes('/arbor/stream.py'));
    expect(starts).toHaveLength(2);
    for (const start of starts) {
      expect(start).toContain(`--ro-bind ${knnPython} /solution`);
      expect(start).toContain(`--ro-bind ${path.join(repoRoot, 'lib/bundle/host.py')} /arbor/runner.py`);
      expect(start).toContain('--chdir /solution');
      expect(start).toMatch(/ -I -B \/arbor\/runner\.py$/);
    }
  });

  it('leaves the bundle folder as it found it (no __pycache__)', () => {
    const bundle = path.join(tempDir(), 'bundle');
    cpSync(knnPython, bundle, {recursive: true});
    const before = tree(bundle);
    const work = path.join(tempDir(), 'w');
    expect(arbor(['bundle', bundle, 'make', work, '--point', '{"N": 20, "Q": 3, "D": 2, "K": 2}', '--seeds', '0']).code).toBe(0);
    cpSync(path.join(work, 'expected'), path.join(work, 'out'), {recursive: true});
    expect(arbor(['bundle', bundle, 'verify', work]).code).toBe(0);
    expect(tree(bundle)).toEqual(before);
  });

  it('starts no Python at all for info and fingerprint', () => {
    const log = path.join(tempDir(), 'log');
    const env = {ARBOR_PYTHON: loggingPython(log)};
    expect(arbor(['bundle', knnPython, 'info'], env).code).toBe(0);
    expect(arbor(['bundle', knnPython, 'fingerprint', '--check'], env).code).toBe(0);
    expect(existsSync(log)).toBe(false);
  });
});

describe('Python entry points that break the contract', () => {
  const make = (mode: number, n = 5) => {
    const work = path.join(tempDir(), 'w');
    const result = arbor(['bundle', modes, 'make', work, '--point', JSON.stringify({mode, N: n}), '--seeds', '0-1']);
    return {...result, work};
  };
  const prefix = 'arbor: generate (generate.py) threw for seed 0 (case 000000): ';

  it.each([
    [
      1,
      'BundleError: returned x as float64, which does not cast exactly to f32: element 0 is -0.4222272872924805, which f32 holds as -0.42222729325294495; return values f32 holds (or cast with astype yourself)',
    ],
    [2, 'ZeroDivisionError: division by zero (generate.py line 16)'],
    [4, 'BundleError: returned x with shape (1, 5, 1), expected (5,) (or 5 values in row-major order)'],
    [5, 'BundleError: returned unknown binding z; the signature has x, k'],
    [6, 'BundleError: did not return k; the signature has x, k'],
    [7, 'BundleError: returned a list, expected a dict {x, k} of numpy arrays'],
    [8, 'BundleError: the Python process of the bundle exited (code 3) during a call'],
    [
      9,
      'BundleError: returned k as uint64, which does not cast exactly to i64: element 0 is 9223372036854775808, which i64 holds as -9223372036854775808; return values i64 holds (or cast with astype yourself)',
    ],
  ])('mode %i: exit 1, one line naming the function, case and binding, no manifest', (mode, message) => {
    const {code, stdout, stderr, work} = make(mode);
    expect({code, stdout, stderr}).toEqual({code: 1, stdout: '', stderr: `${prefix}${message}\n`});
    expect(existsSync(path.join(work, 'manifest.json'))).toBe(false);
  });

  it('in a scope that spans several makes (an eval holds one), a process that died is replaced by a fresh one for the next make', async () => {
    const {loadBundle, makeWorkDir, withAuthored} = await import('../../lib/bundle/index.js');
    const bundle = await loadBundle(modes);
    const work = tempDir();
    const previous = process.env.ARBOR_PYTHON;
    process.env.ARBOR_PYTHON = python;
    try {
      await withAuthored(bundle, async () => {
        await expect(makeWorkDir(bundle, path.join(work, 'dies'), {mode: 8, N: 5}, [0])).rejects.toThrow(/exited \(code 3\) during a call/);
        expect(await makeWorkDir(bundle, path.join(work, 'after'), {mode: 0, N: 5}, [0, 1])).toEqual({cases: 2});
      });
    } finally {
      if (previous === undefined) delete process.env.ARBOR_PYTHON;
      else process.env.ARBOR_PYTHON = previous;
    }
    const alone = make(0);
    expect(alone.code, alone.stderr).toBe(0);
    expect(readFileSync(path.join(work, 'after/manifest.json'), 'utf8')).toBe(readFileSync(path.join(alone.work, 'manifest.json'), 'utf8'));
  });

  it("stopped between calls where the scope asks it (an eval's does): a thread the bundle left computing gets no CPU until the next call, and the process dies with arbor's", async () => {
    const {loadBundle, makeWorkDir, withAuthored} = await import('../../lib/bundle/index.js');
    const bundle = await loadBundle(modes);
    /** CPU seconds the process has used (utime + stime of /proc/PID/stat, in clock ticks of 10 ms). */
    const cpu = (pid: number) => {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    };
    const state = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[0];
    const spent = async (stopBetweenCalls: boolean) => {
      const work = tempDir();
      return withAuthored(
        bundle,
        async () => {
          // mode 11 leaves a thread spinning in the process once its generate has returned.
          await makeWorkDir(bundle, path.join(work, 'a'), {mode: 11, N: 5}, [0]);
          const pid = hostPid(process.pid);
          const before = cpu(pid);
          // The running control waits longer: on a loaded machine the thread gets a share of a core, not one.
          await new Promise((resolve) => setTimeout(resolve, stopBetweenCalls ? 400 : 2000));
          const after = {seconds: cpu(pid) - before, state: state(pid)};
          // The next call continues it.
          expect(await makeWorkDir(bundle, path.join(work, 'b'), {mode: 0, N: 5}, [0, 1])).toEqual({cases: 2});
          return after;
        },
        {stopBetweenCalls},
      );
    };
    const stopped = await spent(true);
    expect(stopped.state).toBe('T');
    expect(stopped.seconds).toBeLessThanOrEqual(0.02);
    // Without stopping, the same thread computes (more than 0.1 s of CPU in 2 s, even on a loaded machine): the check above can fail.
    const running = await spent(false);
    expect(running.state).not.toBe('T');
    expect(running.seconds).toBeGreaterThan(0.1);

    // arbor's process killed (SIGKILL) while the bundle's process is stopped: that one is killed too.
    const script = path.join(tempDir(), 'scope.mjs');
    writeFileSync(
      script,
      `import {loadBundle, makeWorkDir, withAuthored} from ${JSON.stringify(path.join(repoRoot, 'dist/lib/bundle/index.js'))};\n` +
        `const bundle = await loadBundle(${JSON.stringify(modes)});\n` +
        `await withAuthored(bundle, async () => {\n` +
        `  await makeWorkDir(bundle, ${JSON.stringify(path.join(tempDir(), 'w'))}, {mode: 0, N: 5}, [0]);\n` +
        `  console.log('made');\n` +
        `  await new Promise(() => {});\n` +
        `}, {stopBetweenCalls: true});\n`,
    );
    const child = spawn(process.execPath, [script], {stdio: ['ignore', 'pipe', 'inherit']});
    await new Promise<void>((resolve) => child.stdout.on('data', () => resolve()));
    const pid = hostPid(child.pid!);
    expect(state(pid)).toBe('T');
    child.kill('SIGKILL');
    let alive = true;
    for (let tries = 0; tries < 50 && alive; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      alive = existsSync(`/proc/${pid}`) && state(pid) !== 'Z';
    }
    expect(alive).toBe(false);
  });

  it('keeps freed memory in the heap: a fresh large array costs no page faults (glibc gives it back by default)', () => {
    const {code, stderr, work} = make(12);
    expect(code, stderr).toBe(0);
    const faults = new Float64Array(new Uint8Array(readFileSync(path.join(work, 'expected/000000/y.bin'))).buffer)[0];
    expect(faults).toBeLessThan(64);
    // The same function in a plain interpreter: glibc's defaults fault each 8 MiB array in again, so the check above can fail.
    const plain = spawnSync(python, ['-c', 'import oracle; print(oracle.faults_of_fresh_arrays())'], {cwd: modes, encoding: 'utf8'});
    expect(plain.status, plain.stderr).toBe(0);
    expect(Number(plain.stdout)).toBeGreaterThan(500);
  });

  it('casts exact values (a list, a narrower integer, float32 widened to f64); authored prints go to stderr', () => {
    const plain = make(0);
    expect(plain.code, plain.stderr).toBe(0);
    const printing = make(3);
    expect(printing.code).toBe(0);
    expect(printing.stdout).toBe('');
    expect(printing.stderr).toContain('a print from generate\n');
    expect(readFileSync(path.join(printing.work, 'cases/000000/x.bin'))).toEqual(readFileSync(path.join(plain.work, 'cases/000000/x.bin')));
    expect(readFileSync(path.join(printing.work, 'cases/000000/k.bin'))).toEqual(Buffer.from([5, 0, 0, 0, 0, 0, 0, 0]));
    const widened = make(10);
    expect(widened.code).toBe(0);
    const x = new Float32Array(new Uint8Array(readFileSync(path.join(widened.work, 'cases/000000/x.bin'))).buffer);
    const y = new Float64Array(new Uint8Array(readFileSync(path.join(widened.work, 'expected/000000/y.bin'))).buffer);
    expect([...y]).toEqual([...x].map((v) => Math.fround(2 * v)));
  });

  it('records a verifier that raises, or returns no `passed`, as the case error; metrics become plain JSON', () => {
    const verdicts = (mode: number) => {
      const {work, code} = make(mode);
      expect(code).toBe(0);
      cpSync(path.join(work, 'expected'), path.join(work, 'out'), {recursive: true});
      expect(arbor(['bundle', modes, 'verify', work]).code).toBe(0);
      return JSON.parse(readFileSync(path.join(work, 'verdicts.json'), 'utf8')).cases[0];
    };
    expect(verdicts(0)).toEqual({i: 0, passed: true, metrics: {worst: 0, n: 5, nan: null}});
    expect(verdicts(20)).toEqual({i: 0, passed: false, error: "KeyError: 'missing' (verify.py line 7)"});
    expect(verdicts(21)).toEqual({i: 0, passed: false, error: 'BundleError: verify returned Object without a boolean `passed`, expected {passed, metrics}'});
  });

  it('names the interpreter when there is none (exit 1, nothing written)', () => {
    const work = path.join(tempDir(), 'w');
    const result = arbor(['bundle', modes, 'make', work, '--point', '{"mode": 0, "N": 2}', '--seeds', '0'], {ARBOR_PYTHON: '/nonexistent/python3'});
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `arbor: cannot load the generator ${path.join(modes, 'generate.py')}: /nonexistent/python3 does not start: spawnSync /nonexistent/python3 ENOENT; set ARBOR_PYTHON to a working python3 with numpy\n`,
    });
    expect(existsSync(path.join(work, 'manifest.json'))).toBe(false);
  });

  it('names a module that does not load, with its error and line', () => {
    const bundle = path.join(tempDir(), 'b');
    cpSync(modes, bundle, {recursive: true});
    writeFileSync(path.join(bundle, 'oracle.py'), 'import numpy\n\nraise RuntimeError("not today")\n');
    const result = arbor(['bundle', bundle, 'make', path.join(bundle, 'w'), '--point', '{"mode": 0, "N": 2}', '--seeds', '0']);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `arbor: cannot load the oracle ${path.join(bundle, 'oracle.py')}: RuntimeError: not today (oracle.py line 3)\n`,
    });
  });
});
