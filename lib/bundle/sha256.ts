import {IN, MID, OUT, SIMD_GROUPS, simdKernel, type SimdKernel} from './sha256-simd.js';

/**
 * SHA-256 of the short messages the stream hashes, in plain JavaScript.
 *
 * The stream hashes `SPEC|seed|i` for i = 0, 1, 2, …: millions of tiny
 * messages that share a prefix. `crypto.hash` costs more in per-call overhead
 * than the hash itself (about 16 MB/s of output), so this module keeps the
 * midstate of the prefix's full 64-byte blocks and compresses only the tail
 * (prefix remainder, decimal digits of i, padding): one or two compressions
 * per block, no allocation.
 */

const IV = new Int32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);

/** The round constants, as the signed 32-bit words the rounds add. */
const K = Int32Array.from(
  [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74,
    0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d,
    0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e,
    0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
    0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  ],
  (k) => k | 0,
);

/** The message schedule of the block being compressed (one per thread: compress never re-enters). */
const schedule = new Int32Array(64);
/** K[j] + schedule[j], the sum each round adds. */
const scheduleK = new Int32Array(64);

// BEGIN GENERATED
/** Compress one 64-byte block (big-endian words in w[0..15]) into state s. Generated: see tools/gen-sha256-rounds.mjs. */
function compress(s: Int32Array, w: Int32Array): void {
  const m = schedule;
  // Each round adds K[j] + m[j]: km holds the sums, one load a round instead of two.
  const km = scheduleK;
  for (let j = 0; j < 16; j++) {
    m[j] = w[j]! | 0;
    km[j] = (K[j]! + m[j]!) | 0;
  }
  // m[j] = sigma1(m[j-2]) + m[j-7] + sigma0(m[j-15]) + m[j-16]
  for (let j = 16; j < 64; j++) {
    const x = m[j - 15]!,
      y = m[j - 2]!;
    m[j] =
      (m[j - 16]! +
        (((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3)) +
        m[j - 7]! +
        (((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10))) |
      0;
    km[j] = (K[j]! + m[j]!) | 0;
  }
  let a = s[0]! | 0,
    b = s[1]! | 0,
    c = s[2]! | 0,
    d = s[3]! | 0,
    e = s[4]! | 0,
    f = s[5]! | 0,
    g = s[6]! | 0,
    h = s[7]! | 0;
  let t1 = 0,
    t2 = 0;
  for (let j = 0; j < 64; j += 8) {
    t1 = (h + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + ((e & f) ^ (~e & g)) + km[j]!) | 0;
    t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    d = (d + t1) | 0;
    h = (t1 + t2) | 0;
    t1 = (g + (((d >>> 6) | (d << 26)) ^ ((d >>> 11) | (d << 21)) ^ ((d >>> 25) | (d << 7))) + ((d & e) ^ (~d & f)) + km[j + 1]!) | 0;
    t2 = ((((h >>> 2) | (h << 30)) ^ ((h >>> 13) | (h << 19)) ^ ((h >>> 22) | (h << 10))) + ((h & a) ^ (h & b) ^ (a & b))) | 0;
    c = (c + t1) | 0;
    g = (t1 + t2) | 0;
    t1 = (f + (((c >>> 6) | (c << 26)) ^ ((c >>> 11) | (c << 21)) ^ ((c >>> 25) | (c << 7))) + ((c & d) ^ (~c & e)) + km[j + 2]!) | 0;
    t2 = ((((g >>> 2) | (g << 30)) ^ ((g >>> 13) | (g << 19)) ^ ((g >>> 22) | (g << 10))) + ((g & h) ^ (g & a) ^ (h & a))) | 0;
    b = (b + t1) | 0;
    f = (t1 + t2) | 0;
    t1 = (e + (((b >>> 6) | (b << 26)) ^ ((b >>> 11) | (b << 21)) ^ ((b >>> 25) | (b << 7))) + ((b & c) ^ (~b & d)) + km[j + 3]!) | 0;
    t2 = ((((f >>> 2) | (f << 30)) ^ ((f >>> 13) | (f << 19)) ^ ((f >>> 22) | (f << 10))) + ((f & g) ^ (f & h) ^ (g & h))) | 0;
    a = (a + t1) | 0;
    e = (t1 + t2) | 0;
    t1 = (d + (((a >>> 6) | (a << 26)) ^ ((a >>> 11) | (a << 21)) ^ ((a >>> 25) | (a << 7))) + ((a & b) ^ (~a & c)) + km[j + 4]!) | 0;
    t2 = ((((e >>> 2) | (e << 30)) ^ ((e >>> 13) | (e << 19)) ^ ((e >>> 22) | (e << 10))) + ((e & f) ^ (e & g) ^ (f & g))) | 0;
    h = (h + t1) | 0;
    d = (t1 + t2) | 0;
    t1 = (c + (((h >>> 6) | (h << 26)) ^ ((h >>> 11) | (h << 21)) ^ ((h >>> 25) | (h << 7))) + ((h & a) ^ (~h & b)) + km[j + 5]!) | 0;
    t2 = ((((d >>> 2) | (d << 30)) ^ ((d >>> 13) | (d << 19)) ^ ((d >>> 22) | (d << 10))) + ((d & e) ^ (d & f) ^ (e & f))) | 0;
    g = (g + t1) | 0;
    c = (t1 + t2) | 0;
    t1 = (b + (((g >>> 6) | (g << 26)) ^ ((g >>> 11) | (g << 21)) ^ ((g >>> 25) | (g << 7))) + ((g & h) ^ (~g & a)) + km[j + 6]!) | 0;
    t2 = ((((c >>> 2) | (c << 30)) ^ ((c >>> 13) | (c << 19)) ^ ((c >>> 22) | (c << 10))) + ((c & d) ^ (c & e) ^ (d & e))) | 0;
    f = (f + t1) | 0;
    b = (t1 + t2) | 0;
    t1 = (a + (((f >>> 6) | (f << 26)) ^ ((f >>> 11) | (f << 21)) ^ ((f >>> 25) | (f << 7))) + ((f & g) ^ (~f & h)) + km[j + 7]!) | 0;
    t2 = ((((b >>> 2) | (b << 30)) ^ ((b >>> 13) | (b << 19)) ^ ((b >>> 22) | (b << 10))) + ((b & c) ^ (b & d) ^ (c & d))) | 0;
    e = (e + t1) | 0;
    a = (t1 + t2) | 0;
  }
  s[0] = (s[0]! + a) | 0;
  s[1] = (s[1]! + b) | 0;
  s[2] = (s[2]! + c) | 0;
  s[3] = (s[3]! + d) | 0;
  s[4] = (s[4]! + e) | 0;
  s[5] = (s[5]! + f) | 0;
  s[6] = (s[6]! + g) | 0;
  s[7] = (s[7]! + h) | 0;
}
// END GENERATED

/** Load 16 big-endian words from bytes[offset..offset+64) into w[0..15]. */
function loadWords(w: Int32Array, bytes: Uint8Array, offset: number): void {
  for (let j = 0; j < 16; j++) {
    const o = offset + 4 * j;
    w[j] = (bytes[o]! << 24) | (bytes[o + 1]! << 16) | (bytes[o + 2]! << 8) | bytes[o + 3]!;
  }
}

/** Draws of at least this many blocks use the four-lane WebAssembly kernel. */
const SIMD_MIN_BLOCKS = 12;

/** Hashes `prefix + decimal(i)` for any block index i, reusing the prefix's midstate. */
export class PrefixHasher {
  private readonly mid = new Int32Array(8);
  private readonly state = new Int32Array(8);
  /** Tail buffer: prefix remainder, digits, padding; at most two blocks. */
  private readonly tail = new Uint8Array(128);
  /** The tail's big-endian words: block 1 in words[0..15], block 2 in words[16..31]. */
  private readonly words = new Int32Array(32);
  private readonly block1 = this.words.subarray(0, 16);
  private readonly block2 = this.words.subarray(16, 32);
  private readonly tailStart: number;
  private readonly prefixLength: number;
  /** The index whose digits the tail holds (-1: none), its digit count, and its block count. */
  private current = -1;
  private digits = 0;
  private blocks = 1;

  constructor(prefix: Uint8Array) {
    this.prefixLength = prefix.length;
    this.mid.set(IV);
    const full = Math.floor(prefix.length / 64);
    const w = new Int32Array(16);
    for (let k = 0; k < full; k++) {
      loadWords(w, prefix, 64 * k);
      compress(this.mid, w);
    }
    this.tail.set(prefix.subarray(64 * full));
    this.tailStart = prefix.length - 64 * full;
  }

  /** Write the tail (digits of index, padding, bit length) and its words. */
  private setIndex(index: number): void {
    const tail = this.tail;
    let digits = 1;
    for (let v = index; v >= 10; v = Math.floor(v / 10)) digits++;
    let p = this.tailStart + digits;
    for (let v = index, q = p - 1; q >= this.tailStart; q--) {
      const next = Math.floor(v / 10);
      tail[q] = 48 + (v - next * 10);
      v = next;
    }
    tail[p++] = 0x80;
    const blocks = p + 8 <= 64 ? 1 : 2;
    const end = 64 * blocks;
    tail.fill(0, p, end - 8);
    // Message length in bits; below 2^53, so the high word is bits / 2^32.
    const bitLength = (this.prefixLength + digits) * 8;
    const high = Math.floor(bitLength / 0x100000000);
    const low = bitLength >>> 0;
    tail[end - 8] = high >>> 24;
    tail[end - 7] = high >>> 16;
    tail[end - 6] = high >>> 8;
    tail[end - 5] = high;
    tail[end - 4] = low >>> 24;
    tail[end - 3] = low >>> 16;
    tail[end - 2] = low >>> 8;
    tail[end - 1] = low;
    loadWords(this.block1, tail, 0);
    if (blocks === 2) loadWords(this.block2, tail, 64);
    this.current = index;
    this.digits = digits;
    this.blocks = blocks;
  }

  /** Move the tail from `current` to `current + 1` by a decimal increment; false when the digit count grows. */
  private increment(): boolean {
    const tail = this.tail;
    const start = this.tailStart;
    let p = start + this.digits - 1;
    while (p >= start && tail[p] === 57) {
      tail[p] = 48;
      p--;
    }
    if (p < start) return false;
    tail[p]!++;
    const last = (start + this.digits - 1) >> 2;
    const words = this.words;
    for (let j = p >> 2; j <= last; j++) {
      const o = 4 * j;
      words[j] = (tail[o]! << 24) | (tail[o + 1]! << 16) | (tail[o + 2]! << 8) | tail[o + 3]!;
    }
    this.current++;
    return true;
  }

  /** Write SHA-256(prefix + decimal(index)) into out[offset..offset+32). index: safe non-negative integer. */
  digest(index: number, out: Uint8Array, offset: number): void {
    if (index !== this.current && !(index === this.current + 1 && this.increment())) this.setIndex(index);
    const s = this.state;
    s.set(this.mid);
    compress(s, this.block1);
    if (this.blocks === 2) compress(s, this.block2);
    // Byte by byte: a DataView per 32-byte digest would cost more than the writes.
    for (let j = 0; j < 8; j++) {
      const v = s[j]!;
      const o = offset + 4 * j;
      out[o] = v >>> 24;
      out[o + 1] = v >>> 16;
      out[o + 2] = v >>> 8;
      out[o + 3] = v;
    }
  }

  /** Fill out[offset..) with the digests of blocks first..first+count-1, 32 bytes each. */
  fill(first: number, count: number, out: Uint8Array, offset: number): void {
    if (count <= 0) return;
    if (count === 1) {
      this.digest(first, out, offset);
      return;
    }
    const simd = count >= SIMD_MIN_BLOCKS ? simdKernel() : undefined;
    if (simd) {
      this.fillSimd(simd, first, count, out, offset);
      return;
    }
    const view = new DataView(out.buffer, out.byteOffset + offset, 32 * count);
    const s = this.state;
    const mid = this.mid;
    for (let k = 0; k < count; k++) {
      const index = first + k;
      if (index !== this.current && !(index === this.current + 1 && this.increment())) this.setIndex(index);
      s[0] = mid[0]!;
      s[1] = mid[1]!;
      s[2] = mid[2]!;
      s[3] = mid[3]!;
      s[4] = mid[4]!;
      s[5] = mid[5]!;
      s[6] = mid[6]!;
      s[7] = mid[7]!;
      compress(s, this.block1);
      if (this.blocks === 2) compress(s, this.block2);
      const o = 32 * k;
      view.setInt32(o, s[0]!);
      view.setInt32(o + 4, s[1]!);
      view.setInt32(o + 8, s[2]!);
      view.setInt32(o + 12, s[3]!);
      view.setInt32(o + 16, s[4]!);
      view.setInt32(o + 20, s[5]!);
      view.setInt32(o + 24, s[6]!);
      view.setInt32(o + 28, s[7]!);
    }
  }

  /** fill() through the SIMD kernel: batches of up to 256 messages with the same block count. */
  private fillSimd(k: SimdKernel, first: number, count: number, out: Uint8Array, offset: number): void {
    const memory = k.words;
    const mid = this.mid;
    for (let w = 0; w < 8; w++) {
      const at = (MID >> 2) + 4 * w;
      memory[at] = memory[at + 1] = memory[at + 2] = memory[at + 3] = mid[w]!;
    }
    const tail = this.words;
    const layout = k.layout;
    // Only the words holding the digits change from one index to the next with the same digit
    // count; the rest of each slot's words (prefix tail, padding, length) stay in IN between batches.
    const firstDigitWord = this.tailStart >> 2;
    let done = 0;
    while (done < count) {
      let n = 0;
      let blocks = 0;
      let full = 0; // slots below `full` already hold this layout's constant words
      let lastDigitWord = 0;
      let digits = 0;
      while (done + n < count && n < 4 * SIMD_GROUPS) {
        const index = first + done + n;
        if (index !== this.current && !(index === this.current + 1 && this.increment())) this.setIndex(index);
        if (blocks === 0) {
          blocks = this.blocks;
          digits = this.digits;
          const same = layout.owner === this && layout.digits === digits && layout.blocks === blocks;
          full = same ? layout.slots : 0;
          lastDigitWord = (this.tailStart + this.digits - 1) >> 2;
        } else if (this.digits !== digits) {
          break; // the digit count grew (new padding and length words): next batch
        }
        const base = (IN >> 2) + (n >> 2) * blocks * 64 + (n & 3);
        if (n < full) {
          for (let j = firstDigitWord; j <= lastDigitWord; j++) memory[base + 4 * j] = tail[j]!;
        } else {
          const words = 16 * blocks;
          for (let j = 0; j < words; j++) memory[base + 4 * j] = tail[j]!;
        }
        n++;
      }
      if (!(layout.owner === this && layout.digits === digits && layout.blocks === blocks)) layout.slots = 0;
      layout.owner = this;
      layout.digits = digits;
      layout.blocks = blocks;
      layout.slots = Math.max(layout.slots, n);
      k.hash((n + 3) >> 2, blocks);
      out.set(k.bytes.subarray(OUT, OUT + 32 * n), offset + 32 * done);
      done += n;
    }
  }
}
