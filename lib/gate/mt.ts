/**
 * Python's `random.Random`: MT19937 seeded by `init_by_array` with the 32-bit
 * little-endian words of |seed|, and `choice` by `getrandbits` rejection.
 */

import {simdBootstrapCounts} from './mt-simd.js';

const N = 624;
const M = 397;

/** The 32-bit little-endian words of |seed| (at least one word), as CPython's random_seed. */
function seedKey(seed: bigint): number[] {
  let n = seed < 0n ? -seed : seed;
  const key: number[] = [];
  while (n > 0n) {
    key.push(Number(n & 0xffffffffn));
    n >>= 32n;
  }
  if (key.length === 0) key.push(0);
  return key;
}

/** MT19937 as CPython's _randommodule.c. */
export class MersenneTwister {
  readonly mt = new Uint32Array(N);
  index = N;

  constructor(seed: bigint) {
    this.initByArray(seedKey(seed));
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] as number;
      mt[i] = (Math.imul(1812433253, (prev ^ (prev >>> 30)) >>> 0) + i) >>> 0;
    }
    this.index = N;
  }

  private initByArray(key: number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    const keyLength = key.length;
    for (let k = Math.max(N, keyLength); k > 0; k--) {
      const prev = mt[i - 1] as number;
      mt[i] = (((mt[i] as number) ^ Math.imul((prev ^ (prev >>> 30)) >>> 0, 1664525)) + (key[j] as number) + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1] as number;
        i = 1;
      }
      if (j >= keyLength) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1] as number;
      mt[i] = (((mt[i] as number) ^ Math.imul((prev ^ (prev >>> 30)) >>> 0, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1] as number;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  /** Regenerate the 624-word block. */
  twist(): void {
    const mt = this.mt;
    let kk = 0;
    let y: number;
    for (; kk < N - M; kk++) {
      y = ((mt[kk] as number) & 0x80000000) | ((mt[kk + 1] as number) & 0x7fffffff);
      mt[kk] = (mt[kk + M] as number) ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
    }
    for (; kk < N - 1; kk++) {
      y = ((mt[kk] as number) & 0x80000000) | ((mt[kk + 1] as number) & 0x7fffffff);
      mt[kk] = (mt[kk + (M - N)] as number) ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
    }
    y = ((mt[N - 1] as number) & 0x80000000) | ((mt[0] as number) & 0x7fffffff);
    mt[N - 1] = (mt[M - 1] as number) ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
    this.index = 0;
  }

  /** genrand_uint32. */
  next(): number {
    if (this.index >= N) this.twist();
    let y = this.mt[this.index++] as number;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `_randbelow(n)` for 1 <= n < 2**32: getrandbits(n.bit_length()) redrawn while >= n. */
  below(n: number): number {
    const shift = 32 - (32 - Math.clz32(n));
    let r = this.next() >>> shift;
    while (r >= n) r = this.next() >>> shift;
    return r;
  }
}

/** Twist a 624-word MT19937 state held as int32 (same bits as the uint32 state). */
function twistInt32(mt: Int32Array): void {
  let kk = 0;
  let y: number;
  for (; kk < N - M; kk++) {
    y = (mt[kk]! & 0x80000000) | (mt[kk + 1]! & 0x7fffffff);
    mt[kk] = mt[kk + M]! ^ (y >>> 1) ^ (-(y & 1) & 0x9908b0df);
  }
  for (; kk < N - 1; kk++) {
    y = (mt[kk]! & 0x80000000) | (mt[kk + 1]! & 0x7fffffff);
    mt[kk] = mt[kk + (M - N)]! ^ (y >>> 1) ^ (-(y & 1) & 0x9908b0df);
  }
  y = (mt[N - 1]! & 0x80000000) | (mt[0]! & 0x7fffffff);
  mt[N - 1] = mt[M - 1]! ^ (y >>> 1) ^ (-(y & 1) & 0x9908b0df);
}

/**
 * The reference's paired bootstrap: `samples` times, the mean of
 * `rng.choice(differences)` drawn len(differences) times. Differences are in
 * {-1, 0, 1}, so each estimate is exactly k/n for an integer k: the result is
 * the histogram of k (index k + n), which also gives the sorted order.
 */
export function bootstrapCounts(differences: Int8Array, samples: number, seed: bigint, useSimd = true): Uint32Array {
  const n = differences.length;
  const counts = new Uint32Array(2 * n + 1);
  if (samples <= 0 || n === 0) return counts;
  if (n >= 2 ** 18) return bootstrapCountsPlain(differences, samples, seed, counts);
  return bootstrapCountsFast(differences, samples, seed, counts, useSimd);
}

/** The same, one `below(n)` at a time (the fast path's model; used for huge n). */
function bootstrapCountsPlain(differences: Int8Array, samples: number, seed: bigint, counts: Uint32Array): Uint32Array {
  const rng = new MersenneTwister(seed);
  const n = differences.length;
  for (let s = 0; s < samples; s++) {
    let sum = 0;
    for (let j = 0; j < n; j++) sum += differences[rng.below(n)]!;
    counts[sum + n]!++;
  }
  return counts;
}

/**
 * The hot loop (51 million draws in the large bench), for n < 2**18.
 *
 * - Where WebAssembly SIMD is available the whole loop runs in mt-simd.ts
 *   (blocks twisted and tempered 4 lanes at a time, then counted); the
 *   JavaScript below is the same algorithm, one 624-word block at a time.
 * - getrandbits(k) keeps the top k = 32 - shift bits of the tempered word, and
 *   shift >= 14 here: the last tempering step (y ^= y >>> 18) only changes
 *   bits 0..13, so it is skipped.
 * - One table lookup per word, no branch: table[r] is 0 for a rejected r >= n
 *   and K + d + 1 for an accepted one (K = 2**bits > 2n), so the sum over a run
 *   of words is taken * K + (sum of d + taken), both parts recovered exactly.
 * - A sample needs `left` more accepted draws, so the next min(left, words in
 *   the block) words cannot complete it early: they run as one unchecked batch,
 *   and only its end is checked (the sample ends there iff all were accepted).
 */
function bootstrapCountsFast(differences: Int8Array, samples: number, seed: bigint, counts: Uint32Array, useSimd: boolean): Uint32Array {
  const n = differences.length;
  const shift = Math.clz32(n);
  const bits = 33 - shift; // K = 2**bits > 2n; a batch sum stays below 624 * 2K < 2**31
  const low = 2 ** bits - 1;
  const table = new Int32Array(2 ** (32 - shift));
  for (let i = 0; i < n; i++) table[i] = 2 ** bits + differences[i]! + 1;
  const state = new MersenneTwister(seed).mt;
  // Where WebAssembly SIMD runs, the whole loop runs there (mt-simd.ts).
  const fast = useSimd ? simdBootstrapCounts(state, table, n, bits, shift, samples) : null;
  if (fast) return fast;
  // Otherwise the same in JavaScript.
  const words = new Int32Array(2 * N);
  words.set(new Int32Array(state.buffer, state.byteOffset, N));
  let left = n;
  let sum = 0;
  let done = 0;
  // A fresh generator has index N: the first draw twists.
  for (;;) {
    twistAndTemperJs(words, shift);
    let i = N;
    const blockEnd = 2 * N;
    while (i < blockEnd) {
      const end = Math.min(i + left, blockEnd);
      let batch = 0;
      for (; i < end; i++) batch += table[words[i]!]!;
      const taken = batch >>> bits;
      left -= taken;
      sum += (batch & low) - taken;
      if (left === 0) {
        counts[sum + n]!++;
        if (++done === samples) return counts;
        left = n;
        sum = 0;
      }
    }
  }
}

/** The JavaScript twin of the SIMD block: the state words[0..N) twisted, the r values in words[N..2N). */
function twistAndTemperJs(words: Int32Array, shift: number): void {
  twistInt32(words);
  for (let i = 0; i < N; i++) {
    let y = words[i]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    words[N + i] = y >>> shift;
  }
}
