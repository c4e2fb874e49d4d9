// One CPU per eval, machine-wide (every eval leases one, timed or not): the lock files, their release when an eval ends however it ends,
// and two evals started at once.
import {spawn, spawnSync} from 'node:child_process';
import {readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {leaseOneOf, tryLease} from '../../lib/eval/cpu-lease.js';
import {leaseOrder} from '../../lib/eval/pin.js';
import {cliPath, fixtures, repoRoot, tempDir} from '../helpers/cli.js';

const linux = process.platform === 'linux' && spawnSync('flock', ['--version']).status === 0;

describe('the order CPUs are leased in', () => {
  it('puts the idlest first, and among CPUs about as idle the highest-numbered, so evals one after another share a CPU', () => {
    const ticks = (values: number[]) => (cpu: number) => values[cpu]!;
    expect(leaseOrder([0, 1], ticks([5, 5]), 5)).toEqual([1, 0]);
    expect(leaseOrder([0, 1], ticks([0, 0]), 5)).toEqual([1, 0]);
    expect(leaseOrder([0, 1], ticks([5, 0]), 5)).toEqual([0, 1]);
    expect(leaseOrder([0, 1, 2, 3], ticks([5, 1, 4, 0]), 5)).toEqual([2, 0, 1, 3]);
    expect(leaseOrder([3], ticks([0, 0, 0, 0]), 5)).toEqual([3]);
  });
});

describe.runIf(linux)('CPU leases', () => {
  it('holds a CPU for one holder at a time, and frees it on release', async () => {
    const folder = tempDir('arbor-leases-');
    const first = await tryLease(folder, 0);
    expect(first).toMatchObject({cpu: 0, file: path.join(folder, 'cpu0.lock')});
    expect(await tryLease(folder, 0)).toBeUndefined();
    const other = await tryLease(folder, 1);
    expect(other?.cpu).toBe(1);
    first!.release();
    // The holder ends asynchronously: the lock is free once it has.
    const again = await leaseOneOf(folder, [0], {pollMs: 20});
    expect(again.cpu).toBe(0);
    again.release();
    other!.release();
  });

  it('is released by the kernel when the eval holding it is killed', async () => {
    const folder = tempDir('arbor-leases-');
    const module = path.join(repoRoot, 'dist/lib/eval/cpu-lease.js');
    const holder = spawn(process.execPath, ['--input-type=module', '-e', `import {tryLease} from ${JSON.stringify(module)}; const lease = await tryLease(process.argv[1], 0); console.log(lease ? 'held' : 'busy'); setInterval(() => {}, 1000);`, folder], {stdio: ['ignore', 'pipe', 'inherit']});
    const said = await new Promise<string>((resolve) => holder.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())));
    expect(said).toBe('held');
    expect(await tryLease(folder, 0)).toBeUndefined();
    holder.kill('SIGKILL');
    const lease = await leaseOneOf(folder, [0], {pollMs: 20});
    expect(lease.cpu).toBe(0);
    lease.release();
  });

  it('waits, saying so, while every CPU is leased', async () => {
    const folder = tempDir('arbor-leases-');
    const held = await tryLease(folder, 0);
    const waits: number[] = [];
    setTimeout(() => held!.release(), 300);
    const lease = await leaseOneOf(folder, [0], {pollMs: 20, onWait: (waited) => waits.push(waited)});
    expect(waits.length).toBeGreaterThanOrEqual(1);
    // Said at once, before the first poll.
    expect(waits[0]).toBeLessThan(0.2);
    lease.release();
  });

  it('gives evals started at once different CPUs; one more than there are CPUs waits for one', async () => {
    const folder = tempDir('arbor-leases-');
    const cpus = Number(spawnSync('nproc', {encoding: 'utf8'}).stdout.trim());
    const reports = tempDir('arbor-leased-evals-');
    const evals = Array.from({length: cpus + 1}, (_, k) =>
      new Promise<{k: number; stderr: string; code: number | null}>((resolve) => {
        const child = spawn(process.execPath, [cliPath, 'benchmark', 'eval', path.join(fixtures, 'eval/accuracy-abs'), 'dev', '--json-file', path.join(reports, `${k}.json`)], {
          env: {...process.env, ARBOR_CPU_LEASES: folder, NO_COLOR: '1'},
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('exit', (code) => resolve({k, stderr, code}));
      }),
    );
    const done = await Promise.all(evals);
    expect(done.map((each) => each.code)).toEqual(done.map(() => 0));
    const runs = done.map(({k, stderr}) => {
      const report = JSON.parse(readFileSync(path.join(reports, `${k}.json`), 'utf8'));
      return {cpu: report.cpu as string, waited: /waiting for a CPU: every allowed CPU/.test(stderr)};
    });
    expect(runs.every((run) => run.cpu !== undefined)).toBe(true);
    // At most one eval per CPU ran without waiting; the one over the count waited for a lease.
    const unwaited = runs.filter((run) => !run.waited);
    expect(new Set(unwaited.map((run) => run.cpu)).size).toBe(unwaited.length);
    expect(runs.filter((run) => run.waited).length).toBeGreaterThanOrEqual(1);
  }, 180_000);
});
