/**
 * The Python semantics the gate's output depends on, reproduced exactly:
 * float repr, repr() of strings/lists/tuples, str.strip/split/casefold,
 * code-point string order, exactly rounded means and int/float comparison
 * (json.dumps is in dumps.ts).
 *
 * Value model of parsed JSON (see json.ts): null, boolean, bigint (Python int),
 * number (Python float, -0.0 kept), string (UTF-16, lone surrogates kept),
 * PyValue[] (list) and Map<string, PyValue> (dict, insertion order).
 */
import {CASEFOLD, NONPRINTABLE, WHITESPACE} from './unicode-tables.js';

/** A parsed JSON value with Python's types. */
export type PyValue = null | boolean | bigint | number | string | PyValue[] | PyDict;
/** A Python dict with string keys. */
export type PyDict = Map<string, PyValue>;

/** A Python exception the reference does not catch: it prints a traceback and exits 1. */
export class UncaughtPythonError extends Error {
  constructor(
    readonly pyType: string,
    message: string,
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------- floats

/** Python `repr(float)`: shortest round-trip digits, Python's layout. */
export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(x);
  if (abs >= 1e-4 && abs < 1e16) {
    // JavaScript writes the same shortest digits in fixed notation in this range.
    const fixed = String(x);
    return fixed.includes('.') ? fixed : fixed + '.0';
  }
  const sign = x < 0 ? '-' : '';
  const text = Math.abs(x).toExponential();
  const ePos = text.indexOf('e');
  const digits = text.slice(0, ePos).replace('.', '');
  const exp = Number(text.slice(ePos + 1));
  if (exp < -4 || exp >= 16) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp);
    return `${sign}${mantissa}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}.0`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/** Python `float(int)`: correctly rounded, OverflowError when out of range. */
export function intToFloat(value: bigint): number {
  const result = Number(value);
  if (!Number.isFinite(result)) throw new UncaughtPythonError('OverflowError', 'int too large to convert to float');
  return result;
}

/** Python `float(value)` for an int or float. */
export function toFloat(value: bigint | number): number {
  return typeof value === 'bigint' ? intToFloat(value) : value;
}

/** Python `==` between two numbers (int/float compared exactly). */
export function numbersEqual(a: bigint | number, b: bigint | number): boolean {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a === b;
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  const int = (typeof a === 'bigint' ? a : b) as bigint;
  const float = (typeof a === 'number' ? a : b) as number;
  if (!Number.isFinite(float) || !Number.isInteger(float)) return false;
  return BigInt(float) === int;
}

// ---------------------------------------------------------------- exact mean

const scratch = new DataView(new ArrayBuffer(8));

/** Split a finite double into an integer mantissa and a power-of-two exponent. */
function decompose(x: number): [bigint, number] {
  scratch.setFloat64(0, x);
  const hi = scratch.getUint32(0);
  const lo = scratch.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exp: number;
  if (biased === 0) exp = -1074;
  else {
    mant |= 1n << 52n;
    exp = biased - 1075;
  }
  return [hi >>> 31 ? -mant : mant, exp];
}

function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

function ldexp(m: number, e: number): number {
  while (e > 1023) {
    m *= 2 ** 1023;
    e -= 1023;
  }
  if (e < -1022) {
    m *= 2 ** -1022;
    e += 1022;
  }
  return m * 2 ** e;
}

/** The double nearest to num/den (round half to even), den > 0; Python's int true division. */
function ratioToFloat(num: bigint, den: bigint): number {
  if (num === 0n) return 0;
  const negative = num < 0n;
  const a = negative ? -num : num;
  const shift = 55 - (bitLength(a) - bitLength(den));
  const scaledA = shift >= 0 ? a << BigInt(shift) : a;
  const scaledD = shift >= 0 ? den : den << BigInt(-shift);
  const q = scaledA / scaledD;
  const sticky = scaledA % scaledD !== 0n;
  const length = bitLength(q);
  const unbiased = length - 1 - shift;
  let drop = length - 53;
  if (unbiased < -1022) drop += -1022 - unbiased;
  let m: bigint;
  if (drop <= 0) m = q << BigInt(-drop);
  else {
    const d = BigInt(drop);
    m = q >> d;
    const rest = q & ((1n << d) - 1n);
    const half = 1n << (d - 1n);
    if (rest > half || (rest === half && (sticky || (m & 1n) === 1n))) m += 1n;
  }
  // q = m * 2^drop (exactly, or rounded), and the value is q * 2^-shift.
  const value = ldexp(Number(m), drop - shift);
  return negative ? -value : value;
}

/** Python `statistics.mean` over finite floats: the exactly rounded mean of their exact values. */
export function exactMean(values: ArrayLike<number>): number {
  const n = values.length;
  if (n === 0) throw new Error('mean of an empty sequence');
  // Fast path: integers whose running sum stays exact in a double.
  let sum = 0;
  let fast = true;
  for (let i = 0; i < n; i++) {
    const v = values[i] as number;
    if (!Number.isInteger(v)) {
      fast = false;
      break;
    }
    sum += v;
    if (Math.abs(sum) > 2 ** 53) {
      fast = false;
      break;
    }
  }
  if (fast) return sum === 0 ? 0 : sum / n;
  const parts: [bigint, number][] = [];
  let minExp = Infinity;
  for (let i = 0; i < n; i++) {
    const v = values[i] as number;
    if (v === 0) continue;
    const part = decompose(v);
    parts.push(part);
    if (part[1] < minExp) minExp = part[1];
  }
  if (parts.length === 0) return 0;
  let total = 0n;
  for (const [m, e] of parts) total += m << BigInt(e - minExp);
  // mean = total * 2^minExp / n
  if (minExp >= 0) return ratioToFloat(total << BigInt(minExp), BigInt(n));
  return ratioToFloat(total, BigInt(n) << BigInt(-minExp));
}

// ---------------------------------------------------------------- strings

const WHITESPACE_SET = new Set(WHITESPACE);

/** Python `str.isspace()` for one UTF-16 unit (all Python whitespace is in the BMP). */
function isPySpace(unit: number): boolean {
  return WHITESPACE_SET.has(unit);
}

/** Python `str.strip()`. */
export function pyStrip(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isPySpace(text.charCodeAt(start))) start++;
  while (end > start && isPySpace(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}

/** Python `str.split()` with no arguments. */
export function pySplit(text: string): string[] {
  const words: string[] = [];
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    if (isPySpace(text.charCodeAt(i))) {
      if (start >= 0) words.push(text.slice(start, i));
      start = -1;
    } else if (start < 0) start = i;
  }
  if (start >= 0) words.push(text.slice(start));
  return words;
}

let foldTable: Map<number, string> | undefined;

/** Python `str.casefold()`. */
export function pyCasefold(text: string): string {
  if (/^[\x00-\x7f]*$/.test(text)) return text.toLowerCase();
  if (!foldTable) {
    foldTable = new Map();
    for (const entry of CASEFOLD.split(';')) {
      const [cp, folded] = entry.split(':') as [string, string];
      foldTable.set(parseInt(cp, 16), String.fromCodePoint(...folded.split('.').map((h) => parseInt(h, 16))));
    }
  }
  let out = '';
  let changed = false;
  for (const ch of text) {
    const folded = foldTable.get(ch.codePointAt(0) as number);
    if (folded === undefined) out += ch;
    else {
      out += folded;
      changed = true;
    }
  }
  return changed ? out : text;
}

let nonPrintable: Int32Array | undefined;

/** Python `str.isprintable()` for one code point. */
function isPrintable(cp: number): boolean {
  if (cp >= 0x20 && cp < 0x7f) return true;
  if (!nonPrintable) {
    const ranges = NONPRINTABLE.split(';');
    nonPrintable = new Int32Array(ranges.length * 2);
    ranges.forEach((range, i) => {
      const [a, b] = range.split('-') as [string, string];
      nonPrintable![2 * i] = parseInt(a, 16);
      nonPrintable![2 * i + 1] = parseInt(b, 16);
    });
  }
  let lo = 0;
  let hi = nonPrintable.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < (nonPrintable[2 * mid] as number)) hi = mid - 1;
    else if (cp > (nonPrintable[2 * mid + 1] as number)) lo = mid + 1;
    else return false;
  }
  return true;
}

/** cp in lowercase hex, zero-padded to `width` digits (repr and json escapes). */
export function hex(cp: number, width: number): string {
  return cp.toString(16).padStart(width, '0');
}

/** Python `repr(str)`. */
export function reprString(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    if (ch === quote || ch === '\\') out += '\\' + ch;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (cp < 0x20 || cp === 0x7f) out += '\\x' + hex(cp, 2);
    else if (cp < 0x7f) out += ch;
    else if (isPrintable(cp)) out += ch;
    else if (cp <= 0xff) out += '\\x' + hex(cp, 2);
    else if (cp <= 0xffff) out += '\\u' + hex(cp, 4);
    else out += '\\U' + hex(cp, 8);
  }
  return out + quote;
}

/** Python `repr()` of a JSON value, or of a tuple given as {tuple: [...]}. */
export function repr(value: PyValue | {tuple: PyValue[]}): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return floatRepr(value);
  if (typeof value === 'string') return reprString(value);
  if (Array.isArray(value)) return '[' + value.map((item) => repr(item)).join(', ') + ']';
  if (value instanceof Map) {
    return '{' + [...value].map(([k, v]) => `${reprString(k)}: ${repr(v)}`).join(', ') + '}';
  }
  const items = value.tuple.map((item) => repr(item));
  return '(' + items.join(', ') + (items.length === 1 ? ',)' : ')');
}

/** Compare two strings by code points, as Python does. */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i < n) {
    const ua = a.charCodeAt(i);
    const ub = b.charCodeAt(i);
    if (ua < 0xd800 && ub < 0xd800) return ua - ub;
  }
  // Back up to the start of a code point so that pairs are compared whole.
  if (i > 0 && i < n) {
    const prev = a.charCodeAt(i - 1);
    if (prev >= 0xd800 && prev <= 0xdbff) i--;
  }
  let j = i;
  while (i < a.length && j < b.length) {
    const ca = a.codePointAt(i) as number;
    const cb = b.codePointAt(j) as number;
    if (ca !== cb) return ca - cb;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  return i < a.length ? 1 : j < b.length ? -1 : 0;
}

/** Python `sorted()` of strings. */
export function sortedStrings(values: Iterable<string>): string[] {
  return [...values].sort(compareCodePoints);
}

/**
 * Text as Python's stderr writes it (UTF-8, errors="backslashreplace"):
 * lone surrogates become `\udXXX`.
 */
export function backslashReplaceSurrogates(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, (s) => '\\u' + hex(s.charCodeAt(0), 4));
}
