import {readdirSync, readFileSync, statSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {runPython, zoo} from './harness.js';
import {isPrime, makeCases, pythonEntry, pythonInBundle, referenceIsBaseline, tensorBytes, verdicts, writeAnswer} from './python-bundle.js';
import {TestStream} from './stream.js';

const name = 'modmatmul';
const entry = pythonEntry(name);
const bundle = path.join(zoo, name, 'bundle');

/** q by its README definition: the largest prime below 2^W. */
function modulus(W: number): number {
  let q = 2 ** W - 1;
  while (!isPrime(q)) q -= 1;
  return q;
}

/** A B mod q with BigInt (row-major flat arrays); `wrap` sums in int64 as numpy does, silently wrapping. */
function product(A: bigint[], B: bigint[], M: number, K: number, N: number, q: bigint, wrap = false): bigint[] {
  const C: bigint[] = [];
  for (let i = 0; i < M; i += 1) {
    for (let j = 0; j < N; j += 1) {
      let sum = 0n;
      for (let k = 0; k < K; k += 1) {
        sum += A[i * K + k]! * B[k * N + j]!;
        if (wrap) sum = BigInt.asIntN(64, sum);
      }
      C.push(((sum % q) + q) % q);
    }
  }
  return C;
}

const i64 = (bytes: Buffer) => [...new BigInt64Array(new Uint8Array(bytes).buffer)];

function files(dir: string, prefix = ''): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((item) => (statSync(path.join(dir, item)).isDirectory() ? files(path.join(dir, item), `${prefix}${item}/`) : [`${prefix}${item}`]));
}

describe('modmatmul bundle', () => {
  it('draws A then B as below(q), row by row, derives q as the README defines it, and the oracle equals the BigInt product', () => {
    const points = [
      {M: 3, K: 5, N: 2, W: 10, seed: 0},
      {M: 4, K: 33, N: 3, W: 31, seed: 1},
      {M: 2, K: 100, N: 5, W: 30, seed: 2},
      {M: 1, K: 1, N: 1, W: 2, seed: 3},
      {M: 1, K: 4096, N: 2, W: 31, seed: 4},
    ];
    const got = pythonInBundle(
      name,
      `from arbor_stream import Stream
from generate import generate
from oracle import oracle
out = []
for p in job:
    point = {k: p[k] for k in "MKNW"}
    args = generate(point, Stream("zoo/modmatmul@1.0.0", p["seed"]))
    out.append({"A": [str(v) for v in args["A"].reshape(-1)], "B": [str(v) for v in args["B"].reshape(-1)], "q": int(args["q"]),
                "shapes": [list(args["A"].shape), list(args["B"].shape)], "C": [str(v) for v in oracle(point, args)["C"].reshape(-1)]})
print(json.dumps(out))`,
      points,
    );
    points.forEach(({M, K, N, W, seed}, k) => {
      const {A, B, q, shapes, C} = got[k];
      expect(q).toBe(modulus(W));
      expect(shapes).toEqual([
        [M, K],
        [K, N],
      ]);
      const stream = new TestStream('zoo/modmatmul@1.0.0', seed);
      const drawn = Array.from({length: M * K + K * N}, () => String(stream.below(q)));
      expect([...A, ...B]).toEqual(drawn);
      expect(C).toEqual(product(A.map(BigInt), B.map(BigInt), M, K, N, BigInt(q)).map(String));
    });
    expect(got.map((g: {q: number}) => g.q)).toEqual([1021, 2147483647, 1073741789, 3, 2147483647]);
  });

  it('the oracle is exact at the bounds (K = 4096, q = 2^31 - 1, every entry q - 1: every entry of the product is K) and refuses a K its float64 limbs cannot hold', () => {
    const got = pythonInBundle(
      name,
      `import numpy as np
from oracle import oracle
q = 2147483647
out = []
for p in job:
    M, K, N = p["M"], p["K"], p["N"]
    args = {"A": np.full((M, K), q - 1, dtype=np.int64), "B": np.full((K, N), q - 1, dtype=np.int64), "q": np.int64(q)}
    try:
        C = oracle({"M": M, "K": K, "N": N, "W": 31}, args)["C"]
        out.append({"C": [str(v) for v in C.reshape(-1)], "dtype": str(C.dtype)})
    except ValueError as error:
        out.append({"error": str(error)})
print(json.dumps(out))`,
      [
        {M: 2, K: 4096, N: 3},
        {M: 1, K: 4097, N: 1},
      ],
    );
    expect(got[0]).toEqual({C: Array(6).fill('4096'), dtype: 'int64'});
    expect(got[1]).toEqual({error: expect.stringMatching(/K \(4097\) is above 4096/)});
  });

  it('arbor bundle make reproduces vectors/tiny byte for byte (cases and expected)', () => {
    const vectors = path.join(bundle, 'vectors/tiny');
    const dir = makeCases(name, JSON.parse(readFileSync(path.join(vectors, 'manifest.json'), 'utf8')).point, '0-1');
    expect(files(dir)).toEqual(files(vectors));
    for (const file of files(vectors)) expect(readFileSync(path.join(dir, file)).equals(readFileSync(path.join(vectors, file))), file).toBe(true);
  });

  it('byte equality accepts the oracle and fails every kind of wrong answer, the overflowing (A @ B) % q included', () => {
    const [M, K, N] = [3, 64, 2];
    const dir = makeCases(name, {M, K, N, W: 30}, '0-9');
    const q = 1073741789n;
    const answers: ((C: bigint[], A: bigint[], B: bigint[]) => ArrayBufferView)[] = [
      (C) => BigInt64Array.from(C), // 0: the oracle's answer
      (C) => BigInt64Array.from(C, (v, i) => (i === 3 ? (v + 1n) % q : v)), // 1: one entry off by one
      (C) => BigInt64Array.from(C, (v, i) => (i === 5 ? v + q : v)), // 2: one entry left unreduced
      (_, A, B) => BigInt64Array.from(product(A, B, M, K, N, q, true)), // 3: (A @ B) % q, wrapped in int64
      (C) => BigInt64Array.from(C, (_, i) => C[(i % M) * N + Math.floor(i / M)]!), // 4: C transposed (same size)
      (C) => BigInt64Array.from(C, (v, i) => (i < N ? v : 0n)), // 5: only the first row
      (C) => BigInt64Array.from(C, (v, i) => (i % 2 === 0 ? v : 0n)), // 6: only the even entries
      (C) => BigInt64Array.from(C.slice(1)), // 7: one entry short
      (C) => Int32Array.from(C, Number), // 8: i32 instead of i64
      (C) => Float64Array.from(C, Number), // 9: floats of the right size
    ];
    answers.forEach((answer, k) =>
      writeAnswer(
        dir,
        k,
        'C',
        answer(i64(tensorBytes(dir, 'expected', k, 'C')), i64(tensorBytes(dir, 'cases', k, 'A')), i64(tensorBytes(dir, 'cases', k, 'B'))),
      ),
    );
    const cases = verdicts(name, dir);
    expect(cases.map((c) => c.passed)).toEqual([true, false, false, false, false, false, false, false, false, false]);
    expect(cases[1]!.metrics).toMatchObject({rule: 'exact', wrong: 1, of: 6, first: {result: 'C', index: [1, 1]}});
    // The overflow is real at this point: most of the wrapped sums are wrong.
    expect(cases[3]!.metrics!.wrong).toBeGreaterThan(3);
    expect(cases[7]!.note).toMatch(/40 bytes, expected 48/);
    expect(cases[8]!.note).toMatch(/24 bytes, expected 48/);
  });

  it('the baseline (the reference is its code) and the float64-limb fixture reproduce the oracle at the dev point and at the bounds (K = 4096, q = 2^31 - 1, every entry q - 1)', () => {
    expect(referenceIsBaseline(name)).toBe(true);
    const solutions = [path.join(zoo, name, 'solution.py'), path.join(import.meta.dirname, 'solutions/modmatmul_f64_limbs.py')];
    const point = {M: 320, K: 512, N: 288, W: 30};
    const dir = makeCases(name, point, '21');
    const args = Object.fromEntries(
      entry.args.map((binding) => [binding.name, new BigInt64Array(new Uint8Array(tensorBytes(dir, 'cases', 0, binding.name)).buffer)]),
    );
    const expected = tensorBytes(dir, 'expected', 0, 'C');
    for (const file of solutions) {
      const got = runPython(entry, file, point, args).results.C!;
      expect(Buffer.from(got.buffer).equals(expected), path.basename(file)).toBe(true);
    }
    // (q-1)^2 = 1 (mod q), so every entry of the product is K: the largest partial sums a point allows.
    const bounds = {M: 2, K: 4096, N: 3, W: 31};
    const full = (n: number) => new BigInt64Array(n).fill(2147483646n);
    for (const file of solutions) {
      const got = runPython(entry, file, bounds, {A: full(2 * 4096), B: full(4096 * 3), q: BigInt64Array.of(2147483647n)}).results.C!;
      expect([...got], path.basename(file)).toEqual(Array(6).fill(4096n));
    }
  }, 120_000); // a make and four solution runs in sequence: seconds, a minute on a loaded 2-core machine
});
