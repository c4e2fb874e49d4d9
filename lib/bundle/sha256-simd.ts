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
import {uleb, section, BLOCK, LOOP, END, BR, BR_IF, LOCAL_GET, LOCAL_SET, VOID, I32_CONST, I32_LT_U, I32_GE_U, I32_ADD} from '../wasm.js';

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

/** The kernel module's bytes (exported for the test that pins them: a refactor must emit the same bytes). */
export function assemble(): Uint8Array {
  // The body's bytes go straight into one typed array: this runs once per process, in V8's
  // interpreter, and an array per instruction (rest arguments, spreads, LEB128 arrays) made it
  // cost 50 ms, most of it garbage collection, before a make's first draw.
  let code = new Uint8Array(1 << 15);
  let length = 0;
  const byte = (b: number) => {
    if (length === code.length) {
      const grown = new Uint8Array(2 * length);
      grown.set(code);
      code = grown;
    }
    code[length++] = b;
  };
  const leb = (n: number) => {
    do {
      let b = n & 0x7f;
      n >>>= 7;
      if (n !== 0) b |= 0x80;
      byte(b);
    } while (n !== 0);
  };
  const op = (...bytes: number[]) => {
    for (const b of bytes) byte(b);
  };
  const simd = (opcode: number) => {
    byte(0xfd);
    leb(opcode);
  };
  // Locals: params groups=0, blocks=1; i32 g=2, b=3, inPtr=4, outPtr=5; v128 from 6.
  const GROUPS = 0;
  const BLOCKS = 1;
  const G = 2;
  const B = 3;
  const INP = 4;
  const OUTP = 5;
  let next = 6;
  const S = Array.from({length: 8}, () => next++);
  const V = Array.from({length: 8}, () => next++);
  const W = Array.from({length: 16}, () => next++);
  const T1 = next++;
  const X = next++;
  const T = Array.from({length: 4}, () => next++);
  const v128Locals = next - 6;
  const get = (l: number) => {
    byte(LOCAL_GET);
    leb(l);
  };
  const set = (l: number) => {
    byte(LOCAL_SET);
    leb(l);
  };
  const i32 = (n: number) => {
    byte(I32_CONST);
    for (;;) {
      const b = n & 0x7f;
      n >>= 7;
      if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return byte(b);
      byte(b | 0x80);
    }
  };
  const load = (offset: number) => {
    simd(SIMD.load);
    byte(4);
    leb(offset);
  };
  const store = (offset: number) => {
    simd(SIMD.store);
    byte(4);
    leb(offset);
  };
  const rotr = (l: number, n: number) => {
    get(l);
    i32(n);
    simd(SIMD.shrU);
    get(l);
    i32(32 - n);
    simd(SIMD.shl);
    simd(SIMD.or);
  };
  const splat = (value: number) => {
    simd(SIMD.const);
    for (let lane = 0; lane < 4; lane++) {
      byte(value & 0xff);
      byte((value >>> 8) & 0xff);
      byte((value >>> 16) & 0xff);
      byte((value >>> 24) & 0xff);
    }
  };
  const shuffle = (lanes: number[]) => {
    simd(SIMD.shuffle);
    for (const l of lanes) for (let k = 0; k < 4; k++) byte(4 * l + k);
  };

  // g = 0; inPtr = IN; outPtr = OUT
  i32(0);
  set(G);
  i32(IN);
  set(INP);
  i32(OUT);
  set(OUTP);
  op(BLOCK, VOID);
  op(LOOP, VOID);
  get(G);
  get(GROUPS);
  op(I32_GE_U);
  op(BR_IF, 1);
  for (let k = 0; k < 8; k++) {
    i32(0);
    load(MID + 16 * k);
    set(S[k]!);
  }
  i32(0);
  set(B);
  op(LOOP, VOID);
  for (let j = 0; j < 16; j++) {
    get(INP);
    load(16 * j);
    set(W[j]!);
  }
  for (let k = 0; k < 8; k++) {
    get(S[k]!);
    set(V[k]!);
  }
  for (let j = 0; j < 64; j++) {
    const r = (k: number) => V[(((k - j) % 8) + 8) % 8]!;
    const [A, Bv, C, D, E, F, Gv, H] = [0, 1, 2, 3, 4, 5, 6, 7].map(r) as number[];
    const wj = W[j % 16]!;
    if (j >= 16) {
      // w[j] += sigma0(w[j-15]) + w[j-7] + sigma1(w[j-2])
      const x = W[(j - 15) % 16]!;
      const y = W[(j - 2) % 16]!;
      get(wj);
      rotr(x, 7);
      rotr(x, 18);
      simd(SIMD.xor);
      get(x);
      i32(3);
      simd(SIMD.shrU);
      simd(SIMD.xor);
      simd(SIMD.add);
      get(W[(j - 7) % 16]!);
      simd(SIMD.add);
      rotr(y, 17);
      rotr(y, 19);
      simd(SIMD.xor);
      get(y);
      i32(10);
      simd(SIMD.shrU);
      simd(SIMD.xor);
      simd(SIMD.add);
      set(wj);
    }
    // t1 = h + Sigma1(e) + ch(e, f, g) + K[j] + w[j]; ch = bitselect(f, g, e)
    get(H!);
    rotr(E!, 6);
    rotr(E!, 11);
    simd(SIMD.xor);
    rotr(E!, 25);
    simd(SIMD.xor);
    simd(SIMD.add);
    get(F!);
    get(Gv!);
    get(E!);
    simd(SIMD.bitselect);
    simd(SIMD.add);
    splat(K[j]!);
    simd(SIMD.add);
    get(wj);
    simd(SIMD.add);
    set(T1);
    // d += t1
    get(D!);
    get(T1);
    simd(SIMD.add);
    set(D!);
    // h = t1 + Sigma0(a) + maj(a, b, c); maj = bitselect(b, a, a ^ c)
    get(T1);
    rotr(A!, 2);
    rotr(A!, 13);
    simd(SIMD.xor);
    rotr(A!, 22);
    simd(SIMD.xor);
    simd(SIMD.add);
    get(Bv!);
    get(A!);
    get(A!);
    get(C!);
    simd(SIMD.xor);
    simd(SIMD.bitselect);
    simd(SIMD.add);
    set(H!);
  }
  for (let k = 0; k < 8; k++) {
    get(S[k]!);
    get(V[k]!);
    simd(SIMD.add);
    set(S[k]!);
  }
  get(INP);
  i32(256);
  op(I32_ADD);
  set(INP);
  get(B);
  i32(1);
  op(I32_ADD);
  set(B);
  get(B);
  get(BLOCKS);
  op(I32_LT_U);
  op(BR_IF, 0);
  op(END); // block loop
  // Byte-swap every lane to big-endian, then transpose 4x4 so each message's words are contiguous.
  const swap = [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12];
  for (let k = 0; k < 8; k++) {
    get(S[k]!);
    get(S[k]!);
    simd(SIMD.shuffle);
    for (const b of swap) byte(b);
    set(S[k]!);
  }
  for (let half = 0; half < 2; half++) {
    const [s0, s1, s2, s3] = S.slice(4 * half, 4 * half + 4) as [number, number, number, number];
    get(s0);
    get(s1);
    shuffle([0, 4, 1, 5]);
    set(T[0]!);
    get(s0);
    get(s1);
    shuffle([2, 6, 3, 7]);
    set(T[1]!);
    get(s2);
    get(s3);
    shuffle([0, 4, 1, 5]);
    set(T[2]!);
    get(s2);
    get(s3);
    shuffle([2, 6, 3, 7]);
    set(T[3]!);
    const outputs: [number, number, number[]][] = [
      [T[0]!, T[2]!, [0, 1, 4, 5]],
      [T[0]!, T[2]!, [2, 3, 6, 7]],
      [T[1]!, T[3]!, [0, 1, 4, 5]],
      [T[1]!, T[3]!, [2, 3, 6, 7]],
    ];
    outputs.forEach(([p, q, lanes], message) => {
      get(OUTP);
      get(p);
      get(q);
      shuffle(lanes);
      store(32 * message + 16 * half);
    });
  }
  get(OUTP);
  i32(128);
  op(I32_ADD);
  set(OUTP);
  get(G);
  i32(1);
  op(I32_ADD);
  set(G);
  op(BR, 0);
  op(END); // group loop
  op(END); // block
  op(END); // function
  void X;

  const locals = [...uleb(2), ...uleb(4), 0x7f, ...uleb(v128Locals), 0x7b];
  const bodyLength = locals.length + length;
  const name = (s: string) => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];
  const head = [
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, [1, 0x60, 2, 0x7f, 0x7f, 0]),
    ...section(3, [1, 0]),
    ...section(5, [1, 0x00, 1]),
    ...section(7, [2, ...name('hash'), 0x00, 0, ...name('memory'), 0x02, 0]),
  ];
  // The code section: one function body (its size, its locals, the code emitted above).
  const codeHead = [1, ...uleb(bodyLength)];
  const wasm = new Uint8Array(head.length + 1 + uleb(codeHead.length + bodyLength).length + codeHead.length + bodyLength);
  wasm.set([...head, 10, ...uleb(codeHead.length + bodyLength), ...codeHead, ...locals]);
  wasm.set(code.subarray(0, length), wasm.length - length);
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
