/**
 * The exact rule, verify's rule for a bundle without a verifier: byte equality per element. A
 * failed case names its first wrong element (result, index, expected and got), so that a failure
 * explains itself; the record is one element whatever the answer's size.
 */
import path from 'node:path';
import {bindingLength, bindingShape, type Binding, type Bundle} from './bundle.js';
import {compareFiles, type Comparison, type ElementType} from './codec.js';
import {describeThrown} from './errors.js';
import type {Point} from './point.js';

/**
 * The first wrong element of a failed case, as verdicts.json holds it under `metrics.first`:
 * the result's name, the element's index in the result's shape (`[]` for a scalar) and in
 * row-major order, and the two values (see `elementValue`).
 */
export interface FirstWrong {
  result: string;
  index: number[];
  flat: number;
  expected: number | string;
  got: number | string;
}

/** What the exact rule found for one case: a verdict with metrics, or a note when an answer file could not be read. */
export type ExactOutcome = {passed: boolean; metrics: Record<string, unknown>; note?: undefined} | {note: string; passed?: undefined};

/**
 * Compare every result of one case with the expected one, streaming (`compareFiles`). `wrong` and
 * `of` are summed over the results; `first` is the first differing element of the first result
 * that has one. `dirs` are the case's expected/ and out/ folders and its name (`000003`);
 * `nanNote` is told each result's NaN count.
 */
export function exactRule(
  bundle: Bundle,
  point: Point,
  dirs: {expected: string; out: string; name: string},
  nanNote: (result: Binding, nans: number) => void,
): ExactOutcome {
  let wrong = 0;
  let of = 0;
  let first: FirstWrong | undefined;
  for (const b of bundle.results) {
    let comparison: Comparison;
    try {
      comparison = compareFiles(path.join(dirs.expected, `${b.name}.bin`), path.join(dirs.out, `${b.name}.bin`), b.type);
    } catch (error) {
      // out/ belongs to the solution: a file that cannot be read here is a note on the case, never a crash.
      return {note: `out/${dirs.name}/${b.name}.bin could not be read: ${describeThrown(error)}`};
    }
    wrong += comparison.differing;
    nanNote(b, comparison.nans);
    of += Number(bindingLength(b, point));
    if (!first && comparison.first) {
      const {index, expected, actual} = comparison.first;
      const shape = bindingShape(b, point).map(Number);
      first = {result: b.name, index: unflatten(index, shape), flat: index, expected: elementValue(b.type, expected), got: elementValue(b.type, actual)};
    }
  }
  return wrong === 0 ? {passed: true, metrics: {rule: 'exact'}} : {passed: false, metrics: {rule: 'exact', wrong, of, first}};
}

/** A row-major flat index as one index per dimension (`[]` for a scalar). */
function unflatten(flat: number, shape: number[]): number[] {
  const index = new Array<number>(shape.length);
  let rest = flat;
  for (let d = shape.length - 1; d >= 0; d--) {
    index[d] = rest % shape[d]!;
    rest = Math.floor(rest / shape[d]!);
  }
  return index;
}

/**
 * One element's value from its little-endian bytes, as JSON can carry it exactly: integers as
 * numbers, 64-bit ones beyond 2^53 - 1 as decimal strings (as verdicts.json holds a verifier's
 * bigints); floats as the shortest decimal that reads back to the same value of their type (f32's
 * own shortest, `0.1`, not the double's `0.10000000149011612`); -0, NaN and the infinities, which
 * a JSON number cannot hold, as the strings `"-0"`, `"NaN"`, `"Infinity"`, `"-Infinity"`.
 */
export function elementValue(type: ElementType, bytes: Uint8Array): number | string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (type) {
    case 'i8':
      return view.getInt8(0);
    case 'u8':
      return view.getUint8(0);
    case 'i16':
      return view.getInt16(0, true);
    case 'u16':
      return view.getUint16(0, true);
    case 'i32':
      return view.getInt32(0, true);
    case 'u32':
      return view.getUint32(0, true);
    case 'i64':
    case 'u64': {
      const big = type === 'i64' ? view.getBigInt64(0, true) : view.getBigUint64(0, true);
      return Number.isSafeInteger(Number(big)) ? Number(big) : big.toString();
    }
    case 'f64':
      return floatValue(view.getFloat64(0, true), false);
    case 'f32':
      return floatValue(view.getFloat32(0, true), true);
  }
}

function floatValue(v: number, f32: boolean): number | string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  if (Object.is(v, -0)) return '-0';
  if (!f32) return v; // JSON's number text is already the shortest that reads back to the double.
  // The fewest digits (at most 9) whose double rounds to this f32; JSON prints that double shortest.
  for (let digits = 1; digits < 9; digits++) {
    const shorter = Number(v.toPrecision(digits));
    if (Math.fround(shorter) === v) return shorter;
  }
  return v;
}
