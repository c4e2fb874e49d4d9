import path from 'node:path';
import {beforeAll, describe, expect, it} from 'vitest';
import {type Entry, generateCase, loadEntry, python, runPython, zoo} from './harness.js';
import {TestStream} from './stream.js';

let entry: Entry;
beforeAll(async () => {
  entry = await loadEntry('algotune_knn');
});

const tiny = {N: 60, Q: 9, D: 3, K: 6};
const full = {N: 4096, Q: 256, D: 16, K: 10};

describe('algotune_knn bundle', () => {
  it('draws every coordinate from the stream as bits(12) - 2048, db first, row-major', async () => {
    const args = await generateCase(entry, tiny, 5);
    const stream = new TestStream('zoo/algotune_knn@1.0.0', 5);
    const db = args.db as Float32Array;
    const queries = args.queries as Float32Array;
    expect(db.length).toBe(tiny.N * tiny.D);
    expect(queries.length).toBe(tiny.Q * tiny.D);
    for (const value of [...db, ...queries]) expect(value).toBe(Number(stream.bits(12)) - 2048);
    const again = await generateCase(entry, tiny, 5);
    expect(Buffer.from((again.db as Float32Array).buffer).equals(Buffer.from(db.buffer))).toBe(true);
  });

  it('oracle agrees with a brute-force numpy check (exact distances, ties to the smaller index)', async () => {
    for (const seed of [0, 1, 2]) {
      // Small coordinates force many ties.
      const point = {...tiny, D: 1};
      const args = await generateCase(entry, point, seed);
      const ids = (await entry.oracle(point, args)).ids as Int32Array;
      const want = python(
        `import json,sys,numpy as np
j=json.load(sys.stdin); db=np.array(j["db"],dtype=np.int64).reshape(-1,j["D"]); q=np.array(j["q"],dtype=np.int64).reshape(-1,j["D"])
d=((q[:,None,:]-db[None,:,:])**2).sum(2)
print(json.dumps(np.argsort(d,axis=1,kind="stable")[:,:j["K"]].ravel().tolist()))`,
        {db: [...args.db!], q: [...args.queries!], D: point.D, K: point.K},
      );
      expect([...ids]).toEqual(want);
    }
  });

  it('verifier accepts the oracle and any tie order, rejects every kind of wrong row', async () => {
    const args = await generateCase(entry, full, 3);
    const expected = await entry.oracle(full, args);
    const ok = entry.verify!(full, args, expected, expected, entry.accept);
    expect(ok).toEqual({passed: true, metrics: {wrong: 0, of: full.Q}});

    const {N, Q, K, D} = full;
    const db = args.db as Float32Array;
    const queries = args.queries as Float32Array;
    const dist = (q: number, i: number) => {
      let s = 0;
      for (let d = 0; d < D; d += 1) s += (db[i * D + d]! - queries[q * D + d]!) ** 2;
      return s;
    };
    const base = expected.ids as Int32Array;
    const mutate = (row: number, change: (ids: Int32Array) => void) => {
      const ids = base.slice();
      change(ids.subarray(row * K, row * K + K));
      return entry.verify!(full, args, expected, {ids}, entry.accept);
    };
    // A row with a swapped pair of different distances, a duplicate, an out-of-range id, -1, a far row.
    expect(mutate(7, (r) => ([r[0], r[1]] = [r[1]!, r[0]!]))).toMatchObject({passed: dist(7, base[7 * K]!) === dist(7, base[7 * K + 1]!)});
    expect(mutate(8, (r) => (r[3] = r[2]!))).toEqual({passed: false, metrics: {wrong: 1, of: Q}});
    expect(mutate(9, (r) => (r[9] = N))).toEqual({passed: false, metrics: {wrong: 1, of: Q}});
    expect(mutate(Q - 1, (r) => (r[0] = -1))).toEqual({passed: false, metrics: {wrong: 1, of: Q}});
    const far = Array.from({length: N}, (_, i) => i).sort((a, b) => dist(0, b) - dist(0, a))[0]!;
    expect(mutate(0, (r) => (r[K - 1] = far))).toEqual({passed: false, metrics: {wrong: 1, of: Q}});
    // All zeros / the identity are wrong on every row.
    expect(entry.verify!(full, args, expected, {ids: new Int32Array(Q * K)}, entry.accept).metrics.wrong).toBeGreaterThan(Q - 3);
  });

  it('verifier accepts tied neighbours in any order, and a tied id from outside the top K', async () => {
    // Database rows come in identical pairs (2i, 2i+1), so every query has exact ties.
    const point = {N: 64, Q: 8, D: 2, K: 3};
    const {N, Q, D, K} = point;
    const args = await generateCase(entry, point, 4);
    const db = args.db as Float32Array;
    for (let i = 1; i < N; i += 2) db.copyWithin(i * D, (i - 1) * D, i * D);
    const expected = await entry.oracle(point, args);
    const base = expected.ids as Int32Array;
    const answer = (q: number, change: (row: Int32Array) => void) => {
      const ids = base.slice();
      change(ids.subarray(q * K, q * K + K));
      return entry.verify!(point, args, expected, {ids}, entry.accept);
    };
    let swaps = 0;
    let outside = 0;
    for (let q = 0; q < Q; q += 1) {
      const row = base.subarray(q * K, q * K + K);
      if ((row[0]! ^ 1) === row[1]) {
        expect(answer(q, (r) => ([r[0], r[1]] = [r[1]!, r[0]!])).passed).toBe(true);
        swaps += 1;
      }
      const twin = row[K - 1]! ^ 1;
      if (!row.includes(twin)) {
        expect(answer(q, (r) => (r[K - 1] = twin)).passed).toBe(true);
        outside += 1;
      }
    }
    expect(swaps).toBeGreaterThan(0);
    expect(outside).toBeGreaterThan(0);
    // The control: the same edit with a non-tied id fails.
    const far = base[K - 1]! ^ 1 ^ 2;
    expect(answer(0, (r) => (r[K - 1] = far)).passed).toBe(false);
  });

  it('the baseline, the reference and a fast float64 GEMM solution pass', async () => {
    const args = await generateCase(entry, full, 11);
    const expected = await entry.oracle(full, args);
    const check = (file: string) => entry.verify!(full, args, expected, runPython(entry, file, full, args).results, entry.accept);
    expect(check(path.join(zoo, 'algotune_knn/solution.py'))).toEqual({passed: true, metrics: {wrong: 0, of: full.Q}});
    expect(check(path.join(zoo, 'algotune_knn/reference.py')).passed).toBe(true);
    expect(check(path.join(import.meta.dirname, 'solutions/knn_gemm_f64.py')).passed).toBe(true);
  });
});
