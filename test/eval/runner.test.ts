// runner.py on its own: a hand-made work folder, no bundle involved.
import {spawn, spawnSync} from 'node:child_process';
import {mkdirSync, readFileSync, writeFileSync, existsSync} from 'node:fs';
import path from 'node:path';
import type {Duplex} from 'node:stream';
import {describe, expect, it} from 'vitest';
import {repoRoot, tempDir} from '../helpers/cli.js';

const runner = path.join(repoRoot, 'lib/eval/runner.py');

function workFolder(solution: string): {dir: string; args: string[]; run: (...extra: string[]) => ReturnType<typeof spawnSync>} {
  const dir = tempDir('arbor-runner-');
  mkdirSync(path.join(dir, 'cases/000000'), {recursive: true});
  mkdirSync(path.join(dir, 'cases/000001'), {recursive: true});
  writeFileSync(path.join(dir, 'cases/000000/x.bin'), Buffer.from(new Int32Array([1, 2, 3]).buffer));
  writeFileSync(path.join(dir, 'cases/000001/x.bin'), Buffer.from(new Int32Array([-4, 5, 6]).buffer));
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({point: {N: 3}, cases: 2}));
  writeFileSync(
    path.join(dir, 'signature.json'),
    JSON.stringify({args: [{name: 'x', type: 'i32', shape: [3]}], results: [{name: 'y', type: 'i64', shape: [3]}]}),
  );
  writeFileSync(path.join(dir, 'solution.py'), solution);
  const args = [runner, '--solution', path.join(dir, 'solution.py'), '--manifest', path.join(dir, 'manifest.json'), '--cases', path.join(dir, 'cases'),
    '--out', path.join(dir, 'out'), '--signature', path.join(dir, 'signature.json')];
  const run = (...extra: string[]) => spawnSync('python3', [...args, ...extra], {encoding: 'utf8'});
  return {dir, args, run};
}

const results = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'out/results.json'), 'utf8'));

describe('runner.py', () => {
  it('decodes inputs, times run(), writes out/NNNNNN/<result>.bin and results.json', () => {
    const {dir, run} = workFolder('import numpy as np\ndef init(point):\n    return point["N"]\ndef run(state, inputs):\n    return {"y": inputs["x"].astype(np.int64) * state}\n');
    const result = run();
    expect(result.status).toBe(0);
    const report = results(dir);
    expect(report.init_s).toBeGreaterThanOrEqual(0);
    expect(report.cases.map((c: {i: number; status: string}) => [c.i, c.status])).toEqual([[0, 'ok'], [1, 'ok']]);
    expect(report.cases[0].seconds).toBeGreaterThan(0);
    const y = new BigInt64Array(new Uint8Array(readFileSync(path.join(dir, 'out/000001/y.bin'))).buffer);
    expect([...y]).toEqual([-12n, 15n, 18n]);
  });

  it('makes a wrong shape, an unsafe dtype or an out-of-range value a failing case, not a crash', () => {
    const {dir, run} = workFolder(
      'import numpy as np\ndef run(state, inputs):\n    if inputs["x"][0] == 1:\n        return {"y": np.zeros((3, 1))}\n    return {"y": np.array([0.5, 1, 2])}\n',
    );
    expect(run().status).toBe(0);
    const report = results(dir);
    expect(report.cases[0]).toMatchObject({status: 'ok', note: expect.stringMatching(/shape \(3, 1\), expected \(3,\)/)});
    expect(report.cases[1]).toMatchObject({status: 'ok', note: expect.stringMatching(/cannot be converted to i64/)});
    expect(existsSync(path.join(dir, 'out/000000/y.bin'))).toBe(false);
  });

  it('records a crash per case and goes on; runs only the requested cases', () => {
    const {dir, run} = workFolder('def run(state, inputs):\n    raise ValueError("nope")\n');
    expect(run('--only', '1').status).toBe(0);
    expect(results(dir).cases).toEqual([{i: 1, seconds: expect.any(Number), status: 'crashed', note: 'ValueError: nope'}]);
  });

  it('reports a solution that fails to import with exit 3 and the error in results.json', () => {
    const {dir, run} = workFolder('raise SystemExit(7)\n');
    expect(run().status).toBe(3);
    expect(results(dir)).toMatchObject({init_s: null, cases: [], error: expect.stringContaining('SystemExit')});
  });

  it('times with a clock captured before the solution loads', () => {
    const {dir, run} = workFolder(
      'import time\ntime.perf_counter = lambda: 0.0\ndef run(state, inputs):\n    time.sleep(0.05)\n    return {"y": inputs["x"]}\n',
    );
    expect(run('--warmup', path.join(dir, 'cases/000000')).status).toBe(0);
    const report = results(dir);
    expect(report.cases[0].seconds).toBeGreaterThanOrEqual(0.04);
    expect(report.warmup_s).toBeGreaterThanOrEqual(0.04);
  });

  it('waits for the harness to answer "go" after each start before it calls run()', async () => {
    const {dir, args} = workFolder('import time\ndef run(state, inputs):\n    with open("calls.txt", "a") as f:\n        f.write("%r\\n" % time.time())\n    return {"y": inputs["x"]}\n');
    const child = spawn('python3', [...args, '--warmup', path.join(dir, 'cases/000000'), '--events-fd', '3'], {cwd: dir, stdio: ['ignore', 'ignore', 'pipe', 'pipe']});
    const events = child.stdio[3] as Duplex;
    const goAt: number[] = [];
    const seen: string[] = [];
    let pending = '';
    events.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      for (let newline; (newline = pending.indexOf('\n')) >= 0; pending = pending.slice(newline + 1)) {
        const event = JSON.parse(pending.slice(0, newline)) as {ev: string; i?: number};
        seen.push(event.i === undefined ? event.ev : `${event.ev} ${event.i}`);
        // Answer late: a runner that did not wait would call run() long before this.
        if (event.ev === 'start') {
          setTimeout(() => {
            goAt.push(Date.now() / 1000);
            events.write('go\n');
          }, 150);
        }
      }
    });
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(seen).toEqual(['started', 'ready', 'start -1', 'done -1', 'start 0', 'done 0', 'start 1', 'done 1']);
    const calls = readFileSync(path.join(dir, 'calls.txt'), 'utf8').trim().split('\n').map(Number);
    expect(calls).toHaveLength(3);
    // Both clocks are the system's wall clock; Date.now() has millisecond resolution.
    calls.forEach((calledAt, k) => expect(calledAt).toBeGreaterThanOrEqual(goAt[k]! - 0.002));
  });
});
