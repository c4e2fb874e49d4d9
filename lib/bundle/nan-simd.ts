/**
 * Counting the NaNs of float chunks in WebAssembly SIMD, for verify's exact rule on large answers.
 *
 * `compareFiles` reads each chunk of the two files straight into this module's memory (A and B,
 * one chunk each), compares them there and counts B's NaNs with `nan64` / `nan32`: two lanes
 * (f64) or four (f32) per instruction, a lane counting when it is not equal to itself.
 *
 * Why not JavaScript: `includes(NaN)` scans about 6 GB/s, as long as reading the chunk; a plain
 * loop is faster once V8 has optimized it, but on a busy 2-core machine it runs interpreted
 * through the first tens of MiB (measured: 30-60 ms lost on 256 MiB). This loop is compiled
 * before its first call (about 2 ms, so small answers keep `includes`) and counts about 40 GB/s.
 * The module is assembled here, byte by byte, as in sha256-simd.ts; where WebAssembly SIMD is
 * missing, `nanKernel()` returns undefined and the JavaScript count does the work.
 */
import {
  uleb,
  sleb,
  section,
  BLOCK,
  LOOP,
  END,
  BR,
  BR_IF,
  LOCAL_GET,
  LOCAL_SET,
  LOCAL_TEE,
  F32_LOAD,
  F64_LOAD,
  VOID,
  I32_CONST,
  I32_EQZ,
  I32_GE_U,
  F32_NE,
  F64_NE,
  I32_ADD,
  I32_SUB,
  I32_AND,
  I32_SHL,
  I64_ADD,
  I32_WRAP_I64,
  moduleHeader,
} from '../wasm.js';

// The ES2023 lib and @types/node 20 do not declare WebAssembly; this is the little used here.
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => {exports: Record<string, unknown>};
};

/** The kernel: its memory as two chunk buffers, and the NaN counts of a prefix of B. */
export interface NanKernel {
  /** Chunk A (expected) and chunk B (actual): views of the module's memory, `chunk` bytes each. */
  a: Uint8Array;
  b: Uint8Array;
  /** NaN elements among the first `n` f64 (or f32) of B, read little-endian as the files are. */
  nan64: (n: number) => number;
  nan32: (n: number) => number;
}

const PAGE = 1 << 16;

// SIMD opcodes, each after the 0xfd prefix (the core opcodes come from lib/wasm.ts).
const SIMD = {
  load: 0x00,
  i32x4ExtractLane: 0x1b,
  i64x2ExtractLane: 0x1d,
  f32x4Ne: 0x42,
  f64x2Ne: 0x48,
  i32x4Add: 0xae,
  i32x4Sub: 0xb1,
  i64x2Add: 0xce,
  i64x2Sub: 0xd1,
};

/**
 * One counting function, `(p, n) -> count` over n elements of `width` bytes at byte address p:
 * 32 bytes a turn into two vector counters (each lane minus its all-ones "not equal to itself"
 * mask), then the lanes summed, then the last elements one at a time.
 */
function countBody(width: 4 | 8): number[] {
  const code: number[] = [];
  const op = (...bytes: number[]) => code.push(...bytes);
  const simd = (opcode: number, ...rest: number[]) => op(0xfd, ...uleb(opcode), ...rest);
  // Locals: params p=0, n=1; i32 end=2, count=3; v128 acc0=4, acc1=5, v=6; f64 or f32 x=7.
  const [P, N, ENDP, COUNT, ACC0, ACC1, V, X] = [0, 1, 2, 3, 4, 5, 6, 7];
  const perVector = 16 / width;
  const ne = width === 8 ? SIMD.f64x2Ne : SIMD.f32x4Ne;
  const sub = width === 8 ? SIMD.i64x2Sub : SIMD.i32x4Sub;
  const alignLog2 = width === 8 ? 3 : 2;

  // end = p + (n & ~(2 * perVector - 1)) * width
  op(LOCAL_GET, P, LOCAL_GET, N, I32_CONST, ...sleb(-2 * perVector), I32_AND, I32_CONST, alignLog2, I32_SHL, I32_ADD, LOCAL_SET, ENDP);
  // while (p < end) { acc0 -= ne(v, v) for v at p; acc1 -= ... at p + 16; p += 32 }
  op(BLOCK, VOID, LOOP, VOID);
  op(LOCAL_GET, P, LOCAL_GET, ENDP, I32_GE_U, BR_IF, 1);
  for (const [acc, offset] of [
    [ACC0, 0],
    [ACC1, 16],
  ] as const) {
    op(LOCAL_GET, acc, LOCAL_GET, P);
    simd(SIMD.load, 4, offset);
    op(LOCAL_TEE, V, LOCAL_GET, V);
    simd(ne);
    simd(sub);
    op(LOCAL_SET, acc);
  }
  op(LOCAL_GET, P, I32_CONST, 32, I32_ADD, LOCAL_SET, P);
  op(BR, 0, END, END);
  // count = the lanes of acc0 + acc1
  if (width === 8) {
    op(LOCAL_GET, ACC0, LOCAL_GET, ACC1);
    simd(SIMD.i64x2Add);
    op(LOCAL_TEE, V);
    simd(SIMD.i64x2ExtractLane, 0);
    op(LOCAL_GET, V);
    simd(SIMD.i64x2ExtractLane, 1);
    op(I64_ADD, I32_WRAP_I64, LOCAL_SET, COUNT);
  } else {
    op(LOCAL_GET, ACC0, LOCAL_GET, ACC1);
    simd(SIMD.i32x4Add);
    op(LOCAL_SET, V);
    for (let lane = 0; lane < 4; lane++) {
      op(LOCAL_GET, V);
      simd(SIMD.i32x4ExtractLane, lane);
      if (lane > 0) op(I32_ADD);
    }
    op(LOCAL_SET, COUNT);
  }
  // n = n & (2 * perVector - 1); while (n != 0) { count += (x != x) for x at p; p += width; n-- }
  op(LOCAL_GET, N, I32_CONST, 2 * perVector - 1, I32_AND, LOCAL_SET, N);
  op(BLOCK, VOID, LOOP, VOID);
  op(LOCAL_GET, N, I32_EQZ, BR_IF, 1);
  op(
    LOCAL_GET,
    COUNT,
    LOCAL_GET,
    P,
    width === 8 ? F64_LOAD : F32_LOAD,
    alignLog2,
    0,
    LOCAL_TEE,
    X,
    LOCAL_GET,
    X,
    width === 8 ? F64_NE : F32_NE,
    I32_ADD,
    LOCAL_SET,
    COUNT,
  );
  op(LOCAL_GET, P, I32_CONST, width, I32_ADD, LOCAL_SET, P);
  op(LOCAL_GET, N, I32_CONST, 1, I32_SUB, LOCAL_SET, N);
  op(BR, 0, END, END);
  op(LOCAL_GET, COUNT, END);
  // Local declarations: 2 i32, 3 v128, 1 f64 or f32.
  const locals = [3, 2, 0x7f, 3, 0x7b, 1, width === 8 ? 0x7c : 0x7d];
  return [...uleb(locals.length + code.length), ...locals, ...code];
}

function assemble(pages: number): Uint8Array {
  const name = (s: string) => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];
  return Uint8Array.from([
    ...moduleHeader,
    // One type: (i32, i32) -> i32.
    ...section(1, [1, 0x60, 2, 0x7f, 0x7f, 1, 0x7f]),
    ...section(3, [2, 0, 0]),
    ...section(5, [1, 0x00, ...uleb(pages)]),
    ...section(7, [3, ...name('nan64'), 0x00, 0, ...name('nan32'), 0x00, 1, ...name('memory'), 0x02, 0]),
    ...section(10, [2, ...countBody(8), ...countBody(4)]),
  ]);
}

const kernels = new Map<number, NanKernel | null>();

/** The kernel for chunks of `chunk` bytes (a multiple of 64 KiB), or undefined when WebAssembly SIMD is unavailable. */
export function nanKernel(chunk: number): NanKernel | undefined {
  let kernel = kernels.get(chunk);
  if (kernel === undefined) {
    kernel = null;
    try {
      const instance = new WebAssembly.Instance(new WebAssembly.Module(assemble((2 * chunk) / PAGE)));
      const buffer = (instance.exports.memory as {buffer: ArrayBuffer}).buffer;
      const nan64 = instance.exports.nan64 as (p: number, n: number) => number;
      const nan32 = instance.exports.nan32 as (p: number, n: number) => number;
      kernel = {
        a: new Uint8Array(buffer, 0, chunk),
        b: new Uint8Array(buffer, chunk, chunk),
        nan64: (n) => nan64(chunk, n),
        nan32: (n) => nan32(chunk, n),
      };
    } catch {
      kernel = null;
    }
    kernels.set(chunk, kernel);
  }
  return kernel ?? undefined;
}
