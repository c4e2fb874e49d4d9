/**
 * Four SHA-256 compressions at once in WebAssembly SIMD (i32x4 lanes), for the stream's
 * long draws. The module is assembled here, byte by byte, on first use (no binary blob,
 * no build step); where WebAssembly SIMD is missing, `simdKernel()` returns undefined and
 * the plain JavaScript compression does the work.
 *
 * Memory layout (one 64 KiB page):
 *   MID  [0, 128)        the midstate, word k splatted to the 4 lanes of v128 k
 *   IN   [1024, 33792)   per group of 4 messages, per block, word j as the v128 of the 4 lanes
 *   OUT  [33792, 41984)  per group, the 4 digests, 32 bytes each, in message order
 * hash(groups, blocks) compresses `blocks` blocks for each of `groups` groups.
 */
import {moduleHeader, uleb, section, BLOCK, LOOP, END, BR, BR_IF, LOCAL_GET, LOCAL_SET, VOID, I32_CONST, I32_LT_U, I32_GE_U, I32_ADD} from '../wasm.js';

// The ES2023 lib and @types/node 20 do not declare WebAssembly; this is the little used here.
interface WasmMemory {
  buffer: ArrayBuffer;
}
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => {exports: Record<string, unknown>};
};

/** Groups of four messages one call can take. */
export const SIMD_GROUPS = 64;
export const MID = 0;
export const IN = 1024;
export const OUT = IN + SIMD_GROUPS * 2 * 256;

const K = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74,
  0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d,
  0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e,
  0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
  0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

// SIMD opcodes, each after the 0xfd prefix (the core opcodes come from lib/wasm.ts).
const SIMD = {load: 0x00, store: 0x0b, const: 0x0c, shuffle: 0x0d, and: 0x4e, or: 0x50, xor: 0x51, bitselect: 0x52, shl: 0xab, shrU: 0xad, add: 0xae};

// Locals: params groups=0, blocks=1; i32 g=2, b=3, inPtr=4, outPtr=5; v128 from 6: the state S,
// the working variables V (a..h), the message ring W, t1, one spare (X, kept so that the local
// count, and so the module's bytes, stay as they were), and the transpose's temporaries T.
const GROUPS = 0;
const BLOCKS = 1;
const G = 2;
const B = 3;
const INP = 4;
const OUTP = 5;
const S = [6, 7, 8, 9, 10, 11, 12, 13];
const V = [14, 15, 16, 17, 18, 19, 20, 21];
const W = Array.from({length: 16}, (_, j) => 22 + j);
const T1 = 38;
const T = [40, 41, 42, 43];
const V128_LOCALS = 44 - 6;

/**
 * The function body's bytes, written straight into one typed array: this runs once per process,
 * in V8's interpreter, and an array per instruction (rest arguments, spreads, LEB128 arrays) made
 * it cost 50 ms, most of it garbage collection, before a make's first draw.
 */
class Emitter {
  code = new Uint8Array(1 << 15);
  length = 0;

  byte(b: number): void {
    if (this.length === this.code.length) {
      const grown = new Uint8Array(2 * this.length);
      grown.set(this.code);
      this.code = grown;
    }
    this.code[this.length++] = b;
  }

  leb(n: number): void {
    do {
      let b = n & 0x7f;
      n >>>= 7;
      if (n !== 0) b |= 0x80;
      this.byte(b);
    } while (n !== 0);
  }

  op(...bytes: number[]): void {
    for (const b of bytes) this.byte(b);
  }

  simd(opcode: number): void {
    this.byte(0xfd);
    this.leb(opcode);
  }

  get(l: number): void {
    this.byte(LOCAL_GET);
    this.leb(l);
  }

  set(l: number): void {
    this.byte(LOCAL_SET);
    this.leb(l);
  }

  /** i32.const n, n as signed LEB128. */
  i32(n: number): void {
    this.byte(I32_CONST);
    for (;;) {
      const b = n & 0x7f;
      n >>= 7;
      if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return this.byte(b);
      this.byte(b | 0x80);
    }
  }

  /** v128.load or v128.store at `offset`, 16-byte aligned. */
  memory(opcode: number, offset: number): void {
    this.simd(opcode);
    this.byte(4);
    this.leb(offset);
  }

  /** Push local l rotated right by n bits in every lane. */
  rotr(l: number, n: number): void {
    this.get(l);
    this.i32(n);
    this.simd(SIMD.shrU);
    this.get(l);
    this.i32(32 - n);
    this.simd(SIMD.shl);
    this.simd(SIMD.or);
  }

  /** Push rotr(l, p) ^ rotr(l, q) ^ rotr(l, r): the Sigma functions of the rounds. */
  sigma(l: number, p: number, q: number, r: number): void {
    this.rotr(l, p);
    this.rotr(l, q);
    this.simd(SIMD.xor);
    this.rotr(l, r);
    this.simd(SIMD.xor);
  }

  /** Push rotr(l, p) ^ rotr(l, q) ^ (l >>> shift): the sigma functions of the message schedule. */
  smallSigma(l: number, p: number, q: number, shift: number): void {
    this.rotr(l, p);
    this.rotr(l, q);
    this.simd(SIMD.xor);
    this.get(l);
    this.i32(shift);
    this.simd(SIMD.shrU);
    this.simd(SIMD.xor);
  }

  /** Push `value` in all four lanes (v128.const). */
  splat(value: number): void {
    this.simd(SIMD.const);
    for (let lane = 0; lane < 4; lane++) {
      this.byte(value & 0xff);
      this.byte((value >>> 8) & 0xff);
      this.byte((value >>> 16) & 0xff);
      this.byte((value >>> 24) & 0xff);
    }
  }

  /** i8x16.shuffle picking the 32-bit lanes `lanes` of the two operands (0..3 first, 4..7 second). */
  shuffle(lanes: number[]): void {
    this.simd(SIMD.shuffle);
    for (const l of lanes) for (let k = 0; k < 4; k++) this.byte(4 * l + k);
  }

  /** local = local + step (i32). */
  increment(l: number, step: number): void {
    this.get(l);
    this.i32(step);
    this.op(I32_ADD);
    this.set(l);
  }
}

/** w[j] += sigma0(w[j-15]) + w[j-7] + sigma1(w[j-2]), in the 16-word ring, for rounds 16..63. */
function emitSchedule(e: Emitter, j: number): void {
  const wj = W[j % 16]!;
  const x = W[(j - 15) % 16]!;
  const y = W[(j - 2) % 16]!;
  e.get(wj);
  e.smallSigma(x, 7, 18, 3);
  e.simd(SIMD.add);
  e.get(W[(j - 7) % 16]!);
  e.simd(SIMD.add);
  e.smallSigma(y, 17, 19, 10);
  e.simd(SIMD.add);
  e.set(wj);
}

/** Round j on the working variables, named by rotation: after round j, a..h are V shifted by j + 1. */
function emitRound(e: Emitter, j: number): void {
  const [A, Bv, C, D, E, F, Gv, H] = [0, 1, 2, 3, 4, 5, 6, 7].map((k) => V[(((k - j) % 8) + 8) % 8]!) as number[];
  if (j >= 16) emitSchedule(e, j);
  // t1 = h + Sigma1(e) + ch(e, f, g) + K[j] + w[j]; ch = bitselect(f, g, e)
  e.get(H!);
  e.sigma(E!, 6, 11, 25);
  e.simd(SIMD.add);
  e.get(F!);
  e.get(Gv!);
  e.get(E!);
  e.simd(SIMD.bitselect);
  e.simd(SIMD.add);
  e.splat(K[j]!);
  e.simd(SIMD.add);
  e.get(W[j % 16]!);
  e.simd(SIMD.add);
  e.set(T1);
  // d += t1
  e.get(D!);
  e.get(T1);
  e.simd(SIMD.add);
  e.set(D!);
  // h = t1 + Sigma0(a) + maj(a, b, c); maj = bitselect(b, a, a ^ c)
  e.get(T1);
  e.sigma(A!, 2, 13, 22);
  e.simd(SIMD.add);
  e.get(Bv!);
  e.get(A!);
  e.get(A!);
  e.get(C!);
  e.simd(SIMD.xor);
  e.simd(SIMD.bitselect);
  e.simd(SIMD.add);
  e.set(H!);
}

/** The loop over one group's blocks: load the block's 16 words, run the 64 rounds, add into S. */
function emitBlockLoop(e: Emitter): void {
  e.i32(0);
  e.set(B);
  e.op(LOOP, VOID);
  for (let j = 0; j < 16; j++) {
    e.get(INP);
    e.memory(SIMD.load, 16 * j);
    e.set(W[j]!);
  }
  for (let k = 0; k < 8; k++) {
    e.get(S[k]!);
    e.set(V[k]!);
  }
  for (let j = 0; j < 64; j++) emitRound(e, j);
  for (let k = 0; k < 8; k++) {
    e.get(S[k]!);
    e.get(V[k]!);
    e.simd(SIMD.add);
    e.set(S[k]!);
  }
  e.increment(INP, 256);
  e.increment(B, 1);
  e.get(B);
  e.get(BLOCKS);
  e.op(I32_LT_U);
  e.op(BR_IF, 0);
  e.op(END); // block loop
}

/** Byte-swap every lane of S to big-endian, then transpose 4x4 so each message's words are contiguous at outPtr. */
function emitDigestStores(e: Emitter): void {
  const swap = [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12];
  for (let k = 0; k < 8; k++) {
    e.get(S[k]!);
    e.get(S[k]!);
    e.simd(SIMD.shuffle);
    for (const b of swap) e.byte(b);
    e.set(S[k]!);
  }
  for (let half = 0; half < 2; half++) {
    const [s0, s1, s2, s3] = S.slice(4 * half, 4 * half + 4) as [number, number, number, number];
    const interleave: [number, number, number[], number][] = [
      [s0, s1, [0, 4, 1, 5], T[0]!],
      [s0, s1, [2, 6, 3, 7], T[1]!],
      [s2, s3, [0, 4, 1, 5], T[2]!],
      [s2, s3, [2, 6, 3, 7], T[3]!],
    ];
    for (const [p, q, lanes, into] of interleave) {
      e.get(p);
      e.get(q);
      e.shuffle(lanes);
      e.set(into);
    }
    const outputs: [number, number, number[]][] = [
      [T[0]!, T[2]!, [0, 1, 4, 5]],
      [T[0]!, T[2]!, [2, 3, 6, 7]],
      [T[1]!, T[3]!, [0, 1, 4, 5]],
      [T[1]!, T[3]!, [2, 3, 6, 7]],
    ];
    outputs.forEach(([p, q, lanes], message) => {
      e.get(OUTP);
      e.get(p);
      e.get(q);
      e.shuffle(lanes);
      e.memory(SIMD.store, 32 * message + 16 * half);
    });
  }
}

/** The function body: for each group, load the midstate, compress its blocks, store its 4 digests. */
function emitBody(e: Emitter): void {
  // g = 0; inPtr = IN; outPtr = OUT
  e.i32(0);
  e.set(G);
  e.i32(IN);
  e.set(INP);
  e.i32(OUT);
  e.set(OUTP);
  e.op(BLOCK, VOID);
  e.op(LOOP, VOID);
  e.get(G);
  e.get(GROUPS);
  e.op(I32_GE_U);
  e.op(BR_IF, 1);
  for (let k = 0; k < 8; k++) {
    e.i32(0);
    e.memory(SIMD.load, MID + 16 * k);
    e.set(S[k]!);
  }
  emitBlockLoop(e);
  emitDigestStores(e);
  e.increment(OUTP, 128);
  e.increment(G, 1);
  e.op(BR, 0);
  e.op(END); // group loop
  e.op(END); // block
  e.op(END); // function
}

/** The kernel module's bytes (exported for the test that pins them: a refactor must emit the same bytes). */
export function assemble(): Uint8Array {
  const e = new Emitter();
  emitBody(e);
  const locals = [...uleb(2), ...uleb(4), 0x7f, ...uleb(V128_LOCALS), 0x7b];
  const bodyLength = locals.length + e.length;
  const name = (s: string) => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];
  const head = [
    ...moduleHeader,
    ...section(1, [1, 0x60, 2, 0x7f, 0x7f, 0]),
    ...section(3, [1, 0]),
    ...section(5, [1, 0x00, 1]),
    ...section(7, [2, ...name('hash'), 0x00, 0, ...name('memory'), 0x02, 0]),
  ];
  // The code section: one function body (its size, its locals, the code emitted above).
  const codeHead = [1, ...uleb(bodyLength)];
  const wasm = new Uint8Array(head.length + 1 + uleb(codeHead.length + bodyLength).length + codeHead.length + bodyLength);
  wasm.set([...head, 10, ...uleb(codeHead.length + bodyLength), ...codeHead, ...locals]);
  wasm.set(e.code.subarray(0, e.length), wasm.length - e.length);
  return wasm;
}

/** The assembled kernel: `hash(groups, blocks)` and its memory. */
export interface SimdKernel {
  hash: (groups: number, blocks: number) => void;
  memory: WasmMemory;
  words: Int32Array;
  bytes: Uint8Array;
  /** What IN holds beyond the digits: whose tail, with which digit and block counts, in how many slots. */
  layout: {owner: unknown; digits: number; blocks: number; slots: number};
}

let kernel: SimdKernel | null | undefined;

/** The SIMD kernel of this thread, or undefined when WebAssembly SIMD is unavailable (or ARBOR_STREAM_SIMD=0). */
export function simdKernel(): SimdKernel | undefined {
  if (kernel === undefined) {
    kernel = null;
    if (process.env.ARBOR_STREAM_SIMD !== '0') {
      try {
        const instance = new WebAssembly.Instance(new WebAssembly.Module(assemble()));
        const memory = instance.exports.memory as WasmMemory;
        kernel = {
          hash: instance.exports.hash as (groups: number, blocks: number) => void,
          memory,
          words: new Int32Array(memory.buffer),
          bytes: new Uint8Array(memory.buffer),
          layout: {owner: undefined, digits: 0, blocks: 0, slots: 0},
        };
      } catch {
        kernel = null;
      }
    }
  }
  return kernel ?? undefined;
}
