import {readFileSync, readdirSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {compareFiles, countNaN, ELEMENT_TYPES, readTensor, TENSOR_ARRAYS, TensorLengthError, writeTensor, type ElementType} from '../../dist/lib/index.js';
import {tempDir} from '../helpers/cli.js';
import {nanKernel} from '../../dist/lib/bundle/nan-simd.js';
import {golden} from './helpers.js';

const VALUES: Record<ElementType, (number | bigint)[]> = {
  i8: [0, 1, -1, 127, -128],
  i16: [0, 1, -1, 32767, -32768, 258],
  i32: [0, 1, -1, 2147483647, -2147483648, 16909060],
  i64: [0n, 1n, -1n, 9223372036854775807n, -9223372036854775808n, 72623859790382856n],
  u8: [0, 1, 255, 128],
  u16: [0, 1, 65535, 258],
  u32: [0, 1, 4294967295, 16909060],
  u64: [0n, 1n, 18446744073709551615n, 72623859790382856n],
  f32: [0, -0, 1, -2.5, 3.4028234663852886e38, 1.401298464324817e-45, Infinity, -Infinity],
  f64: [0, -0, 1, -2.5, 1.7976931348623157e308, 5e-324, Infinity, 0.1],
};

function build(type: ElementType): InstanceType<(typeof TENSOR_ARRAYS)[ElementType]> {
  const Ctor = TENSOR_ARRAYS[type] as unknown as {from(values: unknown[]): InstanceType<(typeof TENSOR_ARRAYS)[ElementType]>};
  return Ctor.from(VALUES[type]);
}

describe('codec golden files (written by Python struct)', () => {
  it('covers every element type', () => {
    expect(readdirSync(path.join(golden, 'codec')).sort()).toEqual(ELEMENT_TYPES.map((t) => `${t}.bin`).sort());
  });

  it.each(ELEMENT_TYPES)('%s writes and reads byte for byte', (type) => {
    const dir = tempDir();
    const file = path.join(dir, `${type}.bin`);
    writeTensor(file, type, build(type));
    const want = readFileSync(path.join(golden, 'codec', `${type}.bin`));
    expect(readFileSync(file).equals(want)).toBe(true);
    const back = readTensor(path.join(golden, 'codec', `${type}.bin`), type, VALUES[type].length);
    expect(back).toBeInstanceOf(TENSOR_ARRAYS[type]);
    expect(Array.from(back as ArrayLike<unknown>)).toEqual(VALUES[type]);
    expect(readdirSync(dir)).toEqual([`${type}.bin`]); // no temp file left behind
  });

  it('writes views with a byte offset (pooled Buffers, subarrays) from their own bytes', () => {
    const dir = tempDir();
    const base = new Float64Array([9, 1, 2, 3, 9]);
    writeTensor(path.join(dir, 'v.bin'), 'f64', base.subarray(1, 4));
    expect(Array.from(readTensor(path.join(dir, 'v.bin'), 'f64', 3) as Float64Array)).toEqual([1, 2, 3]);
    const pooled = Buffer.from([1, 2, 3]); // a slice of Node's shared pool
    writeTensor(path.join(dir, 'b.bin'), 'u8', pooled);
    expect(readFileSync(path.join(dir, 'b.bin'))).toEqual(Buffer.from([1, 2, 3]));
  });

  it('reads a scalar as one element', () => {
    const dir = tempDir();
    writeTensor(path.join(dir, 's.bin'), 'i32', Int32Array.of(-7));
    expect(readFileSync(path.join(dir, 's.bin')).length).toBe(4);
    expect(readTensor(path.join(dir, 's.bin'), 'i32', 1)).toEqual(Int32Array.of(-7));
  });

  it('refuses a file of the wrong length, naming both lengths', () => {
    const dir = tempDir();
    const file = path.join(dir, 'x.bin');
    writeFileSync(file, Buffer.alloc(12));
    expect(() => readTensor(file, 'f64', 2)).toThrow(TensorLengthError);
    expect(() => readTensor(file, 'f64', 2)).toThrow(`${file} is 12 bytes, expected 16`);
  });

  it('refuses to write an array of the wrong class', () => {
    const dir = tempDir();
    expect(() => writeTensor(path.join(dir, 'x.bin'), 'f64', new Float32Array(2))).toThrow(/expected Float64Array for f64, got Float32Array/);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('NaN counts (countNaN, compareFiles)', () => {
  const naive = (a: Float32Array | Float64Array) => Array.from(a).filter((v) => v !== v).length;
  /** NaN bit patterns besides the canonical one: negative, signalling, other payloads. */
  function oddNaNs64(): Float64Array {
    const bits = new BigUint64Array([0x7ff8000000000000n, 0xfff8000000000000n, 0x7ff0000000000001n, 0xfff0000000000001n, 0x7fffffffffffffffn]);
    return new Float64Array(bits.buffer);
  }

  it('counts NaNs wherever they are, and never counts an infinity', () => {
    // 40,001 elements: two compare chunks (256 KiB each) and a tail that is not a multiple of four.
    const cases: [string, (a: Float64Array) => void][] = [
      ['finite only', () => {}],
      ['infinities only', (a) => a.set([Infinity, -Infinity], 39_999)],
      ['a NaN in the last element', (a) => (a[40_000] = NaN)],
      ['a NaN on each side of the chunk boundary', (a) => a.set([NaN, NaN], 32_767)],
      ['NaNs next to infinities', (a) => a.set([Infinity, NaN, -Infinity, NaN], 5)],
      ['NaN bit patterns of every kind', (a) => a.set(oddNaNs64(), 1000)],
    ];
    const dir = tempDir();
    for (const [what, change] of cases) {
      const a = Float64Array.from({length: 40_001}, (_, i) => i * 0.25 - 7);
      change(a);
      const f32 = Float32Array.from(a);
      expect([what, countNaN(a), countNaN(f32)]).toEqual([what, naive(a), naive(f32)]);
      writeTensor(path.join(dir, 'a64.bin'), 'f64', a);
      writeTensor(path.join(dir, 'a32.bin'), 'f32', f32);
      expect([what, compareFiles(path.join(dir, 'a64.bin'), path.join(dir, 'a64.bin'), 'f64')]).toEqual([what, {differing: 0, nans: naive(a)}]);
      expect([what, compareFiles(path.join(dir, 'a32.bin'), path.join(dir, 'a32.bin'), 'f32')]).toEqual([what, {differing: 0, nans: naive(f32)}]);
    }
  });

  it('counts the NaNs of short and offset arrays, and none in integer types', () => {
    for (let length = 0; length <= 9; length++) {
      const a = new Float64Array(length + 2).subarray(1, length + 1);
      if (length > 0) a[length - 1] = NaN;
      expect(countNaN(a)).toBe(length > 0 ? 1 : 0);
    }
    expect(countNaN(new Float32Array([NaN, 1, NaN]))).toBe(2);
    expect(countNaN(new Uint8Array([255, 255]))).toBe(0);
  });

  it('counts the same in WebAssembly SIMD, at every length and for every NaN bit pattern', () => {
    const kernel = nanKernel(1 << 18)!;
    expect(kernel).toBeDefined();
    const f64 = new Float64Array(kernel.b.buffer, kernel.b.byteOffset, (1 << 18) / 8);
    const f32 = new Float32Array(kernel.b.buffer, kernel.b.byteOffset, (1 << 18) / 4);
    // Every 7th element a NaN, infinity or zero, so each length ends on another mix; odd payloads first.
    const specials = [NaN, Infinity, -Infinity, -0, -NaN];
    f64.forEach((_, i) => (f64[i] = i % 7 === 3 ? specials[((i / 7) % 5) | 0]! : i / 3));
    new BigUint64Array(kernel.b.buffer, kernel.b.byteOffset, 4).set([0x7ff0000000000001n, 0xfff8000000000000n, 0x7fffffffffffffffn, 0x7ff0000000000000n]);
    for (const n of [...Array.from({length: 40}, (_, k) => k), 1001, 32_767, 32_768]) {
      expect([n, kernel.nan64(n)]).toEqual([n, naive(f64.subarray(0, n))]);
    }
    f32.forEach((_, i) => (f32[i] = i % 7 === 3 ? specials[((i / 7) % 5) | 0]! : i / 3));
    new Uint32Array(kernel.b.buffer, kernel.b.byteOffset, 4).set([0x7f800001, 0xffc00000, 0x7fffffff, 0x7f800000]);
    for (const n of [...Array.from({length: 40}, (_, k) => k), 1001, 65_535, 65_536]) {
      expect([n, kernel.nan32(n)]).toEqual([n, naive(f32.subarray(0, n))]);
    }
  });

  it('finds the same NaNs and differences in answers large enough to be counted in SIMD', () => {
    // 17 MiB each: past the 16 MiB from which compareFiles counts in the kernel; 68 chunks and a tail.
    const dir = tempDir();
    const length = (17 << 20) / 8 + 3;
    const expected = Float64Array.from({length}, (_, i) => i);
    const actual = expected.slice();
    actual.set([NaN, NaN], 32_767); // on both sides of a chunk boundary
    actual[length - 1] = NaN;
    actual.set([Infinity, 5e-324, -0], 100);
    actual.set(oddNaNs64(), 2_000_000);
    writeTensor(path.join(dir, 'e64.bin'), 'f64', expected);
    writeTensor(path.join(dir, 'a64.bin'), 'f64', actual);
    const differing = actual.filter((v, i) => !Object.is(v, expected[i])).length;
    // The first difference is element 100: 100 expected, Infinity found (the bytes of each, little-endian).
    const bytes64 = (v: number) => new Uint8Array(Float64Array.of(v).buffer);
    const bytes32 = (v: number) => new Uint8Array(Float32Array.of(v).buffer);
    expect(compareFiles(path.join(dir, 'e64.bin'), path.join(dir, 'a64.bin'), 'f64')).toEqual({
      differing,
      nans: naive(actual),
      first: {index: 100, expected: bytes64(100), actual: bytes64(Infinity)},
    });
    const e32 = Float32Array.from(expected.subarray(0, 2 * length));
    const a32 = Float32Array.from(actual.subarray(0, 2 * length));
    writeTensor(path.join(dir, 'e32.bin'), 'f32', e32);
    writeTensor(path.join(dir, 'a32.bin'), 'f32', a32);
    expect(compareFiles(path.join(dir, 'e32.bin'), path.join(dir, 'a32.bin'), 'f32')).toEqual({
      differing: a32.filter((v, i) => !Object.is(v, e32[i])).length,
      nans: naive(a32),
      first: {index: 100, expected: bytes32(100), actual: bytes32(Infinity)},
    });
    // A first difference deep in the file (chunk 30 of f64, counted in SIMD) is found where it is.
    const late = expected.slice();
    late[1_000_003] = -1;
    late[2_000_000] = -2;
    writeTensor(path.join(dir, 'late.bin'), 'f64', late);
    expect(compareFiles(path.join(dir, 'e64.bin'), path.join(dir, 'late.bin'), 'f64')).toEqual({
      differing: 2,
      nans: 0,
      first: {index: 1_000_003, expected: bytes64(1_000_003), actual: bytes64(-1)},
    });
  });
});
