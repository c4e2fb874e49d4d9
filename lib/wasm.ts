/**
 * WebAssembly encoding for arbor's hand-assembled SIMD kernels (the gate's
 * MT19937 bootstrap, the bundle's SHA-256 and NaN count): LEB128 numbers,
 * sections, and the opcodes and value types they use. Each kernel builds its
 * module from these and checks its own output against a plain JavaScript path.
 */

/** Every module's first eight bytes: the magic `\0asm` and version 1. */
export const moduleHeader: readonly number[] = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

/** Unsigned LEB128. */
export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

/** Signed LEB128 of a 32-bit integer. */
export function sleb(n: number): number[] {
  const out: number[] = [];
  n |= 0;
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

/** A module section: its id, then its content's length and bytes. */
export function section(id: number, content: number[]): number[] {
  return [id, ...uleb(content.length), ...content];
}

// Value types, block types and opcodes (the ones the kernels use).
export const BLOCK = 0x02;
export const LOOP = 0x03;
export const IF = 0x04;
export const END = 0x0b;
export const BR = 0x0c;
export const BR_IF = 0x0d;
export const RETURN = 0x0f;
export const CALL = 0x10;
export const LOCAL_GET = 0x20;
export const LOCAL_SET = 0x21;
export const LOCAL_TEE = 0x22;
export const I32_LOAD = 0x28;
export const I64_LOAD = 0x29;
export const F32_LOAD = 0x2a;
export const F64_LOAD = 0x2b;
export const I32_STORE = 0x36;
export const I64_STORE = 0x37;
export const VOID = 0x40;
export const I32_CONST = 0x41;
export const I64_CONST = 0x42;
export const I32_EQZ = 0x45;
export const I32_EQ = 0x46;
export const I32_LT_U = 0x49;
export const I32_GE_U = 0x4f;
export const I64_GE_U = 0x5a;
export const F32_NE = 0x5c;
export const F64_NE = 0x62;
export const I32_ADD = 0x6a;
export const I32_SUB = 0x6b;
export const I32_AND = 0x71;
export const I32_OR = 0x72;
export const I32_XOR = 0x73;
export const I32_SHL = 0x74;
export const I32_SHR_U = 0x76;
export const V128 = 0x7b;
export const I64_ADD = 0x7c;
export const I64_SUB = 0x7d;
export const I64 = 0x7e;
export const I32 = 0x7f;
export const I32_WRAP_I64 = 0xa7;
export const I64_EXTEND_I32_U = 0xad;
export const SIMD_PREFIX = 0xfd;
