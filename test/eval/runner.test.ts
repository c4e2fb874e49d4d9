// One run on its own (lib/sandbox/run.ts with runner.py), no bundle involved:
// the harness delivers hand-made cases over the channel and reads the answers.
import {spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {cgroupsWork, createGroup} from '../../lib/sandbox/cgroup.js';
import {startCpusFor} from '../../lib/sandbox/pin.js';
import {findPython} from '../../lib/sandbox/python.js';
import {runCases, settlingWarmup, startRun, type CaseInput, type RunOutcome, type RunService} from '../../lib/sandbox/index.js';
import {warmupContinues} from '../../lib/sandbox/run-serve.js';
import {confinementFor, findBwrap, launchRun, resolvePython, type SandboxKind} from '../../lib/sandbox/sandbox.js';
import {repoRoot, tempDir} from '../helpers/cli.js';

const runner = path.join(repoRoot, 'lib/eval/runner.py');
const python = resolvePython(findPython());
const bwrap = findBwrap(process.env);
const kinds: SandboxKind[] = bwrap && spawnSync(bwrap, ['--ro-bind', '/', '/', 'true']).status === 0 ? ['none', 'bwrap'] : ['none'];

const cgroups = cgroupsWork();

const signature = {args: [{name: 'x', type: 'i32', shape: [3]}], results: [{name: 'y', type: 'i64', shape: [3]}]};
const cases: CaseInput[] = [
  {i: 0, inputs: Buffer.from(new Int32Array([1, 2, 3]).buffer)},
  {i: 1, inputs: Buffer.from(new Int32Array([-4, 5, 6]).buffer)},
];

/** A run's launch for a solution file of the given text. */
function launchOf(kind: SandboxKind, solution: string) {
  const dir = tempDir('arbor-runner-');
  mkdirSync(path.join(dir, 'solution'));
  mkdirSync(path.join(dir, 'scratch'));
  writeFileSync(path.join(dir, 'solution/solution.py'), solution);
  const confinement = kind === 'bwrap' ? confinementFor(python, {memoryBytes: 2 ** 32, processes: 256, tmpfsBytes: 2 ** 29}, false) : undefined;
  return launchRun(
    kind,
    bwrap,
    python,
    {runner, solutionDir: path.join(dir, 'solution'), entry: 'solution.py', scratch: path.join(dir, 'scratch')},
    confinement,
  );
}

async function run(
  kind: SandboxKind,
  solution: string,
  options: {warmup?: boolean; caseTimeout?: number; group?: boolean; secretCases?: boolean} = {},
): Promise<RunOutcome> {
  const launch = launchOf(kind, solution);
  const group = options.group ? createGroup() : undefined;
  return runCases({
    launch,
    group,
    point: {N: 3},
    signature,
    resultBytes: [24],
    cases: options.warmup ? [{i: -1, inputs: cases[0]!.inputs}, ...cases] : cases,
    initTimeout: 20,
    caseTimeout: () => options.caseTimeout ?? 20,
    totalTimeout: 60,
    secretCases: options.secretCases,
  });
}

const int64s = (buffer: Buffer | null | undefined) => (buffer ? [...new BigInt64Array(new Uint8Array(buffer).buffer)] : buffer);

describe.each(kinds)('a run (sandbox: %s)', (kind) => {
  it('delivers each case, times it from outside, and returns the answer bytes', async () => {
    const outcome = await run(
      kind,
      'import numpy as np\ndef init(point):\n    return point["N"]\ndef run(state, inputs):\n    inputs["x"][0] += 0  # writable\n    return {"y": inputs["x"].astype(np.int64) * state}\n',
    );
    expect(outcome).toMatchObject({started: true, exitCode: 0});
    expect(outcome.cases.map((c) => [c.i, c.status])).toEqual([
      [0, 'ok'],
      [1, 'ok'],
    ]);
    expect(int64s(outcome.cases[1]!.answer![0])).toEqual([-12n, 15n, 18n]);
    expect(outcome.cases[0]!.seconds).toBeGreaterThan(0);
  });

  it('makes a wrong shape, an unsafe dtype or a non-array object a failing answer with a note, not a crash', async () => {
    const outcome = await run(
      kind,
      'import numpy as np\nclass Sneaky:\n    def __array__(self, dtype=None, copy=None):\n        return np.zeros(3)\n' +
        'def run(state, inputs):\n    if inputs["x"][0] == 1:\n        return {"y": np.zeros((3, 1), dtype=np.int64)}\n    return {"y": Sneaky()} if inputs["x"][0] == -4 else None\n',
    );
    expect(outcome.cases[0]).toMatchObject({status: 'ok', answer: [null], note: expect.stringMatching(/shape \(3, 1\), expected \(3,\)/)});
    expect(outcome.cases[1]).toMatchObject({status: 'ok', answer: [null], note: "result 'y': Sneaky is not a numpy array, scalar or list"});
  });

  it("names the keys run() returned when a result is missing (str keys as they are, others by type: none of the solution's methods runs)", async () => {
    const outcome = await run(kind, 'def run(state, inputs):\n    return {"z": 1, 7: 2} if inputs["x"][0] == 1 else {}\n');
    expect(outcome.cases[0]).toMatchObject({status: 'ok', answer: [null], note: "result 'y' missing: run() returned {'z', <int key>}"});
    expect(outcome.cases[1]).toMatchObject({status: 'ok', answer: [null], note: "result 'y' missing: run() returned an empty dict"});
  });

  it("records a crash per case and goes on, with where it was raised in the solution's files (not the runner's)", async () => {
    const outcome = await run(kind, 'def check(x):\n    raise ValueError("nope %d" % x[0])\ndef run(state, inputs):\n    return check(inputs["x"])\n');
    expect(outcome.cases).toEqual([
      expect.objectContaining({
        i: 0,
        status: 'crashed',
        note: 'ValueError: nope 1',
        where: [
          {file: 'solution.py', line: 4},
          {file: 'solution.py', line: 2},
        ],
      }),
      expect.objectContaining({
        i: 1,
        status: 'crashed',
        note: 'ValueError: nope -4',
        where: [
          {file: 'solution.py', line: 4},
          {file: 'solution.py', line: 2},
        ],
      }),
    ]);
  });

  it('keeps the innermost 3 frames of a deep crash', async () => {
    const outcome = await run(
      kind,
      'def down(n):\n    if n == 0:\n        raise RecursionError("deep")\n    return down(n - 1)\ndef run(state, inputs):\n    return down(5)\n',
    );
    expect(outcome.cases[0]!.where).toEqual([
      {file: 'solution.py', line: 4},
      {file: 'solution.py', line: 4},
      {file: 'solution.py', line: 3},
    ]);
  });

  it("on secret cases names a crash by its exception's type (Python's or numpy's own), never its message or a type the solution named", async () => {
    const outcome = await run(
      kind,
      'Leak = type("Leak1", (Exception,), {})\ndef run(state, inputs):\n    if inputs["x"][0] == 1:\n        raise KeyError(int(inputs["x"][1]))\n    raise Leak(5)\n',
      {secretCases: true},
    );
    expect(outcome.cases).toEqual([
      expect.objectContaining({status: 'crashed', note: 'KeyError: message withheld (secret test cases)', where: [{file: 'solution.py', line: 4}]}),
      expect.objectContaining({
        status: 'crashed',
        note: "an exception of the solution's own class: message withheld (secret test cases)",
        where: [{file: 'solution.py', line: 5}],
      }),
    ]);
  });

  it('reports a solution that fails to import: its first case crashed with the reason and where, the rest not run', async () => {
    const outcome = await run(kind, 'import os\nraise SystemExit(7)\n');
    expect(outcome.started).toBe(true);
    expect(outcome.startError).toBe('SystemExit: 7');
    expect(outcome.startWhere).toEqual([{file: 'solution.py', line: 2}]);
    expect(outcome.cases).toMatchObject([
      {i: 0, status: 'crashed', note: 'the solution failed to start (SystemExit: 7)', where: [{file: 'solution.py', line: 2}]},
      {i: 1, status: 'not-run'},
    ]);
  });

  it('says where a SyntaxError is (its own line) and where init() raised, secret cases or not', async () => {
    const syntax = await run(kind, 'def run(state, inputs):\n    return (\n\nx = 1 +\n', {secretCases: true});
    expect(syntax.startError).toMatch(/^SyntaxError: /);
    expect(syntax.cases[0]).toMatchObject({status: 'crashed', where: [{file: 'solution.py', line: expect.any(Number)}]});
    const init = await run(kind, 'def init(point):\n    return 1 / 0\ndef run(state, inputs):\n    return inputs["x"]\n', {secretCases: true});
    expect(init.cases[0]).toMatchObject({
      status: 'crashed',
      note: 'the solution failed to start (ZeroDivisionError: division by zero)',
      where: [{file: 'solution.py', line: 2}],
    });
  });

  it("times the whole call on the harness's clock, whatever the solution does to Python's clocks", async () => {
    const outcome = await run(
      kind,
      'import time\nsleep = time.sleep\ntime.perf_counter = time.monotonic = lambda: 0.0\ndef run(state, inputs):\n    sleep(0.2)\n    return {"y": inputs["x"]}\n',
    );
    for (const c of outcome.cases) expect(c.seconds).toBeGreaterThanOrEqual(0.2);
  });

  it('ends the run when the channel carries anything but the answer to the case delivered', async () => {
    const outcome = await run(
      kind,
      'import os\ndef run(state, inputs):\n    os.write(3, b\'{"ev": "answer", "i": 7, "status": "crashed"}\\n\')\n    return {"y": inputs["x"]}\n',
    );
    expect(outcome.cases[0]).toMatchObject({status: 'crashed', note: expect.stringMatching(/the runner's channel carried an unexpected message/)});
    expect(outcome.cases[1]).toMatchObject({status: 'not-run'});
  });

  it('exits as soon as the cases are answered, without waiting for a thread the solution left running', async () => {
    const outcome = await run(
      kind,
      'import threading, time\ndef init(point):\n    threading.Thread(target=time.sleep, args=(30,)).start()\ndef run(state, inputs):\n    return {"y": inputs["x"]}\n',
    );
    expect(outcome).toMatchObject({exitCode: 0, signal: null});
    expect(outcome.cases.map((c) => c.status)).toEqual(['ok', 'ok']);
  });

  it('exits at once even when the solution rebinds os._exit', async () => {
    const outcome = await run(
      kind,
      'import os, threading, time\nos._exit = lambda code: None\ndef init(point):\n    threading.Thread(target=time.sleep, args=(30,)).start()\ndef run(state, inputs):\n    return {"y": inputs["x"]}\n',
    );
    expect(outcome).toMatchObject({exitCode: 0, signal: null});
  });

  it('kills a case at its limit; a warm-up answer is never counted', async () => {
    const outcome = await run(
      kind,
      'import time\ncalls = []\ndef run(state, inputs):\n    calls.append(1)\n    if len(calls) == 2:\n        time.sleep(30)\n    return {"y": inputs["x"]}\n',
      {warmup: true, caseTimeout: 0.5},
    );
    expect(outcome.cases).toMatchObject([
      {i: 0, status: 'timeout', note: 'killed at the case time limit of 0.500 s'},
      {i: 1, status: 'not-run'},
    ]);
    expect(outcome.killed).toMatchObject({i: 0, reason: 'case'});
  });
});

describe('the CPU clock', () => {
  it.skipIf(!cgroups)("counts the CPU of a child process the kernel already reaped, through the run's cgroup", async () => {
    const burn =
      'import subprocess, sys\ndef run(state, inputs):\n    subprocess.run([sys.executable, "-c", "import time\\nt = time.process_time()\\nwhile time.process_time() - t < 0.3: pass"])\n    return {"y": inputs["x"]}\n';
    const outcome = await run(kinds[kinds.length - 1]!, burn, {group: true});
    for (const c of outcome.cases) expect(c.cpuSeconds).toBeGreaterThanOrEqual(0.28);
  });
});

describe('a run started ahead of its turn', () => {
  const service: RunService = {point: {N: 3}, signature, resultBytes: [24], cases, caseTimeout: () => 20, totalTimeout: 60};
  // No sandbox: the solution can leave a file where the test looks.
  const marker = () => path.join(tempDir('arbor-ahead-'), 'imported');
  const importMarks = (file: string) => `open(${JSON.stringify(file)}, "a").write("imported")\ndef run(state, inputs):\n    return {"y": inputs["x"]}\n`;

  it('loads Python and numpy, then waits: no solution code runs before it is served', async () => {
    const file = marker();
    const pending = startRun({launch: launchOf('none', importMarks(file)), initTimeout: 20});
    expect(await pending.started).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(existsSync(file)).toBe(false);
    const outcome = await pending.serve(service);
    expect(outcome.cases.map((c) => c.status)).toEqual(['ok', 'ok']);
    expect(readFileSync(file, 'utf8')).toBe('imported');
  });

  it('is ended by cancel without running solution code', async () => {
    const file = marker();
    const group = cgroups ? createGroup() : undefined;
    const pending = startRun({launch: launchOf('none', importMarks(file)), group, initTimeout: 20});
    expect(await pending.started).toBe(true);
    pending.cancel();
    expect(existsSync(file)).toBe(false);
    if (group) expect(existsSync(group.dir)).toBe(false);
    await expect(pending.serve(service)).rejects.toThrow('a run is served once');
  });

  it('holds its warm-up and timed cases until the run after it is quiet (an idle gap after the warm-up left the first case 2-3x slow)', async () => {
    const order: string[] = [];
    const quiet = new Promise((resolve) => setTimeout(() => resolve(order.push('quiet')), 500));
    const outcome = await runCases({
      launch: launchOf('none', 'import time\ndef run(state, inputs):\n    return {"y": inputs["x"]}\n'),
      initTimeout: 20,
      ...service,
      cases: [{i: -1, inputs: cases[0]!.inputs}, ...cases],
      caseTimeout: (i) => (order.push(`case ${i}`), 20),
      quiet,
    });
    expect(order).toEqual(['quiet', 'case -1', 'case 0', 'case 1']);
    expect(outcome.cases.every((c) => c.seconds! < 0.5)).toBe(true);
  });

  const cpus = startCpusFor('0')?.split(',') ?? [];
  it.skipIf(cpus.length === 0 || cpus.includes('0'))('starts beside the timed CPU and moves to it when served', async () => {
    const affinity =
      'import os, threading, time\nthreading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n' +
      'def run(state, inputs):\n    cpus = {c for t in os.listdir("/proc/self/task") for c in os.sched_getaffinity(int(t))}\n    return {"y": [len(cpus), min(cpus), max(cpus)]}\n';
    for (const kind of kinds) {
      const pending = startRun({launch: launchOf(kind, affinity), startCpus: cpus.join(','), initTimeout: 20});
      const outcome = await pending.serve({...service, cpu: '0'});
      expect(int64s(outcome.cases[0]!.answer![0])).toEqual([1n, 0n, 0n]);
    }
  });
});

describe('the warm-up and the null cases', () => {
  it('repeats the warm-up case until its time settles: 3 calls (fewer past 0.2 s), then until one is within 10% of the fastest before it', () => {
    expect(warmupContinues(settlingWarmup, [0.01])).toBe(true);
    expect(warmupContinues(settlingWarmup, [0.01, 0.01])).toBe(true);
    expect(warmupContinues(settlingWarmup, [0.03, 0.01, 0.0105])).toBe(false);
    expect(warmupContinues(settlingWarmup, [0.03, 0.01, 0.02])).toBe(true);
    // A slow case: 0.2 s of warm-up is enough once a call is as fast as the ones before it.
    expect(warmupContinues(settlingWarmup, [0.5])).toBe(false);
    expect(warmupContinues(settlingWarmup, [0.5, 0.3])).toBe(false);
    expect(
      warmupContinues(
        settlingWarmup,
        Array.from({length: settlingWarmup.maxCalls}, (_, k) => 0.001 * (k + 1)),
      ),
    ).toBe(false);
    // Never past 1 s of calls, settled or not.
    expect(warmupContinues(settlingWarmup, [0.15, 0.3, 0.15, 0.3, 0.15])).toBe(false);
    expect(warmupContinues(settlingWarmup, [0.15, 0.3, 0.15, 0.3])).toBe(true);
  });

  it('times the warm-up calls and the null cases, which never call run()', async () => {
    const file = path.join(tempDir('arbor-null-'), 'calls');
    const solution = `import numpy as np\ndef run(state, inputs):\n    open(${JSON.stringify(file)}, "a").write("run\\n")\n    return {"y": inputs["x"].astype(np.int64)}\n`;
    const outcome = await runCases({
      launch: launchOf('none', solution),
      group: cgroups ? createGroup() : undefined,
      point: {N: 3},
      signature,
      resultBytes: [24],
      cases: [{i: -1, inputs: cases[0]!.inputs}, ...cases],
      initTimeout: 20,
      caseTimeout: () => 20,
      totalTimeout: 60,
      warmup: settlingWarmup,
      nullCases: 4,
    });
    expect(outcome.cases.map((c) => c.status)).toEqual(['ok', 'ok']);
    expect(outcome.warmup.length).toBeGreaterThanOrEqual(3);
    expect(outcome.nullCalls).toHaveLength(4);
    expect(outcome.nullCalls.every((call) => call.seconds > 0 && (cgroups ? call.cpuSeconds! >= 0 : call.cpuSeconds === null))).toBe(true);
    // run() ran for each warm-up call and each timed case, never for a null case.
    expect(readFileSync(file, 'utf8').split('\n').filter(Boolean)).toHaveLength(outcome.warmup.length + 2);
  });
});

/** The cgroup v1 hierarchies that still hold a group of this name. */
function leftIn(name: string): string[] {
  return readdirSync('/sys/fs/cgroup').filter((hierarchy) => existsSync(path.join('/sys/fs/cgroup', hierarchy, name)));
}

/** Whether a run's group can be frozen here (a group made to see, and removed). */
function groupsFreeze(): boolean {
  const probe = cgroups ? createGroup() : undefined;
  probe?.destroy();
  return probe?.canFreeze === true;
}

describe.runIf(kinds.includes('bwrap') && groupsFreeze())('a run kept across repetitions', () => {
  /** A kept sandboxed run of `solution` in a freezable group. */
  function kept(solution: string) {
    const group = createGroup()!;
    const started = startRun({launch: launchOf('bwrap', solution), group, initTimeout: 20});
    return {group, session: started.keep()};
  }
  const segment = (items: CaseInput[]): RunService => ({
    point: {N: 3},
    signature,
    resultBytes: [24],
    cases: items,
    caseTimeout: () => 20,
    totalTimeout: 60,
    nonces: true,
  });

  it('serves segment after segment on one process, and a thread it left burning gets no CPU time while it is frozen', async () => {
    // init() starts a thread that computes forever (numpy releases the GIL), and a child process that does too.
    const burner =
      'import numpy as np, os, threading\n' +
      'def burn():\n    a = np.ones(1 << 16)\n    while True:\n        np.sin(a, out=a)\n' +
      'def init(point):\n    threading.Thread(target=burn, daemon=True).start()\n    if os.fork() == 0:\n        burn()\n    return os.getpid()\n' +
      'def run(state, inputs):\n    return {"y": inputs["x"].astype(np.int64) + state * 0}\n';
    const {group, session} = kept(burner);
    try {
      const first = await session.serve(segment(cases));
      expect(first.cases.map((c) => c.status)).toEqual(['ok', 'ok']);
      expect(session.alive).toBe(true);
      const frozenAt = group.cpuSeconds();
      await new Promise((resolve) => setTimeout(resolve, 400));
      // Frozen: not a millisecond of CPU in 0.4 s, though two of its workers never stop computing.
      expect(group.cpuSeconds() - frozenAt).toBeLessThan(0.005);
      const second = await session.serve(segment([{i: 0, inputs: Buffer.from(new Int32Array([7, 8, 9]).buffer)}]));
      expect(second.cases.map((c) => c.status)).toEqual(['ok']);
      expect(int64s(second.cases[0]!.answer![0])).toEqual([7n, 8n, 9n]);
      // Thawed while it served: its workers ran again.
      expect(group.cpuSeconds() - frozenAt).toBeGreaterThan(0);
    } finally {
      await session.close();
    }
    expect(session.alive).toBe(false);
    expect(existsSync(group.dir)).toBe(false);
    expect(leftIn(path.basename(group.dir))).toEqual([]);
  });

  it('ends on a failed case: the run is gone and serves no more', async () => {
    const {group, session} = kept(
      'import numpy as np\ndef run(state, inputs):\n    if inputs["x"][0] < 0:\n        raise ValueError("no")\n    return {"y": inputs["x"].astype(np.int64)}\n',
    );
    const outcome = await session.serve(segment(cases));
    expect(outcome.cases.map((c) => c.status)).toEqual(['ok', 'crashed']);
    expect(session.alive).toBe(false);
    await expect(session.serve(segment(cases))).rejects.toThrow(/serves no more cases/);
    await session.close();
    expect(existsSync(group.dir)).toBe(false);
  });

  it("a run left frozen by an eval that was killed is thawed, killed and removed by the next eval's start", () => {
    // An eval's process keeps a run, serves it a segment (then it is frozen) and is killed with SIGKILL: nothing of it cleans up.
    const dir = tempDir('arbor-kept-');
    mkdirSync(path.join(dir, 'solution'));
    mkdirSync(path.join(dir, 'scratch'));
    writeFileSync(path.join(dir, 'solution/solution.py'), 'import numpy as np\ndef run(state, inputs):\n    return {"y": inputs["x"].astype(np.int64)}\n');
    const dist = (file: string) => JSON.stringify(path.join(repoRoot, 'dist/lib', file));
    const script = `
      import {createGroup} from ${dist('sandbox/cgroup.js')};
      import {startRun} from ${dist('sandbox/run.js')};
      import {findPython} from ${dist('sandbox/python.js')};
      import {confinementFor, findBwrap, launchRun, resolvePython} from ${dist('sandbox/sandbox.js')};
      const python = resolvePython(findPython());
      const dir = ${JSON.stringify(dir)};
      const confinement = confinementFor(python, {memoryBytes: 2 ** 32, processes: 256, tmpfsBytes: 2 ** 29}, false);
      const launch = launchRun('bwrap', findBwrap(process.env), python, {runner: ${JSON.stringify(runner)}, solutionDir: dir + '/solution', entry: 'solution.py', scratch: dir + '/scratch'}, confinement);
      const group = createGroup();
      const session = startRun({launch, group, initTimeout: 20}).keep();
      const signature = ${JSON.stringify(signature)};
      await session.serve({point: {N: 3}, signature, resultBytes: [24], cases: [], caseTimeout: () => 20, totalTimeout: 60, nonces: true});
      console.log(group.dir);
      process.kill(process.pid, 'SIGKILL');
    `;
    const killed = spawnSync(process.execPath, ['--input-type=module', '-e', script], {encoding: 'utf8'});
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const name = path.basename(killed.stdout.trim());
    expect(name).toMatch(/^arbor-\d+\.\d+-\d+$/);
    const frozen = leftIn(name);
    expect(frozen).toContain('freezer');
    const pids = readFileSync(path.join('/sys/fs/cgroup/freezer', name, 'cgroup.procs'), 'utf8')
      .split('\n')
      .filter(Boolean);
    expect(readFileSync(path.join('/sys/fs/cgroup/freezer', name, 'freezer.state'), 'utf8').trim()).toBe('FROZEN');
    expect(pids.length).toBeGreaterThan(0);
    // The next process to use cgroups removes the groups of evals that are gone, frozen ones included, at once.
    const start = Date.now();
    const next = spawnSync(process.execPath, [
      '--input-type=module',
      '-e',
      `import {cgroupsWork} from ${JSON.stringify(path.join(repoRoot, 'dist/lib/sandbox/cgroup.js'))}; cgroupsWork();`,
    ]);
    expect(next.status).toBe(0);
    expect(Date.now() - start).toBeLessThan(5000);
    expect(leftIn(name)).toEqual([]);
    // Dead: gone, or a zombie its new parent has not reaped yet.
    const alive = (pid: string) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
      } catch {
        return false;
      }
    };
    expect(pids.filter(alive)).toEqual([]);
  });
});
