import {readFileSync, readdirSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {ELEMENT_TYPES, readTensor, TENSOR_ARRAYS, TensorLengthError, writeTensor, type ElementType} from '../../dist/lib/index.js';
import {tempDir} from '../helpers/cli.js';
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
