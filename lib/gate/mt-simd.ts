/**
 * MT19937 block generation in WebAssembly SIMD (4 lanes), for the bootstrap's
 * hot loop: the twist and the tempering are plain lane-wise integer work that
 * JavaScript cannot vectorize, and they were most of the bootstrap's time.
 *
 * The module is assembled here from named opcodes (no build step, no binary
 * blob). It exports its memory and `run(shift)`, which repeats:
 *   - block(shift): words 0..623 of memory hold the state (the same bits as
 *     CPython's mt[]); it twists them in place and writes, for each new word y,
 *     temper(y) >>> shift as words 1024..1647 (OUT_WORD), i.e. getrandbits(32 - shift);
 *   - count(): the rejection and per-sample sums over those r values (scalar);
 * until the samples are done: one call from JavaScript for the whole bootstrap.
 * The last tempering step (y ^= y >>> 18) only changes bits 0..13, so it is
 * left out: callers must use shift >= 14.
 *
 * The twist is the reference loop in chunks of 4 words: mt[kk] reads mt[kk+1]
 * (not yet rewritten) and mt[kk+397] or mt[kk-227] (rewritten already in the
 * second half, 227 >= 4 words back), so 4 neighbours can be rewritten at once.
 * 227 and 623 are not multiples of 4: words 224..226 and 623 are done one by one.
 */
import {
  uleb,
  sleb,
  section,
  LOOP,
  IF,
  END,
  BR_IF,
  RETURN,
  CALL,
  LOCAL_GET,
  LOCAL_SET,
  LOCAL_TEE,
  I32_LOAD,
  I64_LOAD,
  I32_STORE,
  I64_STORE,
  I32_CONST,
  I64_CONST,
  I32_EQZ,
  I32_EQ,
  I32_LT_U,
  I64_GE_U,
  I32_ADD,
  I32_SUB,
  I32_AND,
  I32_OR,
  I32_XOR,
  I32_SHL,
  I32_SHR_U,
  V128,
  I64_ADD,
  I64_SUB,
  I64,
  I32,
  I32_WRAP_I64,
  I64_EXTEND_I32_U,
  SIMD_PREFIX,
  moduleHeader,
} from '../wasm.js';

// The project's TypeScript libs do not declare WebAssembly: the little used here.
declare const WebAssembly:
  | undefined
  | {
      validate(bytes: Uint8Array): boolean;
      Module: new (bytes: Uint8Array) => object;
      Instance: new (module: object) => {exports: {memory: {buffer: ArrayBuffer; grow(pages: number): number}; run: (shift: number) => void}};
    };

const N = 624;
const M = 397;
const OUT_WORD = 1024;
/** Byte addresses of the counting state (see count()). */
const ACC = 8192; // i64: taken * K + (sum of d + taken) of the sample in progress
const DONE = 8200; // i32: samples finished
const TARGET = 8208; // i64: n * K, reached exactly when the sample has n accepted draws
const SAMPLES = 8216; // i32: samples wanted
const COUNTS = 8220; // i32: byte address of counts[] (after the table)
/** Byte address of table[r] (r = getrandbits(k)): 0 if rejected, else K + d + 1. */
const TABLE_BYTE = 16384;

// SIMD proposal opcodes (the core opcodes come from lib/wasm.ts).
const V128_LOAD = [SIMD_PREFIX, 0x00];
const V128_STORE = [SIMD_PREFIX, 0x0b];
const V128_CONST = [SIMD_PREFIX, 0x0c];
const V128_AND = [SIMD_PREFIX, 0x4e];
const V128_OR = [SIMD_PREFIX, 0x50];
const V128_XOR = [SIMD_PREFIX, 0x51];
const I32X4_SHL = [SIMD_PREFIX, 0xab, 0x01];
const I32X4_SHR_U = [SIMD_PREFIX, 0xad, 0x01];
const I32X4_SUB = [SIMD_PREFIX, 0xb1, 0x01];

// Locals of `block`: the parameter, a byte address, a scalar word, a vector.
const SHIFT = 0;
const ADDR = 1;
const WORD = 2;
const VEC = 3;

const UPPER = 0x80000000;
const LOWER = 0x7fffffff;
const MATRIX = 0x9908b0df;

const i32 = (value: number): number[] => [I32_CONST, ...sleb(value)];
const splat = (value: number): number[] => {
  const bytes: number[] = [];
  for (let lane = 0; lane < 4; lane++) for (let b = 0; b < 4; b++) bytes.push((value >>> (8 * b)) & 0xff);
  return [...V128_CONST, ...bytes];
};
const get = (local: number): number[] => [LOCAL_GET, local];
/** memarg: alignment hint 4 bytes (loads here are not all 16-byte aligned), byte offset. */
const memarg = (offset: number): number[] => [2, ...uleb(offset)];
const vload = (offset: number): number[] => [...get(ADDR), ...V128_LOAD, ...memarg(offset)];
const sload = (offset: number): number[] => [...i32(0), I32_LOAD, ...memarg(offset)];

/**
 * One 4-word twist step at byte address ADDR + at: mt[kk] = mt[far] ^ (y >>> 1) ^ (-(y & 1) & MATRIX)
 * with y = (mt[kk] & UPPER) | (mt[kk+1] & LOWER); `far` is a byte offset from ADDR as well.
 */
function twistChunk(at: number, far: number): number[] {
  return [
    ...vload(at),
    ...splat(UPPER),
    ...V128_AND,
    ...vload(at + 4),
    ...splat(LOWER),
    ...V128_AND,
    ...V128_OR,
    LOCAL_SET,
    VEC,
    ...get(ADDR),
    ...vload(far),
    ...get(VEC),
    ...i32(1),
    ...I32X4_SHR_U,
    ...V128_XOR,
    ...splat(0),
    ...get(VEC),
    ...splat(1),
    ...V128_AND,
    ...I32X4_SUB,
    ...splat(MATRIX),
    ...V128_AND,
    ...V128_XOR,
    ...V128_STORE,
    ...memarg(at),
  ];
}

/** The same for one word kk, reading mt[next] and mt[far] (word indices). */
function twistWord(kk: number, next: number, far: number): number[] {
  return [
    ...sload(4 * kk),
    ...i32(UPPER),
    I32_AND,
    ...sload(4 * next),
    ...i32(LOWER),
    I32_AND,
    I32_OR,
    LOCAL_SET,
    WORD,
    ...i32(0),
    ...sload(4 * far),
    ...get(WORD),
    ...i32(1),
    I32_SHR_U,
    I32_XOR,
    ...i32(0),
    ...get(WORD),
    ...i32(1),
    I32_AND,
    I32_SUB,
    ...i32(MATRIX),
    I32_AND,
    I32_XOR,
    I32_STORE,
    ...memarg(4 * kk),
  ];
}

/** for (ADDR = 0; ADDR < end; ADDR += 16) body */
function loop(end: number, body: number[]): number[] {
  return [...i32(0), LOCAL_SET, ADDR, LOOP, 0x40, ...body, ...get(ADDR), ...i32(16), I32_ADD, LOCAL_TEE, ADDR, ...i32(end), I32_LT_U, BR_IF, 0, END];
}

function temperChunk(): number[] {
  const step = (shift: number[], mask: number | null): number[] => [
    ...get(VEC),
    ...get(VEC),
    ...shift,
    ...(mask === null ? [] : [...splat(mask), ...V128_AND]),
    ...V128_XOR,
    LOCAL_SET,
    VEC,
  ];
  return [
    ...get(ADDR),
    ...vload(0),
    LOCAL_SET,
    VEC,
    ...step([...i32(11), ...I32X4_SHR_U], null),
    ...step([...i32(7), ...I32X4_SHL], 0x9d2c5680),
    ...step([...i32(15), ...I32X4_SHL], 0xefc60000),
    ...get(VEC),
    ...get(SHIFT),
    ...I32X4_SHR_U,
    ...V128_STORE,
    ...memarg(4 * OUT_WORD),
  ];
}

/** Locals of count(): ADDR (i32), acc (i64), target (i64), done (i32), at (i32). */
const [C_ADDR, C_ACC, C_TARGET, C_DONE, C_AT] = [0, 1, 2, 3, 4];

/** Store acc and done back into memory (the next run() resumes from them) and return `flag`. */
function saveAndReturn(flag: number): number[] {
  return [...i32(0), ...get(C_ACC), I64_STORE, 3, ...uleb(ACC), ...i32(0), ...get(C_DONE), I32_STORE, ...memarg(DONE), ...i32(flag), RETURN];
}

/** count()'s locals declaration and its loads of acc, target and done from memory; addr = 0. */
function countPrologue(): number[] {
  return [
    ...[3, 1, I32, 2, I64, 2, I32],
    ...[...i32(0), I64_LOAD, 3, ...uleb(ACC), LOCAL_SET, C_ACC],
    ...[...i32(0), I64_LOAD, 3, ...uleb(TARGET), LOCAL_SET, C_TARGET],
    ...[...i32(0), I32_LOAD, ...memarg(DONE), LOCAL_SET, C_DONE],
    ...[...i32(0), LOCAL_SET, C_ADDR],
  ];
}

/** A sample is complete (acc >= target): counts[acc - target]++, acc = 0, done++; return 1 when done == samples. */
function countSampleDone(): number[] {
  return [
    // counts[acc - target]++
    ...get(C_ACC),
    ...get(C_TARGET),
    I64_SUB,
    I32_WRAP_I64,
    ...i32(2),
    I32_SHL,
    ...i32(0),
    I32_LOAD,
    ...memarg(COUNTS),
    I32_ADD,
    LOCAL_TEE,
    C_AT,
    ...get(C_AT),
    I32_LOAD,
    ...memarg(0),
    ...i32(1),
    I32_ADD,
    I32_STORE,
    ...memarg(0),
    ...[I64_CONST, 0, LOCAL_SET, C_ACC],
    ...get(C_DONE),
    ...i32(1),
    I32_ADD,
    LOCAL_TEE,
    C_DONE,
    ...i32(0),
    I32_LOAD,
    ...memarg(SAMPLES),
    I32_EQ,
    ...[IF, 0x40, ...saveAndReturn(1), END],
  ];
}

/**
 * count() -> 1 when all samples are done: walks the block's r values, adds
 * table[r] to ACC, and when ACC reaches TARGET (n accepted draws) bumps
 * counts[ACC - TARGET] (= counts[sum + n]) and starts the next sample.
 */
function countBody(): number[] {
  return [
    ...countPrologue(),
    LOOP,
    0x40,
    // acc += table[out[addr]]
    ...get(C_ACC),
    ...get(C_ADDR),
    I32_LOAD,
    ...memarg(4 * OUT_WORD),
    ...i32(2),
    I32_SHL,
    I32_LOAD,
    ...memarg(TABLE_BYTE),
    I64_EXTEND_I32_U,
    I64_ADD,
    LOCAL_SET,
    C_ACC,
    ...get(C_ACC),
    ...get(C_TARGET),
    I64_GE_U,
    ...[IF, 0x40, ...countSampleDone(), END],
    // addr += 4; loop while addr < 4 * N
    ...get(C_ADDR),
    ...i32(4),
    I32_ADD,
    LOCAL_TEE,
    C_ADDR,
    ...i32(4 * N),
    I32_LT_U,
    BR_IF,
    0,
    END,
    ...saveAndReturn(0),
    END,
  ];
}

/** run(shift): block(shift) then count() until count() says the samples are done. */
function runBody(): number[] {
  return [0, LOOP, 0x40, ...get(0), CALL, 0, CALL, 1, I32_EQZ, BR_IF, 0, END, END];
}

function name(text: string): number[] {
  return [...uleb(text.length), ...Array.from(text, (c) => c.charCodeAt(0))];
}

/** The module's bytes (exported for the test that pins them: a refactor must emit the same bytes). */
export function moduleBytes(): Uint8Array {
  const first = N - M; // 227: words 0..223 in chunks, 224..226 one by one
  const firstChunks = first - (first % 4);
  const body = [
    // locals: ADDR, WORD (i32), VEC (v128)
    2,
    2,
    I32,
    1,
    V128,
    ...loop(4 * firstChunks, twistChunk(0, 4 * M)),
    ...[224, 225, 226].flatMap((kk) => twistWord(kk, kk + 1, kk + M)),
    // words 227..622 (99 chunks): ADDR runs over mt[kk - 227], so every offset is >= 0.
    ...loop(4 * (N - 1 - first), twistChunk(4 * first, 0)),
    ...twistWord(N - 1, 0, M - 1),
    ...loop(4 * N, temperChunk()),
    END,
  ];
  const count = countBody();
  const run = runBody();
  return new Uint8Array([
    ...moduleHeader,
    ...section(1, [2, 0x60, 1, I32, 0, 0x60, 0, 1, I32]), // type 0: (i32) -> (), type 1: () -> i32
    ...section(3, [3, 0, 1, 0]), // block, count, run
    ...section(5, [1, 0x00, 1]), // one memory, 1 page (run() callers grow it)
    ...section(7, [3, ...name('memory'), 0x02, 0, ...name('block'), 0x00, 0, ...name('run'), 0x00, 2]),
    ...section(10, [3, ...uleb(body.length), ...body, ...uleb(count.length), ...count, ...uleb(run.length), ...run]),
  ]);
}

/**
 * The bootstrap histogram (see bootstrapCounts in mt.ts) computed entirely in
 * the module: `state` is a fresh generator's mt[], table[r] as above (length
 * 2**(32 - shift)), K = 2**bits > 2n. Null where WebAssembly SIMD is missing.
 */
export function simdBootstrapCounts(state: Uint32Array, table: Int32Array, n: number, bits: number, shift: number, samples: number): Uint32Array | null {
  const bytes = moduleBytes();
  if (typeof WebAssembly === 'undefined' || !WebAssembly.validate(bytes)) return null;
  const {exports} = new WebAssembly.Instance(new WebAssembly.Module(bytes));
  const countsByte = TABLE_BYTE + 4 * table.length;
  const size = countsByte + 4 * (2 * n + 1);
  exports.memory.grow(Math.ceil(size / 65536) - 1);
  const buffer = exports.memory.buffer;
  new Uint32Array(buffer, 0, N).set(state.subarray(0, N));
  new Int32Array(buffer, TABLE_BYTE, table.length).set(table);
  const view = new DataView(buffer);
  view.setBigUint64(ACC, 0n, true);
  view.setInt32(DONE, 0, true);
  view.setBigUint64(TARGET, BigInt(n) << BigInt(bits), true);
  view.setInt32(SAMPLES, samples, true);
  view.setInt32(COUNTS, countsByte, true);
  exports.run(shift);
  return new Uint32Array(buffer.slice(countsByte, size));
}
