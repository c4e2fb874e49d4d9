/**
 * The bundle's random stream (see lib/bundle/README.md, "The stream").
 *
 * For specification reference SPEC and seed s, block i is SHA-256 of the UTF-8
 * text `SPEC|s|i`; the stream is block 0, block 1, … concatenated and consumed
 * strictly in order. Every drawing method is defined on top of `bytes`, with
 * integer arithmetic and exact IEEE conversions only, so that another language
 * can reproduce every draw bit for bit.
 */
import {TENSOR_ARRAYS} from './tensor-arrays.js';
import {PrefixHasher} from './sha256.js';
import {fillParallel, PARALLEL_THRESHOLD} from './stream-parallel.js';

/** The integer element types and their typed-array classes (the codec's table without the floats). */
const {f32: _f32, f64: _f64, ...INT_ARRAYS} = TENSOR_ARRAYS;

/** An integer element type name. */
export type IntType = keyof typeof INT_ARRAYS;

const TWO53 = 2 ** 53;
const TWO24 = 2 ** 24;
/** Most blocks a refill hashes ahead (2 KiB). */
const MAX_WINDOW = 64;
/** Largest modulus for which `below` can run in exact double arithmetic (r * 256 + 255 < 2^53). */
const FAST_BELOW = 2 ** 45;

/** Number of bits needed to write n >= 1 in binary. */
export function bitLength(n: bigint): number {
  return n.toString(2).length;
}

/** A seekable, deterministic byte stream for one (SPEC, seed). */
export class Stream {
  /** The specification reference the stream is keyed on. */
  readonly spec: string;
  /** The seed: a number up to 2^53 - 1, a bigint above (exact either way). */
  readonly seed: number | bigint;
  private readonly hasher: PrefixHasher;
  /**
   * Blocks `base` .. `base + filled / 32 - 1` of the stream, hashed ahead: small
   * draws (a few bytes each) are served from here, and each refill hashes twice
   * as many blocks as the last, up to `MAX_WINDOW`, so a long run of small draws
   * costs what one large draw does while a short one hashes little it never uses.
   */
  private readonly buffer = new Uint8Array(MAX_WINDOW * 32);
  /** Index of the first block in `buffer`. */
  private base = 0;
  /** Bytes of `buffer` that hold hashed blocks. */
  private filled = 0;
  /** Bytes of `buffer` already consumed; past the first block after a seek with no refill yet. */
  private used = 0;
  /** Blocks the next refill hashes. */
  private window = 1;
  private readonly scratch = new Uint8Array(64);

  /** A stream positioned at byte `position` (default 0). */
  constructor(spec: string, seed: number | bigint, position = 0) {
    if (typeof seed === 'bigint') {
      if (seed < 0n) throw new RangeError(`seed must be a non-negative integer, got ${seed}`);
      if (seed <= BigInt(Number.MAX_SAFE_INTEGER)) seed = Number(seed);
    } else if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`seed must be a non-negative integer, got ${seed}`);
    this.spec = spec;
    this.seed = seed;
    this.hasher = new PrefixHasher(new TextEncoder().encode(`${spec}|${seed}|`));
    this.seek(position);
  }

  /** Bytes consumed so far. */
  get position(): number {
    return this.base * 32 + this.used;
  }

  /** Move to byte `position` of the stream (the stream is seekable: block i depends on i only). */
  seek(position: number): void {
    if (!Number.isSafeInteger(position) || position < 0) throw new RangeError(`position must be a non-negative integer`);
    this.base = Math.floor(position / 32);
    this.used = position - this.base * 32;
    this.filled = 0;
    this.window = 1;
  }

  /** The next n bytes of the stream. */
  bytes(n: number): Uint8Array {
    checkCount(n, 'bytes');
    const out = new Uint8Array(n);
    this.fill(out);
    return out;
  }

  /** Fill `out` with the next out.length bytes. */
  fill(out: Uint8Array): Uint8Array {
    const n = out.length;
    let done = 0;
    for (;;) {
      if (this.used < this.filled) {
        const take = Math.min(this.filled - this.used, n - done);
        if (take <= 16) {
          // Small draws: a plain loop beats creating a subarray.
          const buffer = this.buffer;
          for (let j = 0, u = this.used; j < take; j++) out[done + j] = buffer[u + j]!;
        } else {
          out.set(this.buffer.subarray(this.used, this.used + take), done);
        }
        this.used += take;
        done += take;
      }
      if (done === n) return out;
      // The buffer is used up (or empty after a seek, `used` then being the offset into block `base`).
      this.base += this.filled / 32;
      this.used -= this.filled;
      this.filled = 0;
      const whole = this.used === 0 ? Math.floor((n - done) / 32) : 0;
      if (whole > 0) {
        // Whole blocks go straight into `out`, in parallel when there are many.
        if (whole * 32 >= PARALLEL_THRESHOLD) fillParallel(this.spec, this.seed, this.base, whole, out, done);
        else this.hasher.fill(this.base, whole, out, done);
        this.base += whole;
        done += whole * 32;
        if (done === n) return out;
      }
      this.refill();
    }
  }

  /** Hash the next `window` blocks from `base` into the buffer, and double the window. */
  private refill(): void {
    const count = this.window;
    if (count === 1) this.hasher.digest(this.base, this.buffer, 0);
    else this.hasher.fill(this.base, count, this.buffer, 0);
    this.filled = count * 32;
    this.window = Math.min(MAX_WINDOW, count * 2);
  }

  /** The next ⌈k/8⌉ bytes as a little-endian unsigned integer, keeping its low k bits. */
  bits(k: number): bigint {
    checkCount(k, 'bits');
    const count = Math.ceil(k / 8);
    if (k <= 53) {
      // Up to 53 bits the value is exact in a double: no hex string to build and parse.
      const raw = this.fill(this.scratch.subarray(0, count));
      const top = k - 8 * (count - 1);
      let value = count === 0 ? 0 : raw[count - 1]! & ((1 << top) - 1);
      for (let j = count - 2; j >= 0; j--) value = value * 256 + raw[j]!;
      return BigInt(value);
    }
    const raw = count <= 64 ? this.fill(this.scratch.subarray(0, count)) : this.bytes(count);
    let hex = '';
    for (let j = count - 1; j >= 0; j--) hex += HEX[raw[j]!];
    const value = count === 0 ? 0n : BigInt('0x' + hex);
    return k % 8 === 0 ? value : value & ((1n << BigInt(k)) - 1n);
  }

  /** bits(bitLength(n) + 64) mod n: a uniform integer in [0, n) with bias below 2^-64. */
  below(n: bigint | number): bigint {
    if (typeof n === 'number') {
      if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`below(n) needs an integer n >= 1, got ${n}`);
      if (n <= FAST_BELOW) return BigInt(this.belowNumber(n));
      n = BigInt(n);
    }
    if (n < 1n) throw new RangeError(`below(n) needs n >= 1, got ${n}`);
    return this.bits(bitLength(n) + 64) % n;
  }

  /** below(n) for a number n in [1, 2^45], computed in exact double arithmetic (same value). */
  private belowNumber(n: number): number {
    const bl = numberBitLength(n) + 64;
    const count = Math.ceil(bl / 8);
    const raw = this.fill(this.scratch.subarray(0, count));
    const topBits = bl % 8;
    let r = topBits === 0 ? raw[count - 1]! : raw[count - 1]! & ((1 << topBits) - 1);
    r %= n;
    for (let j = count - 2; j >= 0; j--) r = (r * 256 + raw[j]!) % n;
    return r;
  }

  /** A uniform integer in [lo, hi] (inclusive): lo + below(hi - lo + 1). Safe integers only. */
  int(lo: number, hi: number): number {
    if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || lo > hi) {
      throw new RangeError(`int(lo, hi) needs safe integers lo <= hi, got ${lo}, ${hi}`);
    }
    const span = hi - lo + 1;
    if (Number.isSafeInteger(span) && span <= FAST_BELOW) return lo + this.belowNumber(span);
    return Number(BigInt(lo) + this.below(BigInt(hi) - BigInt(lo) + 1n));
  }

  /** A uniform bigint in [lo, hi] (inclusive): lo + below(hi - lo + 1). */
  bigint(lo: bigint, hi: bigint): bigint {
    if (lo > hi) throw new RangeError(`bigint(lo, hi) needs lo <= hi, got ${lo}, ${hi}`);
    return lo + this.below(hi - lo + 1n);
  }

  /** bits(1) === 1 (consumes one byte). */
  bool(): boolean {
    return (this.fill(this.scratch.subarray(0, 1))[0]! & 1) === 1;
  }

  /** bits(53) / 2^53: an exact double in [0, 1) (consumes 7 bytes). */
  float64(): number {
    return take53(this.fill(this.scratch.subarray(0, 7)), 0) / TWO53;
  }

  /** bits(24) / 2^24: a value in [0, 1) exactly representable as float32 (consumes 3 bytes). */
  float32(): number {
    const b = this.fill(this.scratch.subarray(0, 3));
    return (b[0]! | (b[1]! << 8) | (b[2]! << 16)) / TWO24;
  }

  /** lo + (hi - lo) * float64(), evaluated in IEEE double arithmetic in that order. */
  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.float64();
  }

  /** A Float64Array of `length` values; element j = lo + (hi - lo) * float64() (plain float64() when lo = 0, hi = 1). */
  float64s(length: number, lo = 0, hi = 1): Float64Array {
    checkCount(length, 'float64s');
    const out = new Float64Array(length);
    // Chunks of 14 MiB of stream bytes: large enough for the two-thread path, small next to the result.
    const chunk = 1 << 21;
    const raw = new Uint8Array(7 * Math.min(chunk, length));
    const plain = lo === 0 && hi === 1;
    const width = hi - lo;
    for (let start = 0; start < length; start += chunk) {
      const m = Math.min(chunk, length - start);
      const bytes = this.fill(raw.subarray(0, 7 * m));
      for (let j = 0; j < m; j++) {
        const u = take53(bytes, 7 * j) / TWO53;
        out[start + j] = plain ? u : lo + width * u;
      }
    }
    return out;
  }

  /** A Float32Array of `length` values; element j = fround(lo + (hi - lo) * float32()) (plain float32() when lo = 0, hi = 1). */
  float32s(length: number, lo = 0, hi = 1): Float32Array {
    checkCount(length, 'float32s');
    const out = new Float32Array(length);
    const chunk = 1 << 22;
    const raw = new Uint8Array(3 * Math.min(chunk, length));
    const plain = lo === 0 && hi === 1;
    const width = hi - lo;
    for (let start = 0; start < length; start += chunk) {
      const m = Math.min(chunk, length - start);
      const b = this.fill(raw.subarray(0, 3 * m));
      for (let j = 0; j < m; j++) {
        const o = 3 * j;
        const u = (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16)) / TWO24;
        out[start + j] = plain ? u : lo + width * u;
      }
    }
    return out;
  }

  /**
   * `length` integers of element type `type`. Without a range: the next length × width bytes read as
   * little-endian values of that type (every bit pattern, full range). With [lo, hi]: element j = int(lo, hi)
   * (bigint(lo, hi) for i64/u64), drawn in order.
   */
  ints(type: IntType, length: number, lo?: number | bigint, hi?: number | bigint) {
    checkCount(length, 'ints');
    const Ctor = INT_ARRAYS[type];
    if (!Ctor) throw new RangeError(`ints: unknown integer type ${String(type)}`);
    if (lo === undefined || hi === undefined) {
      const raw = this.bytes(length * Ctor.BYTES_PER_ELEMENT);
      return toLittleEndianArray(type, raw, length);
    }
    const bits = 8n * BigInt(Ctor.BYTES_PER_ELEMENT);
    const signed = type.startsWith('i');
    const min = signed ? -(1n << (bits - 1n)) : 0n;
    const max = signed ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
    if (BigInt(lo) < min || BigInt(hi) > max || BigInt(lo) > BigInt(hi)) {
      throw new RangeError(`ints(${type}, n, lo, hi) needs ${min} <= lo <= hi <= ${max}, got ${lo}, ${hi}`);
    }
    const out = new Ctor(length);
    if (Ctor === BigInt64Array || Ctor === BigUint64Array) {
      const big = out as BigInt64Array | BigUint64Array;
      const l = BigInt(lo);
      const h = BigInt(hi);
      for (let j = 0; j < length; j++) big[j] = this.bigint(l, h);
    } else {
      const small = out as Exclude<typeof out, BigInt64Array | BigUint64Array>;
      const l = Number(lo);
      const h = Number(hi);
      for (let j = 0; j < length; j++) small[j] = this.int(l, h);
    }
    return out;
  }

  /** Fisher–Yates in place: for i = length-1 down to 1, j = below(i + 1), swap items i and j. Returns the array. */
  shuffle<T extends {length: number; [index: number]: unknown}>(array: T): T {
    for (let i = array.length - 1; i >= 1; i--) {
      const j = i + 1 <= FAST_BELOW ? this.belowNumber(i + 1) : Number(this.below(i + 1));
      const t = array[i];
      array[i] = array[j];
      array[j] = t;
    }
    return array;
  }

  /** shuffle of [0, 1, …, n-1] as an Int32Array (n < 2^31). */
  permutation(n: number): Int32Array {
    checkCount(n, 'permutation');
    const out = new Int32Array(n);
    for (let j = 0; j < n; j++) out[j] = j;
    return this.shuffle(out);
  }
}

const HEX = Array.from({length: 256}, (_, v) => v.toString(16).padStart(2, '0'));

function numberBitLength(n: number): number {
  let bits = 0;
  while (n >= 0x100000000) {
    n = Math.floor(n / 0x100000000);
    bits += 32;
  }
  return bits + (32 - Math.clz32(n));
}

/** The low 53 bits of the 7 little-endian bytes at raw[o..o+7), as an exact number. */
function take53(raw: Uint8Array, o: number): number {
  const low = (raw[o]! | (raw[o + 1]! << 8) | (raw[o + 2]! << 16) | (raw[o + 3]! << 24)) >>> 0;
  const high = raw[o + 4]! | (raw[o + 5]! << 8) | ((raw[o + 6]! & 0x1f) << 16);
  return high * 0x100000000 + low;
}

function checkCount(n: number, what: string): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${what}(n) needs a non-negative integer, got ${n}`);
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** View little-endian bytes as a typed array of `type` (byte-swapping on a big-endian host). */
function toLittleEndianArray(type: IntType, raw: Uint8Array, length: number) {
  const Ctor = INT_ARRAYS[type];
  if (!LITTLE_ENDIAN) {
    const width = Ctor.BYTES_PER_ELEMENT;
    for (let o = 0; o < raw.length; o += width) raw.subarray(o, o + width).reverse();
  }
  return new Ctor(raw.buffer as ArrayBuffer, raw.byteOffset, length);
}
