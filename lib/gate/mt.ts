/**
 * Python's `random.Random`: MT19937 seeded by `init_by_array` with the 32-bit
 * little-endian words of |seed|, and `choice` by `getrandbits` rejection.
 */

const N = 624;
const M = 397;

/** The 32-bit little-endian words of |seed| (at least one word), as CPython's random_seed. */
export function seedKey(seed: bigint): number[] {
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
 *
 * The hot loop keeps the state in an Int32Array and walks each twisted block
 * once: every word is tempered and its top bits index two small tables
 * (accepted? and the difference), so the loop has no data-dependent branch.
 */
export function bootstrapCounts(differences: Int8Array, samples: number, seed: bigint): Uint32Array {
  const n = differences.length;
  const counts = new Uint32Array(2 * n + 1);
  if (samples <= 0 || n === 0) return counts;
  const mt = new Int32Array(new MersenneTwister(seed).mt.buffer.slice(0));
  const shift = Math.clz32(n);
  // getrandbits(k) is below 2**k: r < n is accepted, the rest redrawn.
  const accepted = new Uint8Array(2 ** (32 - shift));
  const value = new Int8Array(2 ** (32 - shift));
  for (let i = 0; i < n; i++) {
    accepted[i] = 1;
    value[i] = differences[i]!;
  }
  let taken = 0;
  let sum = 0;
  let done = 0;
  // A fresh generator has index N: the first draw twists.
  for (;;) {
    twistInt32(mt);
    for (let i = 0; i < N; i++) {
      let y = mt[i]!;
      y ^= y >>> 11;
      y ^= (y << 7) & 0x9d2c5680;
      y ^= (y << 15) & 0xefc60000;
      y ^= y >>> 18;
      const r = y >>> shift;
      sum += value[r]!;
      taken += accepted[r]!;
      if (taken === n) {
        counts[sum + n]!++;
        if (++done === samples) return counts;
        taken = 0;
        sum = 0;
      }
    }
  }
}
