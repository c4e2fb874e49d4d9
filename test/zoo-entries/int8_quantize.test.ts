import path from 'node:path';
import {beforeAll, describe, expect, it} from 'vitest';
import {type Entry, type Point, type Tensors, loadEntry, python, runPython, zoo} from './harness.js';
import {TestStream} from './stream.js';

let entry: Entry;
beforeAll(async () => {
  entry = await loadEntry('int8_quantize');
});

/** The test stream with the bundle stream's float64s: n draws of bits(53) / 2^53 (7 little-endian bytes, 53 bits kept), in order. */
class Stream extends TestStream {
  float64s(n: number): Float64Array {
    const out = new Float64Array(n);
    for (let i = 0; i < n; i += 1) {
      const b = this.bytes(7);
      const low = b[0]! + b[1]! * 2 ** 8 + b[2]! * 2 ** 16 + b[3]! * 2 ** 24;
      const high = b[4]! + b[5]! * 2 ** 8 + (b[6]! & 0x1f) * 2 ** 16;
      out[i] = (high * 2 ** 32 + low) / 2 ** 53;
    }
    return out;
  }
}

async function generateCase(entry: Entry, point: Point, seed: number): Promise<Tensors> {
  return entry.generate(point, new Stream(entry.spec, seed));
}

const small = {R: 6, K: 10, B: 12};
const full = {R: 128, K: 128, B: 256};
/** A smaller point of the same shape ratios, for the checks that run Python. */
const mid = {R: 32, K: 64, B: 128};
const dir = path.join(zoo, 'int8_quantize');
const gptq = path.join(zoo, '../test/zoo-entries/solutions/int8_quantize_gptq.py');

/** numpy's count of elements within tolerance x row RMS, and the relative Frobenius error. */
function numpyScore(point: typeof small, args: Tensors, answer: Tensors, tolerance = 1e-2): {within: number; error: number} {
  return python(
    `import json,sys,numpy as np
j=json.load(sys.stdin); R,K,B=j["R"],j["K"],j["B"]
W=np.array(j["W"],dtype=np.float32).reshape(R,K).astype(np.float64); X=np.array(j["X"],dtype=np.float32).reshape(K,B).astype(np.float64)
q=np.array(j["q"],dtype=np.int8).reshape(R,K).astype(np.float64); s=np.array(j["s"],dtype=np.float32).astype(np.float64)
Y=W@X; Yq=s[:,None]*(q@X); rms=np.sqrt(np.mean(Y*Y,axis=1))
print(json.dumps({"within":int(np.sum(np.abs(Yq-Y)<=j["t"]*rms[:,None])),"error":float(np.linalg.norm(Yq-Y)/np.linalg.norm(Y))}))`,
    {...point, W: [...args.W!], X: [...args.X!], q: [...answer.q!], s: [...answer.scale!], t: tolerance},
  );
}

describe('int8_quantize bundle', {timeout: 120_000}, () => {
  it('draws W and X as the README says, each value rounded once to float32', async () => {
    const args = await generateCase(entry, small, 3);
    const stream = new TestStream('zoo/int8_quantize@1.0.0', 3);
    const u = () => Number(stream.bits(53)) / 2 ** 53;
    const sum4 = () => u() + u() + u() + u() - 2;
    const W = Array.from({length: small.R * small.K}, () => {
      const w = sum4() * Math.sqrt(3);
      return Math.fround(u() < 1 / 64 ? 6 * w : w);
    });
    const channel = Array.from({length: small.K}, () => (u() < 1 / 16 ? 8 : 1));
    const X = Array.from({length: small.K * small.B}, (_, i) => Math.fround(sum4() * Math.sqrt(3) * channel[Math.floor(i / small.B)]!));
    expect([...args.W!]).toEqual(W);
    expect([...args.X!]).toEqual(X);
    // At the real size: weights of variance about 1 with outliers, some channels scaled by 8.
    const big = await generateCase(entry, full, 0);
    const w = [...(big.W as Float32Array)];
    const variance = w.reduce((t, v) => t + v * v, 0) / w.length;
    expect(variance).toBeGreaterThan(1.2);
    expect(variance).toBeLessThan(1.9);
    expect(Math.max(...w.map(Math.abs))).toBeGreaterThan(6);
  });

  it('the verifier counts what numpy counts, and the oracle is absmax round-to-nearest', async () => {
    const args = await generateCase(entry, mid, 1);
    const expected = await entry.oracle(mid, args);
    const W = args.W as Float32Array;
    for (let r = 0; r < mid.R; r += 5) {
      const row = W.subarray(r * mid.K, (r + 1) * mid.K);
      const s = Math.fround(Math.max(...[...row].map(Math.abs)) / 127);
      expect(expected.scale![r]).toBe(s);
      row.forEach((w, k) => expect(Math.abs(Number(expected.q![r * mid.K + k]!) - Math.fround(w / s))).toBeLessThanOrEqual(0.5));
    }
    const verdict = entry.verify!(mid, args, expected, expected, entry.accept);
    const want = numpyScore(mid, args, expected);
    expect(verdict.metrics.within).toBe(want.within);
    expect(verdict.metrics.of).toBe(mid.R * mid.B);
    expect(Math.abs((verdict.metrics.error as number) - want.error)).toBeLessThan(1e-12);
    expect(verdict.metrics.badScales).toBe(0);
    const share = want.within / (mid.R * mid.B);
    expect(share).toBeGreaterThan(0.4);
    expect(share).toBeLessThan(0.9);
  });

  it('rejects wrong answers: off by one code, a wrong scale, NaN and infinite scales, zeros, echo', async () => {
    const point = {R: 8, K: 32, B: 64};
    const args = await generateCase(entry, point, 2);
    const expected = await entry.oracle(point, args);
    const score = (q: Int8Array, scale: Float32Array, accept = entry.accept) => entry.verify!(point, args, expected, {q, scale}, accept);
    const q = expected.q as Int8Array;
    const scale = expected.scale as Float32Array;
    const good = score(q, scale);
    // Exact codes and scales (q = W / s exactly) reproduce every element.
    const exactScale = Float32Array.from({length: point.R}, () => 1 / 64);
    const exactQ = Int8Array.from({length: point.R * point.K}, (_, i) => ((i * 7) % 255) - 127);
    const exactW = Float32Array.from(exactQ, (c) => c / 64);
    const exact = entry.verify!(point, {...args, W: exactW}, expected, {q: exactQ, scale: exactScale}, entry.accept);
    expect(exact).toMatchObject({passed: true, metrics: {within: point.R * point.B, error: 0}});
    // One code off by 127 in row 0 moves that row's outputs.
    const off = Int8Array.from(q);
    off[5] = off[5]! > 0 ? -127 : 127;
    expect(score(off, scale).metrics.within as number).toBeLessThan(good.metrics.within as number);
    // One scale wrong by a factor of 2: that row counts (almost) nothing.
    const halved = Float32Array.from(scale);
    halved[3] = halved[3]! * 2;
    expect(score(q, halved).metrics.within as number).toBeLessThanOrEqual((good.metrics.within as number) - point.B + 4);
    for (const bad of [NaN, Infinity, -Infinity]) {
      const s = Float32Array.from(scale);
      s[7] = bad;
      const v = score(q, s);
      expect(v.metrics).toMatchObject({badScales: 1, error: null});
      // Row 7 counts nothing; the other rows as before.
      expect(v.metrics.within).toBe((good.metrics.within as number) - rowWithin(point, args, expected, 7));
      expect(v.passed).toBe(false);
    }
    // Blind answers score (almost) nothing: all zeros, W itself cast to int8 with scale 1.
    expect(score(new Int8Array(q.length), new Float32Array(point.R)).metrics.within as number).toBeLessThan(0.05 * point.R * point.B);
    const echo = Int8Array.from(args.W as Float32Array, (w) => Math.trunc(w));
    expect(
      score(
        echo,
        Float32Array.from({length: point.R}, () => 1),
      ).metrics.within as number,
    ).toBeLessThan(0.1 * point.R * point.B);
    // A tolerance from [accept] is honoured.
    expect(score(q, scale, {tolerance: 10}).passed).toBe(true);
  });

  it('the baseline is the oracle; the GPTQ fixture reproduces more of W X on every case', async () => {
    for (const seed of [0]) {
      const args = await generateCase(entry, full, seed);
      const expected = await entry.oracle(full, args);
      const baseline = runPython(entry, path.join(dir, 'solution.py'), full, args).results;
      expect([...baseline.q!]).toEqual([...expected.q!]);
      expect([...baseline.scale!]).toEqual([...expected.scale!]);
      const better = runPython(entry, gptq, full, args).results;
      const base = entry.verify!(full, args, expected, baseline, entry.accept).metrics;
      const cand = entry.verify!(full, args, expected, better, entry.accept).metrics;
      expect(cand.badScales).toBe(0);
      expect(cand.within as number).toBeGreaterThan(1.04 * (base.within as number));
      expect(cand.error as number).toBeLessThan(base.error as number);
    }
  });
});

/** Elements of row r within tolerance for the oracle's answer (the verifier run on that row alone). */
function rowWithin(point: {R: number; K: number; B: number}, args: Tensors, expected: Tensors, r: number): number {
  const one = {R: 1, K: point.K, B: point.B};
  const slice = {W: (args.W as Float32Array).slice(r * point.K, (r + 1) * point.K), X: args.X!};
  const answer = {q: (expected.q as Int8Array).slice(r * point.K, (r + 1) * point.K), scale: (expected.scale as Float32Array).slice(r, r + 1)};
  return entry.verify!(one, slice, answer, answer, entry.accept).metrics.within as number;
}
