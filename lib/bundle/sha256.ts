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

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

const IV = new Int32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);

/** Compress one 64-byte block (big-endian words already in w[0..15]) into state h. */
function compress(h: Int32Array, w: Int32Array): void {
  for (let j = 16; j < 64; j++) {
    const x = w[j - 15]!;
    const y = w[j - 2]!;
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    w[j] = (w[j - 16]! + s0 + w[j - 7]! + s1) | 0;
  }
  let a = h[0]!;
  let b = h[1]!;
  let c = h[2]!;
  let d = h[3]!;
  let e = h[4]!;
  let f = h[5]!;
  let g = h[6]!;
  let hh = h[7]!;
  for (let j = 0; j < 64; j++) {
    const t1 =
      (hh +
        (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) +
        ((e & f) ^ (~e & g)) +
        K[j]! +
        w[j]!) |
      0;
    const t2 =
      ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + ((a & b) ^ (a & c) ^ (b & c))) |
      0;
    hh = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  h[0] = (h[0]! + a) | 0;
  h[1] = (h[1]! + b) | 0;
  h[2] = (h[2]! + c) | 0;
  h[3] = (h[3]! + d) | 0;
  h[4] = (h[4]! + e) | 0;
  h[5] = (h[5]! + f) | 0;
  h[6] = (h[6]! + g) | 0;
  h[7] = (h[7]! + hh) | 0;
}

/** Load 16 big-endian words from bytes[offset..offset+64) into w[0..15]. */
function loadWords(w: Int32Array, bytes: Uint8Array, offset: number): void {
  for (let j = 0; j < 16; j++) {
    const o = offset + 4 * j;
    w[j] = (bytes[o]! << 24) | (bytes[o + 1]! << 16) | (bytes[o + 2]! << 8) | bytes[o + 3]!;
  }
}

/** Hashes `prefix + decimal(i)` for any block index i, reusing the prefix's midstate. */
export class PrefixHasher {
  private readonly mid = new Int32Array(8);
  private readonly state = new Int32Array(8);
  private readonly w = new Int32Array(64);
  /** Tail buffer: prefix remainder, digits, padding; at most two blocks. */
  private readonly tail = new Uint8Array(128);
  private readonly tailStart: number;
  private readonly prefixLength: number;

  constructor(prefix: Uint8Array) {
    this.prefixLength = prefix.length;
    this.mid.set(IV);
    const full = Math.floor(prefix.length / 64);
    for (let k = 0; k < full; k++) {
      loadWords(this.w, prefix, 64 * k);
      compress(this.mid, this.w);
    }
    this.tail.set(prefix.subarray(64 * full));
    this.tailStart = prefix.length - 64 * full;
  }

  /** Write SHA-256(prefix + decimal(index)) into out[offset..offset+32). index: safe non-negative integer. */
  digest(index: number, out: Uint8Array, offset: number): void {
    const tail = this.tail;
    // Decimal digits of index, most significant first.
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

    const h = this.state;
    h.set(this.mid);
    loadWords(this.w, tail, 0);
    compress(h, this.w);
    if (blocks === 2) {
      loadWords(this.w, tail, 64);
      compress(h, this.w);
    }
    for (let j = 0; j < 8; j++) {
      const v = h[j]!;
      const o = offset + 4 * j;
      out[o] = v >>> 24;
      out[o + 1] = v >>> 16;
      out[o + 2] = v >>> 8;
      out[o + 3] = v;
    }
  }

  /** Fill out[offset..) with the digests of blocks first..first+count-1, 32 bytes each. */
  fill(first: number, count: number, out: Uint8Array, offset: number): void {
    for (let k = 0; k < count; k++) this.digest(first + k, out, offset + 32 * k);
  }
}
