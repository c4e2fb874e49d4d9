import {cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {beforeAll, describe, expect, it} from 'vitest';
import {runCli, tempDir} from '../helpers/cli.js';
import {type Entry, type Point, type Tensors, runPython, zoo} from './harness.js';
import {TestStream} from './stream.js';

// The harness's loadEntry imports every entry point as JavaScript; this bundle's oracle is Python,
// so the test loads the generator and verifier itself and runs the oracle through `arbor bundle make`.
const bundle = path.join(zoo, 'fft_convolve2d/bundle');
const spec = 'zoo/fft_convolve2d@1.0.0';
const accept = {rtol: 1e-12};
let entry: Entry;
beforeAll(async () => {
  const load = async (file: string) => (await import(pathToFileURL(path.join(bundle, file)).href)).default;
  entry = {
    spec,
    args: [
      {name: 'image', type: 'f64', dims: ['N', 'N']},
      {name: 'kernel', type: 'f64', dims: ['K', 'K']},
    ],
    results: [{name: 'out', type: 'f64', dims: ['N + K - 1', 'N + K - 1']}],
    accept,
    generate: await load('generate.mjs'),
    oracle: () => {
      throw new Error('the oracle is oracle.py: use make()');
    },
    verify: await load('verify.mjs'),
  };
});

const f64 = (file: string) => new Float64Array(new Uint8Array(readFileSync(file)).buffer);

/** `arbor bundle make` at a point: each seed's arguments and the Python oracle's answer (read, then removed). */
function make(point: Point, seeds: string): {args: Tensors; expected: Tensors}[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'arbor-fft-convolve2d-'));
  try {
    const run = runCli(['bundle', bundle, 'make', dir, '--point', JSON.stringify(point), '--seeds', seeds]);
    expect(run.code, run.stderr).toBe(0);
    return readdirSync(path.join(dir, 'cases'))
      .sort()
      .map((name) => ({
        args: {image: f64(path.join(dir, 'cases', name, 'image.bin')), kernel: f64(path.join(dir, 'cases', name, 'kernel.bin'))},
        expected: {out: f64(path.join(dir, 'expected', name, 'out.bin'))},
      }));
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
}

/** out[i][j] * 2^40 by direct summation over the integer-scaled inputs, in BigInt (exact by construction). */
function directScaled(image: Float64Array, N: number, kernel: Float64Array, K: number, i: number, j: number): bigint {
  let sum = 0n;
  for (let p = 0; p < K; p += 1) {
    for (let q = 0; q < K; q += 1) {
      const r = i - p;
      const c = j - q;
      if (r < 0 || r >= N || c < 0 || c >= N) continue;
      sum += BigInt(image[r * N + c]! * 2 ** 20) * BigInt(kernel[p * K + q]! * 2 ** 20);
    }
  }
  return sum;
}

const full = {N: 512, K: 31};
const M = full.N + full.K - 1;
let real: {args: Tensors; expected: Tensors};
let baselineOut: Float64Array;
beforeAll(() => {
  real = make(full, '3')[0]!;
  baselineOut = runPython(entry, path.join(zoo, 'fft_convolve2d/solution.py'), full, real!.args).results.out as Float64Array;
}, 60_000);

const verify = (answer: Float64Array) => entry.verify!(full, real.args, real.expected, {out: answer}, accept);
const norm = (values: Float64Array) => Math.sqrt(values.reduce((s, v) => s + v * v, 0));

describe('fft_convolve2d bundle', () => {
  it('draws the image, then the kernel, each value bits(20) - 2^19 over 2^20, row-major', async () => {
    const point = {N: 5, K: 3};
    const args = await entry.generate(point, new TestStream(spec, 7));
    const stream = new TestStream(spec, 7);
    const draw = () => (Number(stream.bits(20)) - 2 ** 19) / 2 ** 20;
    expect(args.image).toBeInstanceOf(Float64Array);
    expect([...args.image!]).toEqual(Array.from({length: 25}, draw));
    expect([...args.kernel!]).toEqual(Array.from({length: 9}, draw));
    for (const v of [...args.image!, ...args.kernel!]) expect(v >= -0.5 && v < 0.5).toBe(true);
  });

  it('the oracle equals a BigInt direct sum at small points (vectors/tiny, and a kernel larger than the image)', () => {
    const tiny = [0, 1].map((seed) => {
      const dir = path.join(bundle, 'vectors/tiny');
      const name = String(seed).padStart(6, '0');
      return {
        args: {image: f64(path.join(dir, 'cases', name, 'image.bin')), kernel: f64(path.join(dir, 'cases', name, 'kernel.bin'))},
        expected: {out: f64(path.join(dir, 'expected', name, 'out.bin'))},
      };
    });
    for (const [point, made] of [
      [{N: 4, K: 3}, tiny],
      [{N: 3, K: 7}, make({N: 3, K: 7}, '0-1')],
    ] as const) {
      const m = point.N + point.K - 1;
      for (const {args, expected} of made) {
        expect(expected.out!.length).toBe(m * m);
        for (let i = 0; i < m; i += 1) {
          for (let j = 0; j < m; j += 1) {
            const want = directScaled(args.image as Float64Array, point.N, args.kernel as Float64Array, point.K, i, j);
            expect(BigInt(Number(expected.out![i * m + j]!) * 2 ** 40), `${JSON.stringify(point)} [${i}, ${j}]`).toBe(want);
          }
        }
      }
    }
  });

  it('the oracle equals a BigInt direct sum at the real point (corners, edges and 200 drawn elements)', () => {
    const {image, kernel} = real.args as {image: Float64Array; kernel: Float64Array};
    const picks: [number, number][] = [
      [0, 0],
      [0, M - 1],
      [M - 1, 0],
      [M - 1, M - 1],
      [full.K - 1, full.K - 1],
      [M >> 1, M >> 1],
    ];
    const stream = new TestStream('fft_convolve2d test picks', 0);
    for (let n = 0; n < 200; n += 1) picks.push([Number(stream.below(M)), Number(stream.below(M))]);
    for (const [i, j] of picks) {
      expect(BigInt(Number(real.expected.out![i * M + j]!) * 2 ** 40), `[${i}, ${j}]`).toBe(directScaled(image, full.N, kernel, full.K, i, j));
    }
  });

  it('the verifier accepts the oracle and a float64 FFT answer, and bounds each element by rtol * |image| * |kernel|', () => {
    expect(verify(real.expected.out as Float64Array)).toEqual({passed: true, metrics: {wrong: 0, of: M * M, worst: 0}});
    const fft = verify(baselineOut);
    expect(fft.passed).toBe(true);
    expect(fft.metrics.worst).toBeGreaterThan(0);
    expect(fft.metrics.worst).toBeLessThan(1e-15); // three orders of magnitude inside the bar
    const tol = 1e-12 * norm(real.args.image as Float64Array) * norm(real.args.kernel as Float64Array);
    const bumped = (delta: number) => {
      const out = (real.expected.out as Float64Array).slice();
      out[1234] = out[1234]! + delta;
      return verify(out);
    };
    expect(bumped(tol / 2).passed).toBe(true);
    expect(bumped(tol * 2)).toMatchObject({passed: false, metrics: {wrong: 1, first: {result: 'out', index: [Math.floor(1234 / M), 1234 % M], flat: 1234}}});
  });

  it('the verifier rejects every kind of wrong answer', async () => {
    const expected = real.expected.out as Float64Array;
    const fails = (out: Float64Array) => {
      const verdict = verify(out);
      expect(verdict.passed).toBe(false);
      return verdict.metrics;
    };
    const one = (index: number, value: number) => {
      const out = expected.slice();
      out[index] = value;
      return out;
    };
    expect(fails(one(M * M - 1, NaN))).toMatchObject({wrong: 1, worst: null});
    expect(fails(one(0, Infinity))).toMatchObject({wrong: 1, worst: null});
    // Shifted by one column, one row short, rounded to float32, every other element only, zeros.
    expect(fails(Float64Array.from(expected, (_, k) => (k % M === 0 ? 0 : expected[k - 1]!))).wrong).toBeGreaterThan(M * M * 0.9);
    expect(fails(expected.slice(0, M * (M - 1))).wrong).toBe(M);
    expect(fails(Float64Array.from(Float32Array.from(baselineOut))).wrong).toBeGreaterThan(M * M * 0.5);
    expect(fails(Float64Array.from(expected, (v, k) => (k % 2 ? 0 : v))).wrong).toBeGreaterThan(M * M * 0.45);
    expect(fails(new Float64Array(M * M)).wrong).toBeGreaterThan(M * M * 0.9);
    // Correlation instead of convolution (the kernel not flipped), computed by the baseline itself.
    const kernel = real.args.kernel as Float64Array;
    const flipped = Float64Array.from(kernel, (_, k) => kernel[kernel.length - 1 - k]!);
    const correlation = runPython(entry, path.join(zoo, 'fft_convolve2d/solution.py'), full, {...real.args, kernel: flipped}).results.out as Float64Array;
    expect(fails(correlation).wrong).toBeGreaterThan(M * M * 0.9);
  });

  it('the reference and the rfft fixture pass at the real point', () => {
    for (const file of [path.join(zoo, 'fft_convolve2d/reference.py'), path.join(import.meta.dirname, 'solutions/fft_convolve2d_rfft_smooth.py')]) {
      const out = runPython(entry, file, full, real.args).results.out as Float64Array;
      expect(verify(out).passed, file).toBe(true);
    }
    expect(verify(baselineOut).passed).toBe(true);
  });
});

describe('fft_convolve2d known-answer vectors', () => {
  const vectors = path.join(bundle, 'vectors/tiny');
  const files = (dir: string, prefix = ''): string[] =>
    readdirSync(dir)
      .sort()
      .flatMap((name) => (statSync(path.join(dir, name)).isDirectory() ? files(path.join(dir, name), `${prefix}${name}/`) : [`${prefix}${name}`]));

  it('arbor bundle make reproduces vectors/tiny byte for byte', () => {
    const dir = path.join(tempDir(), 'tiny');
    const point = JSON.parse(readFileSync(path.join(vectors, 'manifest.json'), 'utf8')).point;
    expect(runCli(['bundle', bundle, 'make', dir, '--point', JSON.stringify(point), '--seeds', '0-1']).code).toBe(0);
    expect(files(dir)).toEqual(files(vectors));
    for (const file of files(vectors)) expect(readFileSync(path.join(dir, file)).equals(readFileSync(path.join(vectors, file))), file).toBe(true);
  });

  it('arbor bundle verify passes the oracle and fails a float32 answer (wrong length) with a note', () => {
    const dir = path.join(tempDir(), 'work');
    cpSync(vectors, dir, {recursive: true});
    cpSync(path.join(dir, 'expected'), path.join(dir, 'out'), {recursive: true});
    writeFileSync(path.join(dir, 'out/000001/out.bin'), Float32Array.from(f64(path.join(dir, 'expected/000001/out.bin'))));
    expect(runCli(['bundle', bundle, 'verify', dir]).code).toBe(0);
    const [first, second] = JSON.parse(readFileSync(path.join(dir, 'verdicts.json'), 'utf8')).cases;
    expect(first).toMatchObject({passed: true, metrics: {wrong: 0, worst: 0}});
    expect(second.passed).toBe(false);
    expect(second.note).toMatch(/out\/000001\/out\.bin is 144 bytes, expected 288/);
  });
});
