/**
 * The tensor codec: one headerless little-endian row-major file per binding.
 *
 * All tensor bytes go through this module. Typed-array views are built from
 * (buffer, byteOffset, length) because Node's pooled Buffers start at non-zero
 * offsets; lengths are checked before anything is read; writes go to a temp
 * file that is renamed into place.
 */
import {closeSync, fstatSync, openSync, readSync, statSync, writeSync} from 'node:fs';
import {writeFileAtomic} from '../files.js';
import {nanKernel} from './nan-simd.js';
import {TENSOR_ARRAYS, type ElementType, type Tensor} from './tensor-arrays.js';

// Part of the bundle API since the codec wrote the first atomic files; it now lives in lib/files.ts.
export {writeFileAtomic};

export {TENSOR_ARRAYS, type ElementType, type Tensor} from './tensor-arrays.js';

/** The element types, in the order the README lists them. */
export const ELEMENT_TYPES = Object.keys(TENSOR_ARRAYS) as ElementType[];

/** Whether a string names an element type. */
export function isElementType(value: unknown): value is ElementType {
  return typeof value === 'string' && Object.hasOwn(TENSOR_ARRAYS, value);
}

/** Bytes per element of a type. */
export function elementWidth(type: ElementType): number {
  return TENSOR_ARRAYS[type].BYTES_PER_ELEMENT;
}

/** The typed-array class name a type maps to, e.g. `Float64Array` for f64. */
export function arrayName(type: ElementType): string {
  return TENSOR_ARRAYS[type].name;
}

/** The typed-array class of a value (`Float64Array`, …; a Buffer counts as Uint8Array), or a description of what it is. */
export function describeValue(value: unknown): string {
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    // Every typed array's prototype names its class through Symbol.toStringTag.
    return Object.prototype.toString.call(value).slice('[object '.length, -1);
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'Array';
  return typeof value === 'object' ? (value.constructor?.name ?? 'object') : typeof value;
}

/** Whether `value` is a typed array of element type `type`. */
export function isTensorOf(value: unknown, type: ElementType): value is Tensor {
  return describeValue(value) === arrayName(type);
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/**
 * Largest single read or write call: 1 MiB, as `dd bs=1M`. One call per tensor is 5 to 20 times
 * slower on Linux for tens of MiB (measured: 256 MiB of page-cache writes in 1 GiB calls took
 * 0.2-1.0 s, in 1 MiB calls 0.05 s), and memory stays bounded by the tensor the caller holds.
 */
const IO_CHUNK = 1 << 20;

/** A file of the wrong length: carries both lengths. */
export class TensorLengthError extends Error {
  constructor(
    readonly file: string,
    readonly expectedBytes: number,
    readonly actualBytes: number,
  ) {
    super(`${file} is ${actualBytes} bytes, expected ${expectedBytes}`);
    this.name = 'TensorLengthError';
  }
}

/** The bytes of a tensor, little-endian (a view when the host is little-endian, a swapped copy otherwise). */
export function tensorBytes(array: Tensor): Uint8Array {
  const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  return LITTLE_ENDIAN ? bytes : swapped(bytes, array.BYTES_PER_ELEMENT);
}

function swapped(bytes: Uint8Array, width: number): Uint8Array {
  const copy = bytes.slice();
  if (width > 1) for (let o = 0; o < copy.length; o += width) copy.subarray(o, o + width).reverse();
  return copy;
}

/** Read exactly `length` elements of `type` from `file`; TensorLengthError when the file has another size. */
export function readTensor(file: string, type: ElementType, length: number): Tensor {
  const Ctor = TENSOR_ARRAYS[type];
  const expected = length * Ctor.BYTES_PER_ELEMENT;
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size !== expected) throw new TensorLengthError(file, expected, size);
    const buffer = new ArrayBuffer(expected);
    const bytes = new Uint8Array(buffer);
    let done = 0;
    while (done < expected) {
      const n = readSync(fd, bytes, done, Math.min(IO_CHUNK, expected - done), done);
      if (n === 0) throw new TensorLengthError(file, expected, done);
      done += n;
    }
    if (!LITTLE_ENDIAN && Ctor.BYTES_PER_ELEMENT > 1) bytes.set(swapped(bytes, Ctor.BYTES_PER_ELEMENT));
    return new Ctor(buffer, 0, length);
  } finally {
    closeSync(fd);
  }
}

/**
 * Write a tensor to `file`, atomically by default (temp file in the same folder, then rename).
 * `{atomic: false}` writes in place: for files inside a folder that something else marks complete
 * (make's manifest.json), where the rename per file would only add cost.
 */
export function writeTensor(file: string, type: ElementType, array: Tensor, options: {atomic?: boolean} = {}): void {
  if (!isTensorOf(array, type)) {
    throw new TypeError(`writeTensor(${file}): expected ${arrayName(type)} for ${type}, got ${describeValue(array)}`);
  }
  if (options.atomic === false) writeFileDirect(file, tensorBytes(array));
  else writeFileAtomic(file, tensorBytes(array));
}

function writeFileDirect(file: string, bytes: Uint8Array): void {
  const fd = openSync(file, 'w');
  try {
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, Math.min(IO_CHUNK, bytes.length - done));
  } finally {
    closeSync(fd);
  }
}

/** Size of a regular file, or undefined when it is missing or not a file (one stat call). */
export function fileSize(file: string): number | undefined {
  const stats = statSync(file, {throwIfNoEntry: false});
  return stats?.isFile() ? stats.size : undefined;
}

// 256 KiB: the read, the NaN scan and the compare of one chunk then run in L2 cache; measured on
// 512 MiB of page-cached f64 files, about 12% faster than 1 MiB chunks, and 64 KiB is slower again.
const COMPARE_CHUNK = 1 << 18;
/**
 * Float bytes compared in this process from which the NaNs are counted in WebAssembly SIMD
 * (nan-simd.ts): below it, setting the kernel up (about 2 ms) costs more than it saves.
 */
const SIMD_FROM_BYTES = 16 << 20;
let floatBytesCompared = 0;

/** What a streamed comparison of two same-sized files found. */
export interface Comparison {
  /** Elements that differ in any byte. */
  differing: number;
  /** NaN elements in the second file (float types only). */
  nans: number;
  /** The first element that differs: its flat index and its little-endian bytes in each file (absent when none differs). */
  first?: {index: number; expected: Uint8Array; actual: Uint8Array};
}

/**
 * Compare two files of the same size element by element, streaming: count the elements that
 * differ in any byte, note the first of them, and the NaNs of `actual` when the type is a float.
 * Holds two 256 KiB chunks (small enough to stay in cache between the read and the compare).
 */
export function compareFiles(expected: string, actual: string, type: ElementType): Comparison {
  const width = elementWidth(type);
  const fa = openSync(expected, 'r');
  const fb = openSync(actual, 'r');
  try {
    const size = fstatSync(fa).size;
    const isFloat = type === 'f64' || type === 'f32';
    if (isFloat) floatBytesCompared += size;
    // Large float answers: the chunks are read into the kernel's memory and counted there.
    const kernel = isFloat && floatBytesCompared >= SIMD_FROM_BYTES ? nanKernel(COMPARE_CHUNK) : undefined;
    const {ba, bb, f64, f32} = kernel ? {ba: kernel.a, bb: kernel.b, f64: undefined, f32: undefined} : compareBuffers();
    const floats = type === 'f64' ? f64 : type === 'f32' ? f32 : undefined;
    const countNaNs = kernel ? (type === 'f64' ? kernel.nan64 : kernel.nan32) : undefined;
    let differing = 0;
    let nans = 0;
    let first: Comparison['first'];
    for (let position = 0; position < size; position += COMPARE_CHUNK) {
      const n = Math.min(COMPARE_CHUNK, size - position);
      readFully(fa, ba, n, position);
      readFully(fb, bb, n, position);
      if (countNaNs) nans += countNaNs(n / width);
      else if (floats) nans += countNaNIn(floats, n / width, !LITTLE_ENDIAN);
      if (Buffer.compare(Buffer.from(ba.buffer, ba.byteOffset, n), Buffer.from(bb.buffer, bb.byteOffset, n)) === 0) continue;
      // Only in the first chunk that differs, and only up to its first difference: the count below stays as lean as without it.
      if (!first) {
        const byte = firstDifference(ba, bb, n);
        const o = byte - (byte % width);
        first = {index: (position + o) / width, expected: ba.slice(o, o + width), actual: bb.slice(o, o + width)};
      }
      for (let o = 0; o < n; o += width) {
        for (let k = 0; k < width; k++) {
          if (ba[o + k] !== bb[o + k]) {
            differing++;
            break;
          }
        }
      }
    }
    return first ? {differing, nans, first} : {differing, nans};
  } finally {
    closeSync(fa);
    closeSync(fb);
  }
}

/** The offset of the first byte where a and b differ among their first n (n when none does). */
function firstDifference(a: Uint8Array, b: Uint8Array, n: number): number {
  let o = 0;
  while (o < n && a[o] === b[o]) o++;
  return o;
}

let buffers: {ba: Uint8Array; bb: Uint8Array; f64: Float64Array; f32: Float32Array} | undefined;

/** The two chunk buffers of compareFiles, allocated once (zeroing them per case would dominate tiny cases). */
function compareBuffers() {
  if (!buffers) {
    const bufferB = new ArrayBuffer(COMPARE_CHUNK);
    buffers = {ba: new Uint8Array(COMPARE_CHUNK), bb: new Uint8Array(bufferB), f64: new Float64Array(bufferB), f32: new Float32Array(bufferB)};
  }
  return buffers;
}

/** NaN elements among the first `length` of a float array (little-endian bytes on any host). */
function countNaNIn(floats: Float32Array | Float64Array, length: number, swap: boolean): number {
  let nans = 0;
  if (swap) {
    const view = new DataView(floats.buffer, floats.byteOffset);
    const w = floats.BYTES_PER_ELEMENT;
    for (let j = 0; j < length; j++) {
      const v = w === 8 ? view.getFloat64(8 * j, true) : view.getFloat32(4 * j, true);
      if (v !== v) nans++;
    }
    return nans;
  }
  // includes(NaN) is true when any element is NaN (SameValueZero) and runs natively: the JS loop
  // only runs for the rare chunk that has NaNs in it.
  if (!floats.subarray(0, length).includes(NaN)) return 0;
  return floats instanceof Float64Array ? nan64(floats, length) : nan32(floats, length);
}

// Two monomorphic loops: one function over both array classes runs several times slower.
function nan64(a: Float64Array, length: number): number {
  let nans = 0;
  for (let j = 0; j < length; j++) if (a[j] !== a[j]) nans++;
  return nans;
}

function nan32(a: Float32Array, length: number): number {
  let nans = 0;
  for (let j = 0; j < length; j++) if (a[j] !== a[j]) nans++;
  return nans;
}

/** NaN elements of an in-memory tensor (0 for integer types). */
export function countNaN(tensor: Tensor): number {
  if (!(tensor instanceof Float64Array || tensor instanceof Float32Array)) return 0;
  return countNaNIn(tensor, tensor.length, false);
}

function readFully(fd: number, into: Uint8Array, n: number, position: number): void {
  let done = 0;
  while (done < n) {
    const got = readSync(fd, into, done, n - done, position + done);
    if (got === 0) throw new Error(`unexpected end of file at byte ${position + done}`);
    done += got;
  }
}
