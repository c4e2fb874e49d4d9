/**
 * The mutant phase of the checker test, in memory: every mutant is judged at one small dev
 * point (`mutantPoint`) on the answers already built for it (made once, shared by every mutant),
 * by calling the verifier (or the exact rule) on the tensors themselves, with no work directory
 * written or read. A source mutant is imported once; a Python verifier's mutants all run in one
 * host process (one authored scope). A mutant stops at its first decisive answer, in battery
 * order. A mutant no trivial answer kills is tried on the edge answers (edgeAnswers): one that
 * tells it apart is shown as the answer it accepts (or rejects) and the verifier does not; a
 * source or accept mutant none tells apart is `equivalent` (a heuristic: see lib/probe/README.md).
 * This module holds the point, the scorer and the edge answers; mutant-run.ts runs the mutants.
 */
import type {Binding, Bundle} from '../bundle/bundle.js';
import type {Tensor} from '../bundle/codec.js';
import type {Plan} from '../benchmark/plan.js';
import type {BatteryPoint} from './battery-dir.js';
import {cells, isFloat, isSigned, sameTensor, type Num} from './answers.js';

/** Per-case verdict as the kill compares it: passed, the score the eval reads, and the rest of the record. */
export type Outcome = {passed: boolean; score: number | null; rest: string};

/** A concrete answer that tells a mutant apart from the verifier (or, for a wrapper mutant as weak as the verifier, a wrong answer both accept). */
export interface MutantEvidence {
  /** The answer: a trivial answer's name, or `edge: <what>`. */
  answer: string;
  /** The dev case (its number at the mutant point) and the result and element where the answer differs from the expected one. */
  case: number;
  result: string;
  element: number;
  expected: number | string;
  value: number | string;
  verifier: 'accepts' | 'rejects';
  mutant: 'accepts' | 'rejects';
  /** accuracy: the case's score under each. */
  verifierScore?: number | null;
  mutantScore?: number | null;
  /** What differs when both pass or both fail: the score, or only the metrics or error. */
  differs: 'passed' | 'score' | 'metrics' | 'none';
}

/** What a mutant is, and whether the answers killed it. */
export interface MutantOutcome {
  mutant: string;
  kind: 'source' | 'accept' | 'wrapper';
  changes: string;
  status: 'killed' | 'survived' | 'equivalent' | 'unobservable';
  /** A source mutant's line, as it is and as the mutant has it. */
  line?: number;
  before?: string;
  after?: string;
  /** The first answer whose verdict the mutant changed. */
  killedBy?: string;
  /** What changed in that answer's verdict: whether it passed, its score (accuracy), or only its metrics or error. */
  killedOn?: 'passed' | 'score' | 'metrics';
  /** A survivor's concrete answer. */
  answer?: MutantEvidence;
  /** Why the mutant cannot be observed, or why it is equivalent. */
  note?: string;
}

/** The dev point mutants run at: the one whose case holds the fewest bytes (arguments and results). */
export function mutantPoint(bundle: Bundle, points: BatteryPoint[], bytes: (b: Binding, p: BatteryPoint) => number): number {
  let best = 0;
  let least = Number.POSITIVE_INFINITY;
  points.forEach((p, k) => {
    const size = [...bundle.args, ...bundle.results].reduce((n, b) => n + bytes(b, p), 0);
    if (size < least) {
      least = size;
      best = k;
    }
  });
  return best;
}

/** A verifier's entry point (`verify(point, args, expected, actual, accept)`), as importAuthored gives it. */
export type Verifier = (...args: never[]) => unknown;

/**
 * The entry's verifier (or the exact rule) judging answers in memory, each case as verifyWorkDir
 * would judge it from files (verifyCase, the exact rule, the host's NaN rule), read as the checker
 * reads a verdict. Made inside `withAuthored` (a Python verifier's host lives in that scope), where
 * the battery's baseline and the mutants then run.
 */
export interface Scorer {
  /** The verifier, imported once; undefined for the exact rule. */
  readonly original: Verifier | undefined;
  /** Case `i` of point `p` with these result tensors, judged by `fn` (the exact rule when undefined) with this [accept]; `answer` is what the host checks for NaN. */
  judge(p: BatteryPoint, fn: Verifier | undefined, accept: Record<string, unknown>, tensors: Tensor[], i: number, answer?: Tensor[]): Promise<Outcome>;
  /** Whether an answer holds NaN in a float result (the host then fails the case whatever the verifier says). */
  hasNaN(answer: Tensor[]): boolean;
  /** The verifier's outcome on every answer of a point's battery, in battery order (answer a on case i is a * cases + i). */
  battery(p: BatteryPoint): Promise<Outcome[]>;
}

/** The scorer of an entry (call it inside `withAuthored(bundle, ...)`). */
export async function makeScorer(plan: Plan, bundle: Bundle): Promise<Scorer> {
  const {importAuthored} = await import('../bundle/authored.js');
  const [{describeThrown, elementValue}, {describeValue}] = await Promise.all([import('../bundle/index.js'), import('../bundle/codec.js')]);
  // Sets of buffers the verifier's copies are made in (one set per pending call), and each answer tensor's NaN count (the battery's tensors are never written to).
  const buffers: Array<Map<string, Tensor>> = [];
  const nanCounts = new WeakMap<Tensor, number>();
  const nansOf = (t: Tensor) => {
    let k = nanCounts.get(t);
    if (k === undefined) nanCounts.set(t, (k = countNaNs(t)));
    return k;
  };
  const hasNaN = (answer: Tensor[]) => bundle.results.some((b, r) => isFloat(b.type) && nansOf(answer[r]!) > 0);
  const judge: Scorer['judge'] = async (p, fn, accept, tensors, i, answer = tensors) => {
    const c = p.cases[i]!;
    let verdict: {passed: boolean; metrics?: Record<string, unknown>; error?: string};
    if (!fn) verdict = exact(bundle, p, c.expected, tensors, elementValue);
    else {
      // Each call gets copies (the verifier may write to what it is given, as it may to what it reads from files), in buffers of a set no other pending call holds.
      const set = buffers.pop() ?? new Map<string, Tensor>();
      const record = (group: string, bindings: Binding[], ts: Tensor[]) =>
        Object.fromEntries(bindings.map((b, r) => [b.name, copyInto(set, `${group} ${r}`, ts[r]!)]));
      let value: unknown;
      try {
        value = await (fn as (...a: unknown[]) => unknown)(
          {...p.point},
          record('args', bundle.args, c.args),
          record('expected', bundle.results, c.expected),
          record('actual', bundle.results, tensors),
          structuredClone(accept),
        );
        const v = value as {passed?: unknown; metrics?: unknown};
        // As verifyCase reads it, in its words, so a verdict reads the same here as in verdicts.json.
        const metrics = v?.metrics ?? {};
        if (typeof v !== 'object' || v === null || typeof v.passed !== 'boolean') {
          verdict = {passed: false, error: `BundleError: verify returned ${describeValue(value)} without a boolean \`passed\`, expected {passed, metrics}`};
        } else if (typeof metrics !== 'object' || metrics === null || Array.isArray(metrics)) {
          verdict = {passed: false, error: `BundleError: verify returned metrics of type ${describeValue(metrics)}, expected an object`};
        } else verdict = {passed: v.passed, metrics: jsonSafe(metrics) as Record<string, unknown>};
      } catch (error) {
        verdict = {passed: false, error: describeThrown(error).split('\n', 1)[0]};
      } finally {
        buffers.push(set);
      }
    }
    if (hasNaN(answer)) verdict.passed = false;
    return outcomeOf(plan, verdict);
  };
  const original = bundle.entry.verify ? await importAuthored(bundle.entry.verify, 'verifier') : undefined;
  const battery = async (p: BatteryPoint) => {
    const outcomes: Outcome[] = [];
    for (const answer of p.answers) for (let i = 0; i < p.cases.length; i++) outcomes.push(await judge(p, original, bundle.accept, answer.out[i]!, i));
    return outcomes;
  };
  return {original, judge, hasNaN, battery};
}

/** A verdict's outcome: passed, and on an accuracy entry the case's score (the plan's fail_score without metrics, as the eval scores it). */
function outcomeOf(plan: Plan, v: {passed: boolean; metrics?: Record<string, unknown>; error?: string}): Outcome {
  const rest = JSON.stringify({metrics: v.metrics, error: v.error});
  if (plan.metric !== 'accuracy') return {passed: v.passed, score: null, rest};
  const num = Number(v.metrics?.[plan.numerator!]);
  const den = Number(v.metrics?.[plan.denominator!]);
  return {passed: v.passed, score: v.error === undefined && Number.isFinite(num) && Number.isFinite(den) && den > 0 ? num / den : plan.failScore, rest};
}

/** The exact rule on tensors, as exact.ts judges files: byte equality per element, the first wrong element named. */
function exact(
  bundle: Bundle,
  p: BatteryPoint,
  expected: Tensor[],
  actual: Tensor[],
  elementValue: (type: Binding['type'], bytes: Uint8Array) => number | string,
) {
  let wrong = 0;
  let of = 0;
  let first: Record<string, unknown> | undefined;
  bundle.results.forEach((b, r) => {
    const e = expected[r]!;
    const a = actual[r]!;
    of += e.length;
    const width = e.BYTES_PER_ELEMENT;
    const x = new Uint8Array(e.buffer, e.byteOffset, e.byteLength);
    const y = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    if (Buffer.compare(x, y) === 0) return;
    for (let k = 0; k < e.length; k++) {
      let same = true;
      for (let o = k * width; o < (k + 1) * width; o++) {
        if (x[o] !== y[o]) {
          same = false;
          break;
        }
      }
      if (same) continue;
      wrong++;
      if (!first) {
        const shape = p.shapes[r]!;
        first = {
          result: b.name,
          index: unflatten(k, shape),
          flat: k,
          expected: elementValue(b.type, x.slice(k * width, (k + 1) * width)),
          got: elementValue(b.type, y.slice(k * width, (k + 1) * width)),
        };
      }
    }
  });
  return wrong === 0 ? {passed: true, metrics: {rule: 'exact'}} : {passed: false, metrics: {rule: 'exact', wrong, of, first}};
}

function unflatten(flat: number, shape: number[]): number[] {
  const index: number[] = [];
  for (let d = shape.length - 1; d >= 0; d--) {
    index.unshift(flat % shape[d]!);
    flat = Math.floor(flat / shape[d]!);
  }
  return index;
}

/** `t` copied into the set's buffer `key` (made, or made again, when it does not fit): what a fresh read of `t` would give. */
function copyInto(set: Map<string, Tensor>, key: string, t: Tensor): Tensor {
  let buffer = set.get(key);
  if (!buffer || buffer.constructor !== t.constructor || buffer.length !== t.length)
    set.set(key, (buffer = new (t.constructor as new (n: number) => Tensor)(t.length)));
  // One class at run time (checked above); the union of the classes' `set` overloads is what TypeScript cannot call.
  (buffer as Float64Array).set(t as Float64Array);
  return buffer;
}

function countNaNs(t: Tensor): number {
  let k = 0;
  for (let i = 0; i < t.length; i++) if (Number.isNaN(t[i] as number)) k++;
  return k;
}

function jsonSafe(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? (Number.isSafeInteger(Number(v)) ? Number(v) : String(v)) : v)));
}

/** One edge answer: the expected answer of case `i` with one element of one result changed (or two swapped, or one copied). */
export interface EdgeAnswer {
  name: string;
  key: string;
  i: number;
  tensors: Tensor[];
}

/** The integer types' extremes. */
const extremes: Record<string, [Num, Num]> = {
  i8: [-128, 127],
  u8: [0, 255],
  i16: [-32768, 32767],
  u16: [0, 65535],
  i32: [-2147483648, 2147483647],
  u32: [0, 4294967295],
  i64: [-(2n ** 63n), 2n ** 63n - 1n],
  u64: [0n, 2n ** 64n - 1n],
};

/** The values an edge answer puts in place of element value `e` of a result of this type. */
function edgeValues(type: Binding['type'], e: Num): Array<[string, Num]> {
  if (typeof e === 'bigint') {
    const [lo, hi] = extremes[type]!;
    return [
      ['+1', e + 1n],
      ['-1', e - 1n],
      ['+2', e + 2n],
      ['0', 0n],
      ['-x', -e],
      ['x2', e * 2n],
      ['min', lo],
      ['max', hi],
    ];
  }
  if (isFloat(type)) {
    const out: Array<[string, Num]> = [
      ['NaN', Number.NaN],
      ['+Infinity', Number.POSITIVE_INFINITY],
      ['-Infinity', Number.NEGATIVE_INFINITY],
      ['-0', -0],
      ['0', 0],
      ['-x', -e],
      ['huge', Number.MAX_VALUE],
      ['-huge', -Number.MAX_VALUE],
      ['tiny', Number.MIN_VALUE],
      ['+1', e + 1],
      ['-1', e - 1],
    ];
    for (const k of [1, 2, 4, 7, 10, 13, 16, 20, 23, 26, 30, 36, 42, 52]) {
      out.push([`x(1+2^-${k})`, e * (1 + 2 ** -k)], [`x(1-2^-${k})`, e * (1 - 2 ** -k)]);
      if (k >= 10) out.push([`+2^-${k}`, e + 2 ** -k]);
    }
    if (type === 'f64') out.push(['f32', Math.fround(e)]);
    return out;
  }
  const [lo, hi] = extremes[type]!;
  const out: Array<[string, Num]> = [
    ['+1', e + 1],
    ['-1', e - 1],
    ['+2', e + 2],
    ['0', 0],
    ['x2', e * 2],
    ['min', lo],
    ['max', hi],
  ];
  if (isSigned(type)) out.push(['-x', -e]);
  return out;
}

/** The edge answers at one point: for each of the first two cases, result and element (first, second, middle, last), each edge value; then a swap and a copy. */
export function* edgeAnswers(bundle: Bundle, p: BatteryPoint): Generator<EdgeAnswer> {
  for (let i = 0; i < Math.min(2, p.cases.length); i++) {
    const expected = p.cases[i]!.expected;
    for (const [r, b] of bundle.results.entries()) {
      const e = expected[r]!;
      const len = e.length;
      if (len === 0) continue;
      const positions = [...new Set([0, 1, len >> 1, len - 1].filter((k) => k < len))];
      for (const k of positions) {
        const v = cells(e)[k]!;
        for (const [what, value] of edgeValues(b.type, v)) {
          const t = e.slice();
          cells(t)[k] = value;
          if (sameTensor(t, e)) continue;
          const tensors = expected.slice();
          tensors[r] = t;
          yield {name: `edge: ${what} at element ${k} of ${b.name}`, key: `edge ${i} ${r} ${k} ${what}`, i, tensors};
        }
      }
      if (len >= 2) {
        const swapped = e.slice();
        const two = cells(swapped);
        [two[0], two[1]] = [two[1]!, two[0]!];
        if (!sameTensor(swapped, e)) {
          const tensors = expected.slice();
          tensors[r] = swapped;
          yield {name: `edge: elements 0 and 1 of ${b.name} swapped`, key: `edge ${i} ${r} swap`, i, tensors};
        }
        const copied = e.slice();
        const into = cells(copied);
        into[1] = into[0]!;
        if (!sameTensor(copied, e)) {
          const tensors = expected.slice();
          tensors[r] = copied;
          yield {name: `edge: element 0 of ${b.name} copied to element 1`, key: `edge ${i} ${r} copy`, i, tensors};
        }
      }
    }
  }
}
