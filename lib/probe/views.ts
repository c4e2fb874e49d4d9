/**
 * Wrapper mutants of a verifier: the entry's own verifier (or the exact rule)
 * run on a view of the answer in which whatever a weaker checker would not
 * look at is replaced by the expected answer. "Checks only even rows" is the
 * verifier seeing the expected answer in odd rows, whatever the answer had
 * there. They apply to every bundle, in any language, with or without a
 * verifier, and only ever loosen it: the expected answer passes each of them.
 */
import type {Binding} from '../bundle/bundle.js';
import type {Tensor} from '../bundle/codec.js';
import {cells, isFloat, isSigned, rowLength, sameTensor, type Num} from './answers.js';

/** What a view is made from: one result of one case. */
interface ViewInput {
  binding: Binding;
  shape: number[];
  actual: Tensor;
  expected: Tensor;
  args: Tensor[];
  /** The case's number within its work directory, and how many there are. */
  caseIndex: number;
  cases: number;
}

/** One wrapper mutant: what it changes, whether it fits a result, and the answer the verifier then sees. */
export interface ViewMutant {
  readonly name: string;
  readonly changes: string;
  /** Whether the mutant exists for a result of this shape, whose expected answer (of one case) is `sample`. */
  applies(binding: Binding, shape: number[], sample: Tensor): boolean;
  see(input: ViewInput): Tensor;
  /** Why the mutant cannot be observed whatever the battery holds (not counted as killed or surviving). */
  unobservable?(binding: Binding): string | undefined;
}

const at = (t: Tensor, i: number): Num => cells(t)[i]!;
const num = (v: Num): number => Number(v);

/** The expected answer where `ignored(i)`, the answer elsewhere. */
const ignoring = (input: ViewInput, ignored: (i: number) => boolean): Tensor => {
  const out = input.actual.slice() as Tensor;
  const into = cells(out);
  for (let i = 0; i < into.length; i++) if (ignored(i)) into[i] = at(input.expected, i);
  return out;
};
/** The expected answer in each run [from, to) of elements, the answer elsewhere (what `ignoring` gives, a run at a time). */
const expectedIn = (input: ViewInput, runs: ReadonlyArray<readonly [number, number]>): Tensor => {
  const out = input.actual.slice() as Tensor;
  // Both are of one class at run time, and `set`/`subarray` act alike on every class;
  // the union of their overloads is what TypeScript cannot call, so one class is named.
  const into = out as Float64Array;
  const from = input.expected as Float64Array;
  for (const [start, end] of runs) if (end > start) into.set(from.subarray(start, end), start);
  return out;
};
/** The answer at every `step`-th element (from the first), the expected answer elsewhere. */
const answerEvery = (input: ViewInput, step: number): Tensor => {
  const out = input.expected.slice() as Tensor;
  const into = cells(out);
  for (let i = 0; i < into.length; i += step) into[i] = at(input.actual, i);
  return out;
};
/** The expected answer when `accepted` holds of the whole answer, the answer as it is otherwise. */
const wholeIf = (input: ViewInput, accepted: boolean): Tensor => (accepted ? input.expected : input.actual);

const every = (t: Tensor, test: (v: Num, i: number) => boolean): boolean => {
  for (let i = 0; i < t.length; i++) if (!test(at(t, i), i)) return false;
  return true;
};
const equal = (a: Num, b: Num): boolean => (typeof a === 'bigint' || typeof b === 'bigint' ? BigInt(a) === BigInt(b) : Object.is(a, b) || a === b);
/*
 * The views that ignore an element by its value: `ignoring`, written out as one loop each over
 * number tensors (a test called per element cost 30 ns, its two numbers boxed), `ignoring` itself
 * for 64-bit integers.
 */
type Floats = Exclude<Tensor, BigInt64Array | BigUint64Array>;
const isBig = (t: Tensor): boolean => t instanceof BigInt64Array || t instanceof BigUint64Array;
const pair = (input: ViewInput): [Floats, Floats, Floats] => [input.actual as Floats, input.expected as Floats, input.actual.slice() as Floats];
const withinRelative = (input: ViewInput, rel: number, abs = 0): Tensor => {
  if (isBig(input.actual) || isBig(input.expected)) {
    return ignoring(input, (i) => {
      const a = num(at(input.actual, i));
      const e = num(at(input.expected, i));
      return Math.abs(a - e) <= Math.max(abs, rel * Math.abs(e));
    });
  }
  const [a, e, out] = pair(input);
  for (let i = 0; i < out.length; i++) if (Math.abs(a[i]! - e[i]!) <= Math.max(abs, rel * Math.abs(e[i]!))) out[i] = e[i]!;
  return out;
};
const signIgnored = (input: ViewInput): Tensor => {
  if (isBig(input.actual) || isBig(input.expected))
    return ignoring(input, (i) => closeTo(Math.abs(num(at(input.actual, i))), Math.abs(num(at(input.expected, i)))));
  const [a, e, out] = pair(input);
  for (let i = 0; i < out.length; i++) if (closeTo(Math.abs(a[i]!), Math.abs(e[i]!))) out[i] = e[i]!;
  return out;
};
const f32Accepted = (input: ViewInput): Tensor => {
  if (isBig(input.actual) || isBig(input.expected))
    return ignoring(input, (i) => Math.fround(num(at(input.actual, i))) === Math.fround(num(at(input.expected, i))));
  const [a, e, out] = pair(input);
  for (let i = 0; i < out.length; i++) if (Math.fround(a[i]!) === Math.fround(e[i]!)) out[i] = e[i]!;
  return out;
};
const infinityAccepted = (input: ViewInput): Tensor => {
  if (isBig(input.actual) || isBig(input.expected)) return ignoring(input, (i) => Math.abs(num(at(input.actual, i))) === Number.POSITIVE_INFINITY);
  const [a, e, out] = pair(input);
  for (let i = 0; i < out.length; i++) if (Math.abs(a[i]!) === Number.POSITIVE_INFINITY) out[i] = e[i]!;
  return out;
};
/**
 * Whether run `r` (elements r w to (r + 1) w) of the answer `a` is the same multiset as that run of
 * `expected`, values compared as their decimal text (0 and -0 alike, NaN alike): the same values,
 * else the same order-free digest and the same sorted values (numeric sort: -0 next to 0, NaN
 * last). The expected answer's digests and sorted runs are kept (it is never written to).
 */
function sameRun(a: Tensor, expected: Tensor, w: number, r: number): boolean {
  const from = r * w;
  const to = Math.min(a.length, from + w);
  let same = true;
  for (let i = from; i < to && same; i++) if (!alike(at(a, i), at(expected, i))) same = false;
  if (same) return true;
  const runs = runsOf(expected, w);
  if (digest(a, from, to) !== runs.digests[r]) return false;
  const x = a.slice(from, to).sort();
  runs.sorted ??= sortedRuns(expected, w);
  for (let i = 0; i < x.length; i++) if (!alike(at(x, i), at(runs.sorted, from + i))) return false;
  return true;
}
/** An expected answer's runs of one width: each one's digest, and (once asked for) a copy with each run sorted. */
interface Runs {
  digests: Int32Array;
  sorted?: Tensor;
}
const runsCache = new WeakMap<Tensor, Map<number, Runs>>();
function runsOf(t: Tensor, w: number): Runs {
  let byWidth = runsCache.get(t);
  if (!byWidth) runsCache.set(t, (byWidth = new Map()));
  let runs = byWidth.get(w);
  if (!runs) {
    const digests = new Int32Array(Math.ceil(t.length / w));
    for (let r = 0; r < digests.length; r++) digests[r] = digest(t, r * w, Math.min(t.length, (r + 1) * w));
    byWidth.set(w, (runs = {digests}));
  }
  return runs;
}
function sortedRuns(t: Tensor, w: number): Tensor {
  const copy = t.slice() as Tensor;
  for (let start = 0; start < copy.length; start += w) (copy.subarray(start, start + w) as Tensor).sort();
  return copy;
}
const alike = (a: Num, b: Num): boolean => a === b || (a !== a && b !== b);
const scratch = new Float64Array(1);
const words = new Uint32Array(scratch.buffer);
/** A 32-bit mix of one element's two words. */
const mix = (lo: number, hi: number): number => {
  let x = Math.imul(lo ^ Math.imul(hi ^ (hi >>> 15), 0x9e3779b1), 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return x ^ (x >>> 16);
};
/** An order-free digest of elements `from` to `to` (a sum of each element's hash): equal multisets (0 and -0 alike, NaN alike) give equal digests. */
function digest(t: Tensor, from: number, to: number): number {
  let h = 0;
  if (isBig(t)) {
    const w = new Uint32Array(t.buffer, t.byteOffset + from * 8, (to - from) * 2);
    for (let k = 0; k < w.length; k += 2) h = (h + mix(w[k]!, w[k + 1]!)) | 0;
    return h;
  }
  const n = t as Exclude<Tensor, BigInt64Array | BigUint64Array>;
  for (let i = from; i < to; i++) {
    const v = n[i]!;
    scratch[0] = v === 0 ? 0 : v !== v ? Number.NaN : v;
    h = (h + mix(words[0]!, words[1]!)) | 0;
  }
  return h;
}
const rowsOf = (input: ViewInput): number => input.actual.length / rowLength(input.shape);
const all = () => true;
const multiRow = (_b: Binding, shape: number[]) => shape.length >= 2 && shape[0]! > 1;
const float = (b: Binding) => isFloat(b.type);
/** A relative tolerance is a mutant of an integer result only where it admits another integer (else it is the exact rule). */
const admitsOther = (rel: number) => (b: Binding, _shape: number[], sample: Tensor) => isFloat(b.type) || maxAbs(sample) * rel >= 1;

/** The wrapper mutants, each named for the checker it stands for. */
export const viewMutants: readonly ViewMutant[] = [
  {name: 'shapes-only', changes: 'checks only that each result has the right size', applies: all, see: (v) => v.expected},
  {name: 'first-case-only', changes: 'checks only the first case', applies: all, see: (v) => wholeIf(v, v.caseIndex > 0)},
  {name: 'even-cases-only', changes: 'checks every other case', applies: all, see: (v) => wholeIf(v, v.caseIndex % 2 === 1)},
  {name: 'even-elements-only', changes: 'checks every other element', applies: (_b, s) => s.length < 2, see: (v) => answerEvery(v, 2)},
  {name: 'stride-4-sample', changes: 'checks every fourth element', applies: all, see: (v) => answerEvery(v, 4)},
  {
    name: 'first-half-only',
    changes: 'checks the first half of the elements',
    applies: all,
    see: (v) => expectedIn(v, [[Math.ceil(v.actual.length / 2), v.actual.length]]),
  },
  {
    name: 'prefix-16',
    changes: 'checks the first 16 elements',
    applies: (_b, s) => s.reduce((a, b) => a * b, 1) > 16,
    see: (v) => expectedIn(v, [[16, v.actual.length]]),
  },
  {
    name: 'first-element-ignored',
    changes: 'skips the first element, a loop from 1',
    applies: all,
    see: (v) => expectedIn(v, [[0, Math.min(1, v.actual.length)]]),
  },
  {
    name: 'last-element-ignored',
    changes: 'skips the last element, a loop bound one short',
    applies: all,
    see: (v) => expectedIn(v, [[Math.max(0, v.actual.length - 1), v.actual.length]]),
  },
  {
    name: 'even-rows-only',
    changes: 'checks every other row, a sample of rows',
    applies: multiRow,
    see: (v) => {
      const w = rowLength(v.shape);
      const odd: Array<[number, number]> = [];
      for (let r = 1; r < rowsOf(v); r += 2) odd.push([r * w, (r + 1) * w]);
      return expectedIn(v, odd);
    },
  },
  {
    name: 'first-row-only',
    changes: 'checks only the first row',
    applies: multiRow,
    see: (v) => {
      const w = rowLength(v.shape);
      return expectedIn(v, [[Math.min(w, v.actual.length), v.actual.length]]);
    },
  },
  {
    name: 'order-in-row-ignored',
    changes: 'compares each row as a multiset, ignoring the order within a row',
    applies: multiRow,
    see: (v) => {
      const w = rowLength(v.shape);
      const same: Array<[number, number]> = [];
      for (let r = 0; r < rowsOf(v); r++) if (sameRun(v.actual, v.expected, w, r)) same.push([r * w, (r + 1) * w]);
      return expectedIn(v, same);
    },
  },
  {
    name: 'order-ignored',
    changes: 'compares the elements as a multiset, ignoring their order',
    applies: all,
    see: (v) => wholeIf(v, v.actual.length === v.expected.length && (v.actual.length === 0 || sameRun(v.actual, v.expected, v.actual.length, 0))),
  },
  {
    name: 'sum-only',
    changes: 'compares only the sum of the elements, a checksum',
    applies: all,
    see: (v) => wholeIf(v, closeTo(sum(v.actual), sum(v.expected))),
  },
  {
    name: 'max-only',
    changes: 'compares only the largest absolute element, a norm',
    applies: all,
    see: (v) => wholeIf(v, closeTo(maxAbs(v.actual), maxAbs(v.expected))),
  },
  {name: 'sign-ignored', changes: 'compares absolute values, ignoring the sign', applies: (b) => isSigned(b.type), see: signIgnored},
  {name: 'scale-ignored', changes: 'accepts any multiple of the expected answer', applies: all, see: (v) => wholeIf(v, proportional(v.actual, v.expected))},
  {
    name: 'zeros-accepted',
    changes: 'accepts an answer of all zeros',
    applies: all,
    see: (v) =>
      wholeIf(
        v,
        every(v.actual, (x) => num(x) === 0),
      ),
  },
  {
    name: 'constant-accepted',
    changes: 'accepts an answer whose elements are all equal',
    applies: (_b, s) => s.reduce((a, b) => a * b, 1) > 1,
    see: (v) =>
      wholeIf(
        v,
        every(v.actual, (x) => equal(x, at(v.actual, 0))),
      ),
  },
  {
    name: 'echo-accepted',
    changes: 'accepts an argument given back as the answer',
    applies: all,
    see: (v) =>
      wholeIf(
        v,
        v.args.some(
          (arg) =>
            arg.length > 0 &&
            every(v.actual, (x, i) => num(x) === num(at(arg, i % arg.length)) || (typeof x !== 'bigint' && Math.trunc(num(at(arg, i % arg.length))) === x)),
        ),
      ),
  },
  {
    name: 'majority-right',
    changes: 'passes when at least half of the elements are right',
    applies: all,
    see: (v) => wholeIf(v, countRight(v) * 2 >= v.actual.length),
  },
  {name: 'any-right', changes: 'passes when any element is right', applies: all, see: (v) => wholeIf(v, countRight(v) > 0)},
  {name: 'off-by-one-accepted', changes: 'accepts each element within 1 of the expected one', applies: all, see: (v) => withinRelative(v, 0, 1)},
  {
    name: 'tolerance-1e-3',
    changes: 'accepts each element within 1e-3 relative of the expected one',
    applies: admitsOther(1e-3),
    see: (v) => withinRelative(v, 1e-3),
  },
  {
    name: 'tolerance-1e-6',
    changes: 'accepts each element within 1e-6 relative of the expected one',
    applies: admitsOther(1e-6),
    see: (v) => withinRelative(v, 1e-6),
  },
  {name: 'f32-accepted', changes: 'compares in f32, so the expected answer rounded to f32 passes', applies: (b) => b.type === 'f64', see: f32Accepted},
  {name: 'infinity-accepted', changes: 'skips elements that are infinite', applies: float, see: infinityAccepted},
  {
    name: 'nan-accepted',
    changes: 'skips elements that are NaN',
    applies: float,
    see: (v) => ignoring(v, (i) => Number.isNaN(num(at(v.actual, i)))),
    unobservable: () => 'the bundle host fails every answer holding NaN whatever the verifier says, so no verifier can accept NaN',
  },
];

function sum(t: Tensor): number {
  let s = 0;
  for (let i = 0; i < t.length; i++) s += num(at(t, i));
  return s;
}
function maxAbs(t: Tensor): number {
  let m = 0;
  for (let i = 0; i < t.length; i++) m = Math.max(m, Math.abs(num(at(t, i))));
  return m;
}
function closeTo(a: number, b: number): boolean {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a === b;
  return a === b || Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
}
function countRight(v: ViewInput): number {
  let right = 0;
  for (let i = 0; i < v.actual.length; i++) if (equal(at(v.actual, i), at(v.expected, i))) right++;
  return right;
}
/** Whether `a` = c * `b` for one c (zero answers excluded: zeros-accepted stands for those). */
function proportional(a: Tensor, b: Tensor): boolean {
  if (sameTensor(a, b)) return true;
  let ratio: number | undefined;
  for (let i = 0; i < a.length; i++) {
    const x = num(at(a, i));
    const y = num(at(b, i));
    if (y === 0) {
      if (x !== 0) return false;
      continue;
    }
    const r = x / y;
    if (!Number.isFinite(r) || r === 0) return false;
    if (ratio === undefined) ratio = r;
    else if (!closeTo(r, ratio)) return false;
  }
  return ratio !== undefined;
}
