import {spawnSync} from 'node:child_process';
import {readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {Stream} from '../../dist/lib/index.js';
import {fixtures, repoRoot} from '../helpers/cli.js';
import {randomRuns, runAll, type Run} from './stream-ops.js';

const vectors = JSON.parse(readFileSync(path.join(repoRoot, 'lib/bundle/vectors/stream.json'), 'utf8')) as {runs: Run[]};
const python = path.join(fixtures, 'bundle/stream.py');

describe('stream known-answer vectors (lib/bundle/vectors/stream.json)', () => {
  it.each(vectors.runs.map((run, k) => [k, run] as const))('run %i', (_k, run) => {
    expect(runAll([run])[0]).toEqual(run.results);
  });
});

describe('stream against an independent Python implementation', () => {
  it('agrees on thousands of random draws', () => {
    const runs = randomRuns(60, 80, 20261129);
    const result = spawnSync('python3', [python, 'ops'], {input: JSON.stringify(runs), encoding: 'utf8', maxBuffer: 1 << 28});
    expect(result.status, result.stderr).toBe(0);
    const want = JSON.parse(result.stdout) as string[][];
    const got = runAll(runs);
    for (let r = 0; r < runs.length; r++) {
      for (let k = 0; k < runs[r]!.ops.length; k++) {
        if (got[r]![k] !== want[r]![k]) {
          expect({run: r, op: runs[r]!.ops[k], got: got[r]![k]}).toEqual({run: r, op: runs[r]!.ops[k], got: want[r]![k]});
        }
      }
    }
    expect(runs.reduce((n, run) => n + run.ops.length, 0)).toBeGreaterThanOrEqual(4800);
  });

  it('agrees on a large draw crossing digit boundaries (blocks 0 .. 40,000)', () => {
    const runs: Run[] = [
      {
        spec: 'zoo/large@1.0.0',
        seed: 99,
        ops: [
          ['bytes', 32 * 40_000 + 5],
          ['seek', 32 * 99_990 + 7],
          ['bytes', 1000],
        ],
      },
    ];
    const result = spawnSync('python3', [python, 'ops'], {input: JSON.stringify(runs), encoding: 'utf8', maxBuffer: 1 << 28});
    expect(result.status, result.stderr).toBe(0);
    expect(runAll(runs)).toEqual(JSON.parse(result.stdout));
  });
});

describe('Stream positions', () => {
  it('reads the same bytes in one draw or many, and after a seek', () => {
    const whole = new Stream('zoo/p@1', 3).bytes(5000);
    const parts = new Stream('zoo/p@1', 3);
    const pieces: number[] = [];
    for (const n of [1, 31, 32, 33, 64, 0, 100, 4739]) pieces.push(...parts.bytes(n));
    expect(Uint8Array.from(pieces)).toEqual(whole);
    for (const at of [0, 1, 31, 32, 33, 4000]) {
      const s = new Stream('zoo/p@1', 3, at);
      expect(s.position).toBe(at);
      expect(s.bytes(50)).toEqual(whole.subarray(at, at + 50));
    }
  });

  it('rejects bad arguments', () => {
    const s = new Stream('x', 0);
    expect(() => s.below(0)).toThrow(RangeError);
    expect(() => s.int(3, 2)).toThrow(RangeError);
    expect(() => s.bytes(-1)).toThrow(RangeError);
    expect(() => new Stream('x', -1)).toThrow(RangeError);
  });
});

describe('large draws on two threads', () => {
  it('give the same bytes as one thread, at any offset', async () => {
    const parallel = await import('../../dist/lib/bundle/stream-parallel.js');
    const size = 9 << 20;
    const before = parallel.setParallelism(1);
    const one = new Stream('zoo/par@1', 5);
    one.bytes(7);
    const single = one.bytes(size);
    const after = one.bytes(40);
    parallel.setParallelism(2);
    for (let round = 0; round < 2; round++) {
      const two = new Stream('zoo/par@1', 5);
      two.bytes(7);
      const split = two.bytes(size);
      expect(Buffer.compare(Buffer.from(split), Buffer.from(single))).toBe(0);
      expect(two.position).toBe(7 + size);
      expect(two.bytes(40)).toEqual(after);
    }
    parallel.setParallelism(before);
  });
});

describe('ints with a range', () => {
  it('refuses a range the element type cannot hold', () => {
    const s = new Stream('x', 0);
    expect(() => s.ints('u8', 3, 0, 256)).toThrow(/needs 0 <= lo <= hi <= 255/);
    expect(() => s.ints('i16', 3, -40000, 0)).toThrow(RangeError);
    expect(Array.from(s.ints('i8', 50, -128, 127) as Int8Array).every((v) => v >= -128 && v <= 127)).toBe(true);
  });
});

describe('the SIMD and plain JavaScript SHA-256 paths', () => {
  const script = `
    const {Stream} = await import(${JSON.stringify(path.join(repoRoot, 'dist/lib/bundle/stream.js'))});
    const {createHash} = await import('node:crypto');
    const h = createHash('sha256');
    for (const [spec, seed, at, n] of [['zoo/a@1', 0, 0, 400000], ['b'.repeat(50), 3, 32 * 99990 + 5, 100000], ['c'.repeat(120), 7, 32 * 999 , 70000]]) {
      const s = new Stream(spec, seed, at);
      h.update(s.bytes(n));
      // two streams drawn alternately: the kernel's memory is shared between them
      const a = new Stream(spec, seed + 1), b = new Stream(spec, seed + 2);
      for (let k = 0; k < 20; k++) { h.update(a.bytes(777 + k)); h.update(b.bytes(1000)); }
    }
    process.stdout.write(h.digest('hex'));`;
  it('the SIMD kernel assembles and validates on this Node', async () => {
    const {simdKernel} = await import('../../dist/lib/bundle/sha256-simd.js');
    expect(simdKernel()).toBeDefined();
  });

  it('give the same bytes', () => {
    const run = (env: Record<string, string>) =>
      spawnSync(process.execPath, ['--input-type=module', '-e', script], {encoding: 'utf8', env: {...process.env, ...env}});
    const simd = run({});
    const plain = run({ARBOR_STREAM_SIMD: '0', ARBOR_STREAM_THREADS: '1'});
    expect(simd.status, simd.stderr).toBe(0);
    expect(plain.status, plain.stderr).toBe(0);
    expect(simd.stdout).toMatch(/^[0-9a-f]{64}$/);
    expect(simd.stdout).toBe(plain.stdout);
  });
});
