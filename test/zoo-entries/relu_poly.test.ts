import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {beforeAll, describe, expect, it} from 'vitest';
import {type Entry, generateCase, loadEntry, python, runPython, zoo} from './harness.js';
import {TestStream} from './stream.js';

let entry: Entry;
let evaluate: (coef: Float64Array, x: number) => number;
beforeAll(async () => {
  entry = await loadEntry('relu_poly');
  evaluate = (await import(pathToFileURL(path.join(zoo, 'relu_poly/bundle/verify.mjs')).href)).evaluate;
});

const full = {D: 15, M: 8192};

describe('relu_poly bundle', () => {
  it('draws x = bits(53) / 2^52 - 1 exactly, in [-1, 1)', async () => {
    const args = await generateCase(entry, {D: 3, M: 500}, 4);
    const stream = new TestStream('zoo/relu_poly@1.0.0', 4);
    const x = args.x as Float64Array;
    for (const value of x) {
      const k = stream.bits(53);
      expect(value).toBe(Number(k) / 2 ** 52 - 1);
      expect(BigInt((value + 1) * 2 ** 52)).toBe(k); // the conversion lost nothing
      expect(value >= -1 && value < 1).toBe(true);
    }
  });

  it('Clenshaw evaluation agrees with numpy chebval', () => {
    const coef = Float64Array.from({length: 16}, (_, k) => Math.sin(k + 1) / (k + 1));
    const xs = Array.from({length: 41}, (_, i) => -1 + i / 20);
    const want = python(
      `import json,sys,numpy as np
j=json.load(sys.stdin); print(json.dumps(np.polynomial.chebyshev.chebval(np.array(j["x"]),np.array(j["c"])).tolist()))`,
      {x: xs, c: [...coef]},
    ) as number[];
    xs.forEach((x, i) => expect(Math.abs(evaluate(coef, x) - want[i]!)).toBeLessThan(1e-14));
  });

  it('oracle is the truncated Chebyshev series of ReLU', async () => {
    const coef = (await entry.oracle(full, {})).coef as Float64Array;
    const want = python(
      `import json,sys,numpy as np
c=np.polynomial.chebyshev.chebinterpolate(lambda x: np.maximum(x,0), 4001)
print(json.dumps(c[:16].tolist()))`,
      null,
    ) as number[];
    expect(coef.length).toBe(16);
    coef.forEach((c, k) => expect(Math.abs(c - want[k]!)).toBeLessThan(1e-6));
  });

  it('verifier counts exactly, and never counts NaN or infinity as within', async () => {
    const point = {D: 1, M: 4000};
    const args = await generateCase(entry, point, 2);
    const x = args.x as Float64Array;
    // p(x) = x: within for x >= 0 and for -1e-3 <= x < 0.
    const want = [...x].filter((v) => v >= -1e-3).length;
    const verdict = entry.verify!(point, args, {}, {coef: Float64Array.of(0, 1)}, entry.accept);
    expect(verdict.metrics).toEqual({within: want, of: 4000, worst: Math.max(...[...x].map((v) => (v < 0 ? -v : 0)))});
    expect(verdict.passed).toBe(false);
    for (const bad of [NaN, Infinity, -Infinity]) {
      const v = entry.verify!(point, args, {}, {coef: Float64Array.of(0, bad)}, entry.accept);
      expect(v).toEqual({passed: false, metrics: {within: 0, of: 4000, worst: null}});
    }
    // A huge but finite answer is simply far off.
    expect(entry.verify!(point, args, {}, {coef: Float64Array.of(1e300, 1e300)}, entry.accept).metrics.within).toBe(0);
    // A tolerance from [accept] is honoured.
    expect(entry.verify!(point, args, {}, {coef: Float64Array.of(0, 1)}, {tolerance: 2}).passed).toBe(true);
  });

  it('the baseline is Chebyshev interpolation and scores about 0.63 at the real point', async () => {
    const args = await generateCase(entry, full, 0);
    const coef = runPython(entry, path.join(zoo, 'relu_poly/solution.py'), full, args).results.coef as Float64Array;
    const want = python(
      `import numpy as np, json
print(json.dumps(np.polynomial.chebyshev.chebinterpolate(lambda x: np.maximum(x,0), 15).tolist()))`,
      null,
    ) as number[];
    coef.forEach((c, k) => expect(Math.abs(c - want[k]!)).toBeLessThan(1e-14));
    const verdict = entry.verify!(full, args, {}, {coef}, entry.accept);
    const share = (verdict.metrics.within as number) / full.M;
    expect(share).toBeGreaterThan(0.6);
    expect(share).toBeLessThan(0.67);
  });
});
