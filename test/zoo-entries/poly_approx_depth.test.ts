import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {beforeAll, describe, expect, it} from 'vitest';
import {type Entry, type Tensors, generateCase, loadEntry, python, runPython, zoo} from './harness.js';
import {TestStream} from './stream.js';

let entry: Entry;
let clenshaw: (coef: Float64Array, n: number, x: number) => number;
beforeAll(async () => {
  entry = await loadEntry('poly_approx_depth');
  clenshaw = (await import(pathToFileURL(path.join(zoo, 'poly_approx_depth/bundle/functions.mjs')).href)).clenshaw;
});

const full = {C: 128, G: 8193};
const dir = path.join(zoo, 'poly_approx_depth');
const lawson = path.join(zoo, '../test/zoo-entries/solutions/poly_approx_depth_lawson.py');

/** The largest error of each answer on the verifier's grid, computed by numpy (chebval and its own target functions). */
function numpyErrors(answers: {args: Tensors; coef: Float64Array}[], G: number): number[] {
  return python(
    `import json,sys,numpy as np
j=json.load(sys.stdin); G=j["G"]
x=np.cos(np.pi*np.arange(G)/(G-1)); x[(G-1)//2]=0.0
out=[]
for a in j["answers"]:
    f,k=a["family"],a["k"]
    t=[1/(1+np.exp(-k*x)), np.tanh(k*x), x/(1+np.exp(-k*x)), np.exp(-k*x*x)][f]
    out.append(float(np.max(np.abs(np.polynomial.chebyshev.chebval(x,np.array(a["c"]))-t))))
print(json.dumps(out))`,
    {G, answers: answers.map(({args, coef}) => ({family: args.family![0], k: args.k![0], c: [...coef]}))},
  );
}

describe('poly_approx_depth bundle', {timeout: 120_000}, () => {
  it('draws family, depth and k as the README says', async () => {
    const seen = new Set<string>();
    for (let seed = 0; seed < 40; seed += 1) {
      const args = await generateCase(entry, full, seed);
      const stream = new TestStream('zoo/poly_approx_depth@1.0.0', seed);
      const family = Number(stream.below(4));
      const depth = 3 + Number(stream.below(5));
      const r = Number(stream.bits(53)) / 2 ** 53;
      const n = 2 ** depth;
      const k = [n * (0.25 + r), (n * (0.25 + r)) / 2, n * (0.25 + r), (n * n) / (4 * (2.3 + 11.5 * (1 - r)))][family]!;
      expect([args.family![0], args.depth![0], args.k![0]]).toEqual([family, depth, k]);
      expect(k).toBeGreaterThan(0);
      seen.add(`${family}`).add(`d${depth}`);
    }
    // Every family and every depth 3 .. 7 occurs.
    expect(seen.size).toBe(9);
  });

  it('the oracle is Chebyshev interpolation, zero past the budget (numpy chebinterpolate)', async () => {
    const cases = await Promise.all([0, 1, 2, 3, 4, 5].map((seed) => generateCase(entry, full, seed)));
    const want = python(
      `import json,sys,numpy as np
out=[]
for j in json.load(sys.stdin):
    f,k=j["family"],j["k"]
    t=[lambda x:1/(1+np.exp(-k*x)), lambda x:np.tanh(k*x), lambda x:x/(1+np.exp(-k*x)), lambda x:np.exp(-k*x*x)][f]
    out.append(np.polynomial.chebyshev.chebinterpolate(t, j["n"]-1).tolist())
print(json.dumps(out))`,
      cases.map((args) => ({family: args.family![0], k: args.k![0], n: 2 ** Number(args.depth![0]!)})),
    ) as number[][];
    for (const [i, args] of cases.entries()) {
      const coef = (await entry.oracle(full, args)).coef as Float64Array;
      expect(coef.length).toBe(128);
      want[i]!.forEach((c, j) => expect(Math.abs(coef[j]! - c)).toBeLessThan(1e-12));
      expect(coef.subarray(want[i]!.length).every((c) => c === 0)).toBe(true);
    }
  });

  it('Clenshaw agrees with numpy chebval, and the error agrees with numpy on the grid', async () => {
    const coef = Float64Array.from({length: 16}, (_, j) => Math.sin(j + 1) / (j + 1));
    const xs = Array.from({length: 41}, (_, i) => -1 + i / 20);
    const want = python(
      `import json,sys,numpy as np
j=json.load(sys.stdin); print(json.dumps(np.polynomial.chebyshev.chebval(np.array(j["x"]),np.array(j["c"])).tolist()))`,
      {x: xs, c: [...coef]},
    ) as number[];
    xs.forEach((x, i) => expect(Math.abs(clenshaw(coef, 16, x) - want[i]!)).toBeLessThan(1e-14));
    const answers = await Promise.all(
      [4, 5, 6, 7].map(async (seed) => {
        const args = await generateCase(entry, full, seed);
        return {args, coef: ((await entry.oracle(full, args)).coef as Float64Array).subarray(0, 2 ** Number(args.depth![0]!))};
      }),
    );
    const errors = numpyErrors(answers, full.G);
    for (const [i, {args}] of answers.entries()) {
      const expected = await entry.oracle(full, args);
      const verdict = entry.verify!(full, args, expected, expected, entry.accept);
      expect(Math.abs((verdict.metrics.error as number) - errors[i]!)).toBeLessThan(1e-12 + 1e-9 * errors[i]!);
      expect(verdict.metrics).toMatchObject({one: 1, worst: verdict.metrics.error, budget: 2 ** Number(args.depth![0]!)});
      expect(verdict.passed).toBe(errors[i]! <= 1e-2);
    }
  });

  it('rejects an answer over the depth budget, NaN and infinity, each scored the cap 1', async () => {
    const args = await generateCase(entry, full, 0);
    const n = 2 ** Number(args.depth![0]!);
    const expected = await entry.oracle(full, args);
    const good = entry.verify!(full, args, expected, expected, entry.accept);
    expect(good.metrics.error).toBeLessThan(0.1);
    const bad = (change: (c: Float64Array) => void) => {
      const coef = Float64Array.from(expected.coef as Float64Array);
      change(coef);
      return entry.verify!(full, args, expected, {coef}, entry.accept);
    };
    // One coefficient past the budget, however small, is over the depth.
    const over = bad((c) => (c[n] = 1e-300));
    expect(over).toMatchObject({passed: false, metrics: {error: 1, one: 1, worst: null}});
    expect(over.metrics.invalid).toMatch(new RegExp(`coef\\[${n}\\] is not 0 but depth`));
    // -0 past the budget is zero.
    expect(bad((c) => (c[n] = -0)).metrics.error).toBe(good.metrics.error);
    for (const value of [NaN, Infinity, -Infinity]) {
      expect(bad((c) => (c[0] = value))).toMatchObject({passed: false, metrics: {error: 1, worst: null}});
      expect(bad((c) => (c[127] = value)).metrics.error).toBe(1);
    }
    // Off by one element: the error grows; huge but finite coefficients reach the cap.
    expect(bad((c) => (c[n - 1]! += 0.01)).metrics.error).toBeGreaterThan(good.metrics.error as number);
    const huge = bad((c) => c.fill(1e300, 0, n)).metrics;
    expect(huge.error).toBe(1);
    expect(huge.worst).toBeGreaterThan(1e300);
    // A sampled check would miss an error at a single grid point: a spike at x = 1 (sum of all c_j).
    const spike = bad((c) => {
      c[0]! += 0.5;
      c[1]! -= 0.5;
    });
    expect(spike.metrics.error).toBeGreaterThan(0.9);
  });

  it('the zero polynomial scores near the cap, and a tolerance from [accept] is honoured', async () => {
    for (const seed of [0, 1, 2]) {
      const args = await generateCase(entry, full, seed);
      const zeros = entry.verify!(full, args, {}, {coef: new Float64Array(128)}, entry.accept);
      expect(zeros.metrics.error).toBeGreaterThan(0.95);
      expect(zeros.passed).toBe(false);
      expect(entry.verify!(full, args, {}, {coef: new Float64Array(128)}, {tolerance: 2}).passed).toBe(true);
    }
  });

  it('the baseline, the oracle and the Lawson fixture answer valid polynomials, Lawson the best on every case', async () => {
    let total = {baseline: 0, oracle: 0, lawson: 0};
    for (const seed of [0, 3]) {
      const args = await generateCase(entry, full, seed);
      const expected = await entry.oracle(full, args);
      const score = (coef: Float64Array) => {
        const v = entry.verify!(full, args, expected, {coef}, entry.accept);
        expect(v.metrics.worst).not.toBeNull();
        return v.metrics.error as number;
      };
      const baseline = score(runPython(entry, path.join(dir, 'solution.py'), full, args).results.coef as Float64Array);
      const oracle = score(expected.coef as Float64Array);
      const better = score(runPython(entry, lawson, full, args).results.coef as Float64Array);
      expect(better).toBeLessThan(Math.min(baseline, oracle));
      total = {baseline: total.baseline + baseline, oracle: total.oracle + oracle, lawson: total.lawson + better};
    }
    expect(total.lawson).toBeLessThan(0.75 * total.baseline);
  });
});
