/**
 * The answer-level battery of `verify --probe`: trivial answers written
 * straight into a work directory's `out/`, built from each case's expected
 * answer and arguments at the tensor level. No solution runs, so scoring them
 * costs one verify of the work directory. They are what the checker is tested
 * with: a wrong answer the verifier passes is a finding, and a mutant of the
 * verifier (mutants.ts) is killed when some answer's verdict changes.
 */
import type {Binding} from '../bundle/bundle.js';
import type {ElementType, Tensor} from '../bundle/codec.js';

/**
 * How an answer is judged: `control` is the oracle's own answer, `near` is the oracle's answer
 * at lower precision (right or wrong depending on the task's tolerance, so never a finding;
 * it is there to kill loosened tolerances), `wrong` must not pass a case.
 */
export type AnswerKind = 'control' | 'near' | 'wrong';

/** What an answer is built from, for one result of one case. */
export interface AnswerInput {
  binding: Binding;
  /** The result's dimensions at this point (a scalar: []). */
  shape: number[];
  expected: Tensor;
  /** The case's arguments, in the bundle's order. */
  args: Array<{binding: Binding; tensor: Tensor}>;
  /** The same result's expected answer of the next case (the stale answer), absent with one case. */
  nextExpected?: Tensor;
}

/** One trivial answer: its name, what it is, and how it is made (undefined: the result keeps its expected answer). */
export interface TrivialAnswer {
  readonly name: string;
  readonly kind: AnswerKind;
  readonly tries: string;
  /**
   * Whether a solution could give this answer knowing nothing of the expected one (zeros, echo,
   * random): only such an answer is held to an accuracy entry's floor. One made from the expected
   * answer (half right, one element changed) earns the partial credit it deserves there.
   */
  readonly blind?: boolean;
  make(input: AnswerInput): Tensor | undefined;
}

export type Num = number | bigint;
/**
 * Any tensor's elements by index: every Tensor (a union of typed arrays, whose index
 * signatures TypeScript will not merge) is assignable to it without a cast. Writing
 * a number into a 64-bit integer tensor throws at run time, so writers convert first.
 */
export type Cells = {[index: number]: Num; readonly length: number};
/** `t`'s elements, read and written by index. */
export const cells = (t: Tensor): Cells => t;

/** Whether a type holds floats, and whether it is signed. */
export const isFloat = (type: ElementType): boolean => type === 'f32' || type === 'f64';
export const isSigned = (type: ElementType): boolean => type.startsWith('i') || isFloat(type);

/** A fresh tensor like `t` (same class and length), filled by `f` of each index. */
function mapTensor(t: Tensor, f: (value: Num, i: number) => Num): Tensor {
  const out = new (t.constructor as new (n: number) => Tensor)(t.length);
  const cell = cells(out);
  const big = typeof cell[0] === 'bigint' || isBig(out);
  const from = cells(t);
  for (let i = 0; i < t.length; i++) {
    const v = f(from[i]!, i);
    cell[i] = big ? toBig(v) : Number(v);
  }
  return out;
}

const isBig = (t: Tensor): boolean => t instanceof BigInt64Array || t instanceof BigUint64Array;

/** A fresh tensor like `t` with every element `value` (a bigint in a 64-bit integer tensor), as mapTensor would store it. */
function filled(t: Tensor, value: number): Tensor {
  const out = new (t.constructor as new (n: number) => Tensor)(t.length);
  if (isBig(out)) (out as BigInt64Array).fill(toBig(value));
  else (out as Float64Array).fill(value);
  return out;
}

function toBig(v: Num): bigint {
  if (typeof v === 'bigint') return v;
  return Number.isFinite(v) ? BigInt(Math.trunc(v)) : 0n;
}

/** `v + k` in the value's own arithmetic (the typed array wraps or rounds it when stored). */
const plus = (v: Num, k: number): Num => (typeof v === 'bigint' ? v + BigInt(k) : v + k);
const times = (v: Num, k: number): Num => (typeof v === 'bigint' ? v * BigInt(k) : v * k);
const zeroLike = (v: Num): Num => (typeof v === 'bigint' ? 0n : 0);

/** A value surely different from `v`: +max(1, |v|) for floats, +1 for integers (wrapping). */
function changed(v: Num, type: ElementType): Num {
  if (typeof v === 'bigint') return v + 1n;
  return isFloat(type) ? v + Math.max(1, Math.abs(v)) : v + 1;
}

/** `x` rounded to `bits` significant bits (f16 keeps 11), zero and non-finite values as they are. */
function roundBits(x: number, bits: number): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  const step = 2 ** (Math.floor(Math.log2(Math.abs(x))) - (bits - 1));
  return Math.round(x / step) * step;
}

/** Row length of a result: the product of all but its first dimension (1 for a vector or scalar). */
export const rowLength = (shape: number[]): number => (shape.length < 2 ? 1 : shape.slice(1).reduce((a, b) => a * b, 1));
const rows = (shape: number[], length: number): number => length / rowLength(shape);

/** A small deterministic generator, so the battery and its verdicts are the same on every run. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** The first argument's values, cast to the result's type and repeated to its length (the inputs given back). */
function echo(input: AnswerInput): Tensor | undefined {
  const source = input.args[0]?.tensor;
  if (!source || source.length === 0) return undefined;
  const float = isFloat(input.binding.type);
  return mapTensor(input.expected, (v, i) => {
    const s = cells(source)[i % source.length]!;
    if (typeof v === 'bigint') return typeof s === 'bigint' ? s : toBig(s);
    const n = Number(s);
    return float ? n : Math.trunc(n);
  });
}

const floatOnly = (make: (input: AnswerInput) => Tensor) => (input: AnswerInput) => (isFloat(input.binding.type) ? make(input) : undefined);
const keepRows = (input: AnswerInput, keep: (row: number, rows: number) => boolean) => {
  const width = rowLength(input.shape);
  const n = rows(input.shape, input.expected.length);
  return mapTensor(input.expected, (v, i) => (keep(Math.floor(i / width), n) ? v : zeroLike(v)));
};
const oneChanged = (input: AnswerInput, at: (n: number) => number) => {
  const k = at(input.expected.length);
  return mapTensor(input.expected, (v, i) => (i === k ? changed(v, input.binding.type) : v));
};

/** The battery, in order; `expected` first (the control every other verdict is read against). */
export const trivialAnswers: readonly TrivialAnswer[] = [
  {name: 'expected', kind: 'control', tries: "the oracle's own answer", make: (a) => a.expected},
  {name: 'zeros', kind: 'wrong', blind: true, tries: 'every element 0', make: (a) => filled(a.expected, 0)},
  {name: 'ones', kind: 'wrong', blind: true, tries: 'every element 1', make: (a) => filled(a.expected, 1)},
  {
    name: 'constant',
    kind: 'wrong',
    blind: true,
    tries: "every element the expected answer's middle element",
    make: (a) => {
      const middle = cells(a.expected)[a.expected.length >> 1]!;
      return typeof middle === 'bigint' ? mapTensor(a.expected, () => middle) : filled(a.expected, middle);
    },
  },
  {name: 'nan', kind: 'wrong', blind: true, tries: 'every element NaN, for a float result', make: floatOnly((a) => filled(a.expected, Number.NaN))},
  {
    name: 'infinity',
    kind: 'wrong',
    blind: true,
    tries: 'every element +Infinity, for a float result',
    make: floatOnly((a) => filled(a.expected, Number.POSITIVE_INFINITY)),
  },
  {name: 'echo', kind: 'wrong', blind: true, tries: 'the first argument, cast and repeated to fill the result', make: echo},
  {
    name: 'f32',
    kind: 'near',
    tries: 'the expected answer rounded to f32, for an f64 result',
    make: (a) => (a.binding.type === 'f64' ? mapTensor(a.expected, (v) => Math.fround(Number(v))) : undefined),
  },
  {
    name: 'f16',
    kind: 'near',
    tries: 'the expected answer rounded to 11 significant bits as f16 holds it, for a float result',
    make: floatOnly((a) => mapTensor(a.expected, (v) => roundBits(Number(v), 11))),
  },
  {
    name: 'noise-1e-3',
    kind: 'near',
    tries: 'the expected answer times 1 + 1e-3 and 1 - 1e-3 alternately, for a float result',
    make: floatOnly((a) => mapTensor(a.expected, (v, i) => Number(v) * (1 + (i % 2 ? -1e-3 : 1e-3)))),
  },
  {
    name: 'noise-1e-6',
    kind: 'near',
    tries: 'the expected answer times 1 + 1e-6 and 1 - 1e-6 alternately, for a float result',
    make: floatOnly((a) => mapTensor(a.expected, (v, i) => Number(v) * (1 + (i % 2 ? -1e-6 : 1e-6)))),
  },
  {
    name: 'plus-one',
    kind: 'wrong',
    tries: 'every element of the expected answer plus 1, for an integer result',
    make: (a) => (isFloat(a.binding.type) ? undefined : mapTensor(a.expected, (v) => plus(v, 1))),
  },
  {
    name: 'first-half',
    kind: 'wrong',
    tries: 'the expected answer in the first half of the elements and zeros after',
    make: (a) => mapTensor(a.expected, (v, i) => (i < a.expected.length / 2 ? v : zeroLike(v))),
  },
  {
    name: 'alternate',
    kind: 'wrong',
    tries: 'the expected answer at even elements and zeros at odd ones',
    make: (a) => mapTensor(a.expected, (v, i) => (i % 2 === 0 ? v : zeroLike(v))),
  },
  {
    name: 'alternate-rows',
    kind: 'wrong',
    tries: 'the expected answer in even rows and zeros in odd rows, for a result of 2 or more dimensions',
    make: (a) => (a.shape.length < 2 ? undefined : keepRows(a, (r) => r % 2 === 0)),
  },
  {
    name: 'first-row',
    kind: 'wrong',
    tries: 'the expected answer in the first row and zeros after it, for a result of 2 or more dimensions',
    make: (a) => (a.shape.length < 2 ? undefined : keepRows(a, (r) => r === 0)),
  },
  {name: 'wrong-first', kind: 'wrong', tries: 'the expected answer with its first element changed', make: (a) => oneChanged(a, () => 0)},
  {name: 'wrong-middle', kind: 'wrong', tries: 'the expected answer with its middle element changed', make: (a) => oneChanged(a, (n) => n >> 1)},
  {name: 'wrong-last', kind: 'wrong', tries: 'the expected answer with its last element changed', make: (a) => oneChanged(a, (n) => n - 1)},
  {
    name: 'duplicate',
    kind: 'wrong',
    tries: "the expected answer with each row's second element a copy of its first, a repeated index where two tie",
    make: (a) => {
      const w = a.shape.length < 2 ? a.expected.length : rowLength(a.shape);
      if (w < 2) return undefined;
      return mapTensor(a.expected, (v, i) => (i % w === 1 ? cells(a.expected)[i - 1]! : v));
    },
  },
  {
    name: 'negated',
    kind: 'wrong',
    tries: 'the expected answer with every sign flipped, for a signed result',
    make: (a) => (isSigned(a.binding.type) ? mapTensor(a.expected, (v) => times(v, -1)) : undefined),
  },
  {
    name: 'reversed',
    kind: 'wrong',
    tries: 'the expected answer with its elements in reverse order',
    make: (a) => mapTensor(a.expected, (_v, i) => cells(a.expected)[a.expected.length - 1 - i]!),
  },
  {
    name: 'rows-reversed',
    kind: 'wrong',
    tries: 'the expected answer with each row in reverse order, for a result of 2 or more dimensions',
    make: (a) => {
      if (a.shape.length < 2) return undefined;
      const w = rowLength(a.shape);
      return mapTensor(a.expected, (_v, i) => cells(a.expected)[i - (i % w) + (w - 1 - (i % w))]!);
    },
  },
  {name: 'doubled', kind: 'wrong', tries: 'the expected answer times 2', make: (a) => mapTensor(a.expected, (v) => times(v, 2))},
  {name: 'stale', kind: 'wrong', tries: "the next case's expected answer, as a stale cache would give", make: (a) => a.nextExpected},
  {
    name: 'random',
    kind: 'wrong',
    blind: true,
    tries: "seeded random values between the expected answer's least and greatest element",
    make: (a) => {
      // The least and greatest of the first 2^16 finite elements (0 and 1 when there is none).
      let lo = Number.POSITIVE_INFINITY;
      let hi = Number.NEGATIVE_INFINITY;
      let seen = 0;
      const values = cells(a.expected);
      for (let i = 0; i < values.length && seen < 1 << 16; i++) {
        const x = Number(values[i]!);
        if (!Number.isFinite(x)) continue;
        seen++;
        if (x < lo || (x === 0 && lo === 0 && Object.is(x, -0))) lo = x;
        if (x > hi || (x === 0 && hi === 0 && Object.is(hi, -0))) hi = x;
      }
      if (seen === 0) [lo, hi] = [0, 1];
      const next = lcg(a.expected.length);
      const float = isFloat(a.binding.type);
      return mapTensor(a.expected, () => {
        const x = lo + (hi - lo) * next();
        return float ? x : Math.floor(x);
      });
    },
  },
];

/** Whether two tensors hold the same bytes (so a "wrong" answer that happens to be right is never a finding). */
export function sameTensor(a: Tensor, b: Tensor): boolean {
  if (a.length !== b.length) return false;
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  return Buffer.compare(x, y) === 0;
}
