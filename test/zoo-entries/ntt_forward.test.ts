import {readdirSync, readFileSync, statSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {repoRoot, runPython, zoo} from './harness.js';
import {isPrime, makeCases, modpow, pythonEntry, pythonInBundle, referenceIsBaseline, tensorBytes, verdicts, writeAnswer} from './python-bundle.js';
import {TestStream} from './stream.js';

const name = 'ntt_forward';
const entry = pythonEntry(name);
const bundle = path.join(zoo, name, 'bundle');

/** q by its README definition: the largest prime below 2^W with q = 1 (mod 2N). */
function modulus(N: number, W: number): number {
  for (let q = Math.floor((2 ** W - 2) / (2 * N)) * 2 * N + 1; q > 1; q -= 2 * N) if (isPrime(q)) return q;
  throw new Error('no modulus');
}

/** psi by its README definition: g^((q-1)/2N) for the smallest g >= 2 with psi^N = -1. */
function root(N: number, q: number): bigint {
  const Q = BigInt(q);
  for (let g = 2n; ; g += 1n) {
    const psi = modpow(g, BigInt((q - 1) / (2 * N)), Q);
    if (modpow(psi, BigInt(N), Q) === Q - 1n) return psi;
  }
}

/** The README's formula evaluated directly: A[j] = sum_i a[i] psi^((2j+1) i) mod q, natural order. */
function direct(a: number[], q: number, psi: bigint, cyclic = false): number[] {
  const Q = BigInt(q);
  return a.map((_, j) => {
    const step = modpow(psi, BigInt(cyclic ? 2 * j : 2 * j + 1), Q);
    let sum = 0n;
    let power = 1n;
    for (const coefficient of a) {
      sum += BigInt(coefficient) * power;
      power = (power * step) % Q;
    }
    return Number(sum % Q);
  });
}

const u32 = (bytes: Buffer) => [...new Uint32Array(new Uint8Array(bytes).buffer)];

function files(dir: string, prefix = ''): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((item) => (statSync(path.join(dir, item)).isDirectory() ? files(path.join(dir, item), `${prefix}${item}/`) : [`${prefix}${item}`]));
}

describe('ntt_forward bundle', () => {
  it('draws a as below(q) row by row, derives q and psi as the README defines them, and the oracle equals the direct evaluation', () => {
    const points = [
      {B: 1, N: 2, W: 5, seed: 0},
      {B: 2, N: 8, W: 10, seed: 1},
      {B: 3, N: 16, W: 31, seed: 2},
      {B: 1, N: 64, W: 20, seed: 3},
      {B: 1, N: 256, W: 31, seed: 4},
    ];
    const got = pythonInBundle(
      name,
      `from arbor_stream import Stream
from generate import generate
from oracle import oracle
out = []
for p in job:
    point = {"B": p["B"], "N": p["N"], "W": p["W"]}
    args = generate(point, Stream("zoo/ntt_forward@1.0.0", p["seed"]))
    out.append({"a": [int(v) for v in args["a"].reshape(-1)], "shape": list(args["a"].shape), "q": int(args["q"]), "psi": int(args["psi"]),
                "A": [[int(v) for v in row] for row in oracle(point, args)["A"]]})
print(json.dumps(out))`,
      points,
    );
    points.forEach(({B, N, W, seed}, k) => {
      const {a, shape, q, psi, A} = got[k];
      expect(q).toBe(modulus(N, W));
      expect(BigInt(psi)).toBe(root(N, q));
      expect(shape).toEqual([B, N]);
      const stream = new TestStream('zoo/ntt_forward@1.0.0', seed);
      expect(a).toEqual(Array.from({length: B * N}, () => Number(stream.below(q))));
      for (let b = 0; b < B; b += 1) expect(A[b]).toEqual(direct(a.slice(b * N, (b + 1) * N), q, BigInt(psi)));
    });
    expect(got[1].q).toBe(1009);
    expect(got[1].psi).toBe(179);
  });

  it('refuses a ring degree that is not a power of two and a point with no modulus', () => {
    const messages = pythonInBundle(
      name,
      `from arbor_stream import Stream
from generate import generate
out = []
for point in job:
    try:
        generate(point, Stream("zoo/ntt_forward@1.0.0", 0))
        out.append(None)
    except ValueError as error:
        out.append(str(error))
print(json.dumps(out))`,
      [
        {B: 1, N: 1000, W: 31},
        {B: 1, N: 4096, W: 12},
        {B: 1, N: 4096, W: 16},
      ],
    );
    expect(messages).toEqual(['point: N (1000) must be a power of two >= 2', 'point: no prime q < 2^12 with q = 1 (mod 8192); raise W or lower N', null]);
  });

  it('arbor bundle make reproduces vectors/tiny byte for byte (cases and expected)', () => {
    const vectors = path.join(bundle, 'vectors/tiny');
    const dir = makeCases(name, JSON.parse(readFileSync(path.join(vectors, 'manifest.json'), 'utf8')).point, '0-1');
    expect(files(dir)).toEqual(files(vectors));
    for (const file of files(vectors)) expect(readFileSync(path.join(dir, file)).equals(readFileSync(path.join(vectors, file))), file).toBe(true);
  });

  it('byte equality accepts the oracle and fails every kind of wrong answer', () => {
    const point = {B: 2, N: 8, W: 10};
    const dir = makeCases(name, point, '0-9');
    const q = 1009;
    const bitReversed = [0, 4, 2, 6, 1, 5, 3, 7];
    const answers: ((A: number[], a: number[]) => ArrayBufferView)[] = [
      (A) => Uint32Array.from(A), // 0: the oracle's answer
      (A) => Uint32Array.from(A, (v, i) => (i === 11 ? (v + 1) % q : v)), // 1: one element off by one
      (A) => Uint32Array.from(A, (v, i) => (i === 0 ? v + q : v)), // 2: one element left unreduced
      (A) => Uint32Array.from(A, (_, i) => A[Math.floor(i / 8) * 8 + bitReversed[i % 8]!]!), // 3: bit-reversed order
      (A) => Uint32Array.from(A, (v, i) => (i < 8 ? v : 0)), // 4: only the first polynomial transformed
      (A) => Uint32Array.from(A, (v, i) => (i % 2 === 0 ? v : 0)), // 5: only the even elements
      (A) => Uint32Array.from(A.slice(0, 15)), // 6: one element short
      (A) => BigUint64Array.from(A, BigInt), // 7: u64 instead of u32
      (_, a) => Uint32Array.from([0, 1].flatMap((b) => direct(a.slice(b * 8, b * 8 + 8), q, 179n, true))), // 8: the cyclic NTT
      (A) => Float32Array.from(A), // 9: floats of the right size
    ];
    answers.forEach((answer, k) => writeAnswer(dir, k, 'A', answer(u32(tensorBytes(dir, 'expected', k, 'A')), u32(tensorBytes(dir, 'cases', k, 'a')))));
    const cases = verdicts(name, dir);
    expect(cases.map((c) => c.passed)).toEqual([true, false, false, false, false, false, false, false, false, false]);
    expect(cases[1]!.metrics).toMatchObject({rule: 'exact', wrong: 1, of: 16, first: {result: 'A', index: [1, 3]}});
    expect(cases[6]!.note).toMatch(/60 bytes, expected 64/);
    expect(cases[7]!.note).toMatch(/128 bytes, expected 64/);
  });

  it('the runner takes any integer residues, and refuses floats, values beyond uint32 and a wrong shape', () => {
    const notes = pythonInBundle(
      name,
      `import numpy as np
_spec = importlib.util.spec_from_file_location("runner", job["runner"])
runner = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(runner)
result = {"name": "A", "type": "u32", "shape": [2, 3]}
out = []
for value in (np.arange(6, dtype=np.int64).reshape(2, 3), np.arange(6, dtype=np.float64).reshape(2, 3),
              np.full((2, 3), 2**32, dtype=np.int64), np.arange(6, dtype=np.uint32)):
    data, note = runner.convert(np, value, result)
    out.append(note if data is None else list(np.frombuffer(data, dtype="<u4").tolist()))
print(json.dumps(out))`,
      {runner: path.join(repoRoot, 'lib/eval/runner.py')},
    );
    expect(notes).toEqual([
      [0, 1, 2, 3, 4, 5],
      "result 'A': dtype float64 is a float kind, which an integer result (u32) does not accept: return an integer array, e.g. .astype(np.int64)",
      "result 'A': values out of range for u32",
      "result 'A': shape (6,), expected (2, 3)",
    ]);
  });

  it('the baseline (the reference is its code) and the Stockham fixture reproduce the oracle at the dev point; the baseline and the fixture the direct evaluation at another N', () => {
    const point = {B: 8, N: 8192, W: 31};
    const dir = makeCases(name, point, '21');
    const args = Object.fromEntries(
      entry.args.map((binding) => [binding.name, new Uint32Array(new Uint8Array(tensorBytes(dir, 'cases', 0, binding.name)).buffer)]),
    );
    const expected = tensorBytes(dir, 'expected', 0, 'A');
    const fixture = path.join(import.meta.dirname, 'solutions/ntt_forward_stockham.py');
    expect(referenceIsBaseline(name)).toBe(true);
    for (const file of [path.join(zoo, name, 'solution.py'), fixture]) {
      const got = runPython(entry, file, point, args).results.A!;
      expect(Buffer.from(got.buffer).equals(expected), path.basename(file)).toBe(true);
    }
    // Another ring degree and modulus, drawn here: q = 1048193, psi by the README's rule.
    const small = {B: 3, N: 32, W: 20};
    const q = modulus(32, 20);
    const stream = new TestStream('zoo/ntt_forward@1.0.0', 5);
    const a = Array.from({length: 96}, () => Number(stream.below(q)));
    const psi = root(32, q);
    const want = [0, 1, 2].flatMap((b) => direct(a.slice(b * 32, b * 32 + 32), q, psi));
    for (const file of [path.join(zoo, name, 'solution.py'), fixture]) {
      const got = runPython(entry, file, small, {a: Uint32Array.from(a), q: Uint32Array.of(q), psi: Uint32Array.of(Number(psi))}).results.A!;
      expect([...got], path.basename(file)).toEqual(want);
    }
  }, 120_000); // a make and four solution runs in sequence: seconds, a minute on a loaded 2-core machine
});
