import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {beforeAll, describe, expect, it} from 'vitest';
import {type Entry, generateCase, loadEntry, python, runPython, zoo} from './harness.js';
import {TestStream} from './stream.js';

let entry: Entry;
let modular: Record<string, any>;
beforeAll(async () => {
  entry = await loadEntry('polymul_negacyclic');
  modular = await import(pathToFileURL(path.join(zoo, 'polymul_negacyclic/bundle/modular.mjs')).href);
});

/** The schoolbook negacyclic product with BigInt, as the independent check. */
function schoolbook(a: Uint32Array, b: Uint32Array, q: number): number[] {
  const N = a.length;
  const Q = BigInt(q);
  const c = new Array<bigint>(N).fill(0n);
  for (let i = 0; i < N; i += 1) {
    for (let j = 0; j < N; j += 1) {
      const term = BigInt(a[i]!) * BigInt(b[j]!);
      if (i + j < N) c[i + j]! += term;
      else c[i + j - N]! -= term;
    }
  }
  return c.map((v) => Number(((v % Q) + Q) % Q));
}

describe('polymul_negacyclic bundle', () => {
  it('derives q as the largest prime below 2^W with q = 1 (mod 2N)', () => {
    const want = python(
      `import json,sys
def prime(n):
    return n>1 and all(n%d for d in range(2,int(n**0.5)+1))
out=[]
for N,W in json.load(sys.stdin):
    q=next(k*2*N+1 for k in range((2**W-2)//(2*N),0,-1) if prime(k*2*N+1))
    out.append(q)
print(json.dumps(out))`,
      [
        [4096, 30],
        [4096, 31],
        [8, 10],
        [1024, 20],
        [2, 5],
      ],
    );
    expect([modular.modulus(4096, 30), modular.modulus(4096, 31), modular.modulus(8, 10), modular.modulus(1024, 20), modular.modulus(2, 5)]).toEqual(want);
    expect(modular.modulus(4096, 30)).toBe(1073692673);
  });

  it('refuses points with no modulus or a ring degree that is not a power of two', async () => {
    await expect(generateCase(entry, {N: 4096, W: 12}, 0)).rejects.toThrow(/no prime q/);
    await expect(generateCase(entry, {N: 1000, W: 30}, 0)).rejects.toThrow(/power of two/);
    await expect(generateCase(entry, {N: 8, W: 32}, 0)).rejects.toThrow(/W \(32\)/);
  });

  it('draws a then b from the stream with below(q); q is the scalar third argument', async () => {
    const point = {N: 16, W: 20};
    const args = await generateCase(entry, point, 9);
    const q = modular.modulus(16, 20);
    const stream = new TestStream('zoo/polymul_negacyclic@1.0.0', 9);
    expect([...args.q!]).toEqual([q]);
    expect([...args.a!, ...args.b!]).toEqual(Array.from({length: 32}, () => Number(stream.below(q))));
  });

  it('oracle (NTT) equals the BigInt schoolbook product on small points', async () => {
    for (const [N, W, seed] of [
      [2, 5, 0],
      [8, 10, 1],
      [64, 20, 2],
      [256, 31, 3],
      [512, 30, 4],
    ] as const) {
      const args = await generateCase(entry, {N, W}, seed);
      const c = (await entry.oracle({N, W}, args)).c as Uint32Array;
      expect([...c]).toEqual(schoolbook(args.a as Uint32Array, args.b as Uint32Array, args.q![0] as number));
    }
  });

  it('oracle matches the edge values: x^(N-1) * x = -1 and (q-1)^2 products', async () => {
    const N = 8;
    const q = modular.modulus(N, 31);
    const a = new Uint32Array(N);
    const b = new Uint32Array(N);
    a[N - 1] = 1;
    b[1] = 1;
    expect([...(await entry.oracle({N, W: 31}, {a, b, q: Uint32Array.of(q)})).c!]).toEqual([q - 1, 0, 0, 0, 0, 0, 0, 0]);
    const full = new Uint32Array(N).fill(q - 1);
    expect([...(await entry.oracle({N, W: 31}, {a: full, b: full, q: Uint32Array.of(q)})).c!]).toEqual(schoolbook(full, full, q));
  });

  it('the baseline, the reference and a numpy NTT reproduce the oracle byte for byte at the real point', async () => {
    const point = {N: 4096, W: 30};
    const args = await generateCase(entry, point, 21);
    const expected = (await entry.oracle(point, args)).c as Uint32Array;
    const files = ['solution.py', 'reference.py'].map((file) => path.join(zoo, 'polymul_negacyclic', file));
    for (const file of [...files, path.join(import.meta.dirname, 'solutions/polymul_ntt.py')]) {
      const got = runPython(entry, file, point, args).results.c as Uint32Array;
      expect(Buffer.from(got.buffer).equals(Buffer.from(expected.buffer))).toBe(true);
    }
  });
});
