import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {beforeAll, describe, expect, it} from 'vitest';
import {type Entry, generateCase, loadEntry, python, runPython, zoo} from './harness.js';
import {TestStream} from './stream.js';

let entry: Entry;
let toeplitz: Record<string, any>;
beforeAll(async () => {
  entry = await loadEntry('toeplitz_solve');
  toeplitz = await import(pathToFileURL(path.join(zoo, 'toeplitz_solve/bundle/toeplitz.mjs')).href);
});

const full = {N: 1536};

describe('toeplitz_solve bundle', () => {
  it('draws c[1..], r[1..], b from the stream and sets a strictly dominant diagonal', async () => {
    const N = 12;
    const args = await generateCase(entry, {N}, 6);
    const stream = new TestStream('zoo/toeplitz_solve@1.0.0', 6);
    const draw = () => Number(stream.bits(11)) - 1024;
    const c = args.c as Float64Array;
    const r = args.r as Float64Array;
    expect([...c.slice(1)]).toEqual(Array.from({length: N - 1}, draw));
    expect([...r.slice(1)]).toEqual(Array.from({length: N - 1}, draw));
    expect([...args.b!]).toEqual(Array.from({length: N}, draw));
    expect(c[0]).toBe(r[0]);
    for (let i = 0; i < N; i += 1) {
      let off = 0;
      for (let j = 0; j < N; j += 1) if (j !== i) off += Math.abs(j < i ? c[i - j]! : r[j - i]!);
      expect(off).toBeLessThan(c[0]!);
    }
  });

  it('the multiply and the oracle agree with numpy on the assembled matrix', async () => {
    for (const N of [1, 2, 7, 64]) {
      const args = await generateCase(entry, {N}, N);
      const x = (await entry.oracle({N}, args)).x as Float64Array;
      const want = python(
        `import json,sys,numpy as np
j=json.load(sys.stdin); c=np.array(j["c"]); r=np.array(j["r"]); n=len(c)
T=np.array([[c[i-k] if i>=k else r[k-i] for k in range(n)] for i in range(n)])
print(json.dumps({"x": np.linalg.solve(T,np.array(j["b"])).tolist(), "Tb": (T@np.array(j["b"])).tolist()}))`,
        {c: [...args.c!], r: [...args.r!], b: [...args.b!]},
      );
      x.forEach((v, i) => expect(Math.abs(v - want.x[i])).toBeLessThanOrEqual(1e-13 * Math.max(1, Math.abs(want.x[i]))));
      const tb = toeplitz.multiply(args.c, args.r, args.b) as Float64Array;
      tb.forEach((v, i) => expect(v).toBe(want.Tb[i])); // integers: exact
    }
  });

  it('verifier accepts the oracle, rejects a perturbed, NaN or infinite answer', async () => {
    const args = await generateCase(entry, full, 1);
    const expected = await entry.oracle(full, args);
    const ok = entry.verify!(full, args, expected, expected, entry.accept);
    expect(ok.passed).toBe(true);
    expect(ok.metrics.worst).toBeLessThan(1e-14);
    const x = expected.x as Float64Array;
    const bump = (i: number, value: (v: number) => number) => {
      const y = x.slice();
      y[i] = value(y[i]!);
      return entry.verify!(full, args, expected, {x: y}, entry.accept);
    };
    const perturbed = bump(700, (v) => v + 1e-6);
    expect(perturbed.passed).toBe(false);
    expect(perturbed.metrics.worst).toBeGreaterThan(1e-9);
    expect(bump(full.N - 1, () => NaN)).toEqual({passed: false, metrics: {worst: null}});
    expect(bump(0, () => Infinity)).toEqual({passed: false, metrics: {worst: null}});
    expect(entry.verify!(full, args, expected, {x: new Float64Array(full.N)}, entry.accept)).toEqual({passed: false, metrics: {worst: 1}});
    // The right-hand side itself is no answer either.
    expect(entry.verify!(full, args, expected, {x: args.b!}, entry.accept).passed).toBe(false);
  });

  it('the baseline, the reference and an FFT-iteration solution pass at the real point', async () => {
    const args = await generateCase(entry, full, 5);
    const expected = await entry.oracle(full, args);
    for (const file of [
      path.join(zoo, 'toeplitz_solve/solution.py'),
      path.join(zoo, 'toeplitz_solve/reference.py'),
      path.join(import.meta.dirname, 'solutions/toeplitz_fft_jacobi.py'),
    ]) {
      const verdict = entry.verify!(full, args, expected, runPython(entry, file, full, args).results, entry.accept);
      expect(verdict.passed, file).toBe(true);
    }
  });
});
