/** The wrapper mutants' views (lib/probe/views.ts): what a weaker checker would not look at, shown to the verifier as the expected answer. */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {repoRoot} from '../helpers/cli.js';

const {viewMutants} = (await import(path.join(repoRoot, 'dist/lib/probe/views.js'))) as typeof import('../../lib/probe/views.js');

type Tensor = import('../../lib/bundle/tensor-arrays.js').Tensor;
/** The elements of what a view shows, as numbers. */
const values = (tensor: Tensor): number[] => Array.from(tensor as ArrayLike<number>);
const view = (name: string) => viewMutants.find((v) => v.name === name)!;
const see = (name: string, actual: Tensor, expected: Tensor, shape = [actual.length]) =>
  view(name).see({
    binding: {name: 'y', type: actual instanceof Float64Array ? 'f64' : actual instanceof BigInt64Array ? 'i64' : 'i32', dims: []} as never,
    shape,
    actual,
    expected,
    args: [],
    caseIndex: 0,
    cases: 1,
  });

describe('wrapper views', () => {
  it('order-ignored: a permutation is the expected answer (0 and -0 alike, NaN alike); another multiset is the answer itself', () => {
    const expected = new Float64Array([3, 0, Number.NaN, -1, 2.5, 3]);
    expect(see('order-ignored', new Float64Array([3, 3, 2.5, -0, -1, Number.NaN]), expected)).toBe(expected);
    // The same sum, the same elements but one: not a permutation.
    const other = new Float64Array([3, 0, Number.NaN, -1, 2.5, 2.5]);
    expect(see('order-ignored', other, expected)).toBe(other);
    const ints = new BigInt64Array([5n, -(2n ** 62n), 0n, 5n]);
    expect(see('order-ignored', new BigInt64Array([5n, 5n, 0n, -(2n ** 62n)]), ints)).toBe(ints);
    const wrong = new BigInt64Array([5n, 0n, 0n, -(2n ** 62n)]);
    expect(see('order-ignored', wrong, ints)).toBe(wrong);
  });

  it('order-in-row-ignored: a row that is a permutation of its expected row reads as it, the others stay', () => {
    const expected = new Int32Array([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const actual = new Int32Array([3, 1, 2, 4, 5, 7, 9, 8, 7]);
    expect(values(see('order-in-row-ignored', actual, expected, [3, 3]))).toEqual([1, 2, 3, 4, 5, 7, 7, 8, 9]);
  });

  it('the index views show the expected answer exactly where they do not look', () => {
    const expected = new Float64Array([10, 11, 12, 13, 14, 15, 16, 17, 18]);
    const actual = new Float64Array(9);
    expect(values(see('first-half-only', actual, expected))).toEqual([0, 0, 0, 0, 0, 15, 16, 17, 18]);
    expect(values(see('stride-4-sample', actual, expected))).toEqual([0, 11, 12, 13, 0, 15, 16, 17, 0]);
    expect(values(see('even-elements-only', actual, expected))).toEqual([0, 11, 0, 13, 0, 15, 0, 17, 0]);
    expect(values(see('first-element-ignored', actual, expected))).toEqual([10, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(values(see('last-element-ignored', actual, expected))).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 18]);
    expect(values(see('even-rows-only', actual, expected, [3, 3]))).toEqual([0, 0, 0, 13, 14, 15, 0, 0, 0]);
    expect(values(see('first-row-only', actual, expected, [3, 3]))).toEqual([0, 0, 0, 13, 14, 15, 16, 17, 18]);
    // The answer itself is never written to.
    expect(Array.from(actual)).toEqual(Array(9).fill(0));
  });

  it('the order views see a reordered large answer (512k elements, whole and row by row) as the expected one', () => {
    const n = 1 << 19;
    const expected = Float64Array.from({length: n}, (_x, i) => Math.sin(i) * 1e3);
    const reversed = expected.slice().reverse();
    const rowsReversed = expected.slice();
    for (let r = 0; r < 512; r++) rowsReversed.subarray(r * (n / 512), (r + 1) * (n / 512)).reverse();
    for (let k = 0; k < 4; k++) expect(see('order-ignored', reversed, expected)).toBe(expected);
    for (let k = 0; k < 4; k++)
      expect(Buffer.from(see('order-in-row-ignored', rowsReversed, expected, [512, n / 512]).buffer).equals(Buffer.from(expected.buffer))).toBe(true);
    // A changed element is seen: the views compare values, not only sizes.
    const changed = reversed.slice();
    changed[7]! += 1;
    expect(see('order-ignored', changed, expected)).not.toBe(expected);
  });
});
