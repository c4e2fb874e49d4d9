/**
 * A JSON reader that keeps what Python's `json.load` keeps, with the
 * reference's hooks: ints as BigInt, floats as numbers (-0.0 kept), lone
 * surrogates kept, NaN/Infinity rejected at the token, duplicate keys rejected
 * when their object closes, and CPython's exact error messages (positions in
 * code points). Also Python's text-mode file read: strict UTF-8 with
 * CPython's UnicodeDecodeError messages and universal newlines.
 */
import {UncaughtPythonError, type PyDict, type PyValue} from './py.js';

/** An error the reference catches and prints as `ERROR: <message>` (exit 2). */
export class GateError extends Error {}

/** Python's `JSONDecodeError` message for `msg` at code-unit index `pos` of `doc`. */
function decodeError(msg: string, doc: string, pos: number): GateError {
  // Convert the UTF-16 index to a code point index (doc has no lone surrogates).
  let cpPos = 0;
  let line = 1;
  let lastNewline = -1;
  for (let i = 0; i < pos; i++) {
    const c = doc.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) continue;
    if (c === 10) {
      line++;
      lastNewline = cpPos;
    }
    cpPos++;
  }
  const column = cpPos - lastNewline;
  return new GateError(`${msg}: line ${line} column ${column} (char ${cpPos})`);
}

/** Thrown where Python's scanner raises StopIteration (turned into "Expecting value"). */
class StopIteration {
  constructor(readonly index: number) {}
}

const INT_MAX_STR_DIGITS = 4300;

/** A run of string characters that need no attention. */
const STRING_RUN = /[^"\\\u0000-\u001f]*/y;

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/** The one-character escapes after a backslash (other than \u), by the escaped character's code. */
const ESCAPES = new Map<number, string>([
  [0x22, '"'],
  [0x5c, '\\'],
  [0x2f, '/'],
  [0x62, '\b'],
  [0x66, '\f'],
  [0x6e, '\n'],
  [0x72, '\r'],
  [0x74, '\t'],
]);

/**
 * CPython's json scanner over one document, step for step (py_scanstring, _match_number,
 * scan_once, JSONObject, JSONArray): every index it tests, in the order it tests them, so that
 * each error names the position and message the reference names.
 */
class Scanner {
  readonly length: number;
  readonly endIdx: number;
  /** Where the last scanned value ends (the scan methods return values, not pairs). */
  endPos = 0;

  constructor(readonly s: string) {
    this.length = s.length;
    this.endIdx = s.length - 1;
  }

  // Errors raised inside the scanner call back into Python, which needs stack
  // room: near the recursion limit the reference dies with a RecursionError
  // instead (measured on the reference: see recursionAt).
  fail(depth: number, msg: string, pos: number): never {
    recursionAt(depth, 'decode-error');
    throw decodeError(msg, this.s, pos);
  }

  /** The string whose opening quote is at `begin`; endPos after its closing quote. */
  scanString(begin: number, depth: number): string {
    const {s, length} = this;
    let chunks = '';
    let end = begin + 1;
    for (;;) {
      // Skip the plain run, then look at what stopped it.
      STRING_RUN.lastIndex = end;
      STRING_RUN.test(s);
      const next = STRING_RUN.lastIndex;
      const c = next < length ? s.charCodeAt(next) : 0;
      if (next < length && c <= 0x1f) this.fail(depth, 'Invalid control character at', next);
      if (next >= length || !(c === 0x22 || c === 0x5c)) this.fail(depth, 'Unterminated string starting at', begin);
      if (next !== end) chunks += s.slice(end, next);
      if (c === 0x22) {
        this.endPos = next + 1;
        return chunks;
      }
      if (next + 1 === length) this.fail(depth, 'Unterminated string starting at', begin);
      chunks += s.charCodeAt(next + 1) === 0x75 ? this.scanUnicodeEscape(next + 2, depth) : this.scanEscape(next + 1, depth);
      end = this.endPos;
    }
  }

  /** The one-character escape whose character is at `at`; endPos after it. */
  scanEscape(at: number, depth: number): string {
    const out = ESCAPES.get(this.s.charCodeAt(at));
    if (out === undefined) this.fail(depth, 'Invalid \\escape', at - 1);
    this.endPos = at + 1;
    return out;
  }

  /** The code point of `\uXXXX` whose hex digits start at `next`, joined with a following low surrogate escape; endPos after it. */
  scanUnicodeEscape(next: number, depth: number): string {
    const s = this.s;
    let end = next + 4;
    if (end >= this.length) this.fail(depth, 'Invalid \\uXXXX escape', next - 1);
    let u = this.hex4(next, end, depth);
    next = end;
    if (u >= 0xd800 && u <= 0xdbff && end + 6 < this.length && s.charCodeAt(next) === 0x5c && s.charCodeAt(next + 1) === 0x75) {
      end += 6;
      const u2 = this.hex4(next + 2, end, depth);
      if (u2 >= 0xdc00 && u2 <= 0xdfff) u = 0x10000 + (((u - 0xd800) << 10) | (u2 - 0xdc00));
      else end -= 6;
    }
    this.endPos = end;
    return String.fromCodePoint(u);
  }

  /** The four hex digits s[from..end) as a number; an error names the escape's `u` (end - 5), as the reference does. */
  hex4(from: number, end: number, depth: number): number {
    let u = 0;
    for (let next = from; next < end; next++) {
      const d = hexValue(this.s.charCodeAt(next));
      if (d < 0) this.fail(depth, 'Invalid \\uXXXX escape', end - 5);
      u = (u << 4) | d;
    }
    return u;
  }

  /** The number at `start` (Python's NUMBER_RE): an int as BigInt, a float as a number; endPos after it. */
  matchNumber(start: number): PyValue {
    const {s, endIdx} = this;
    let idx = start;
    if (s.charCodeAt(idx) === 0x2d) {
      idx++;
      if (idx > endIdx) throw new StopIteration(start);
    }
    let c = s.charCodeAt(idx);
    if (c >= 0x31 && c <= 0x39) {
      idx++;
      while (idx <= endIdx && isDigit(s.charCodeAt(idx))) idx++;
    } else if (c === 0x30) idx++;
    else throw new StopIteration(start);
    let isFloat = false;
    if (idx < endIdx && s.charCodeAt(idx) === 0x2e && isDigit(s.charCodeAt(idx + 1))) {
      isFloat = true;
      idx += 2;
      while (idx <= endIdx && isDigit(s.charCodeAt(idx))) idx++;
    }
    c = s.charCodeAt(idx);
    if (idx < endIdx && (c === 0x65 || c === 0x45)) {
      const eStart = idx;
      idx++;
      c = s.charCodeAt(idx);
      if (idx < endIdx && (c === 0x2d || c === 0x2b)) idx++;
      while (idx <= endIdx && isDigit(s.charCodeAt(idx))) idx++;
      if (isDigit(s.charCodeAt(idx - 1))) isFloat = true;
      else idx = eStart;
    }
    const text = s.slice(start, idx);
    this.endPos = idx;
    return isFloat ? Number(text) : pythonInt(text);
  }

  constant(token: string, depth: number): never {
    recursionAt(depth, 'hook-raise');
    throw new GateError(`JSON contains non-standard constant: ${token}`);
  }

  /** `word` (null, true, false) at idx when the reference's bounds test lets it look; endPos after it. */
  literal(idx: number, word: string, lookahead: number): boolean {
    if (!(idx + lookahead < this.length && this.s.startsWith(word, idx))) return false;
    this.endPos = idx + word.length;
    return true;
  }

  scanOnce(idx: number, depth: number): PyValue {
    if (idx >= this.length) throw new StopIteration(idx);
    const s = this.s;
    switch (s.charCodeAt(idx)) {
      case 0x22:
        return this.scanString(idx, depth);
      case 0x7b:
        return this.parseObject(idx + 1, depth + 1);
      case 0x5b:
        return this.parseArray(idx + 1, depth + 1);
      case 0x6e:
        if (this.literal(idx, 'null', 3)) return null;
        break;
      case 0x74:
        if (this.literal(idx, 'true', 3)) return true;
        break;
      case 0x66:
        if (this.literal(idx, 'false', 4)) return false;
        break;
      case 0x4e:
        if (idx + 2 < this.length && s.startsWith('NaN', idx)) this.constant('NaN', depth);
        break;
      case 0x49:
        if (idx + 7 < this.length && s.startsWith('Infinity', idx)) this.constant('Infinity', depth);
        break;
      case 0x2d:
        if (idx + 8 < this.length && s.startsWith('-Infinity', idx)) this.constant('-Infinity', depth);
        break;
    }
    return this.matchNumber(idx);
  }

  skipWs(idx: number): number {
    while (idx <= this.endIdx && isWs(this.s.charCodeAt(idx))) idx++;
    return idx;
  }

  /** The character at idx is `c` (false past the end). */
  at(idx: number, c: number): boolean {
    return idx <= this.endIdx && this.s.charCodeAt(idx) === c;
  }

  parseObject(start: number, depth: number): PyValue {
    checkDepth(depth, 'object');
    // The hook sees all pairs when the object closes and rejects the first key
    // seen before: remember that key, raise only after the object closed.
    const result: PyDict = new Map();
    let duplicate: string | undefined;
    let idx = this.skipWs(start);
    if (!this.at(idx, 0x7d)) {
      for (;;) {
        if (!this.at(idx, 0x22)) this.fail(depth, 'Expecting property name enclosed in double quotes', idx);
        const key = this.scanString(idx, depth);
        idx = this.skipWs(this.endPos);
        if (!this.at(idx, 0x3a)) this.fail(depth, "Expecting ':' delimiter", idx);
        idx = this.skipWs(idx + 1);
        const value = this.scanOnce(idx, depth);
        if (duplicate === undefined && result.has(key)) duplicate = key;
        result.set(key, value);
        idx = this.skipWs(this.endPos);
        if (this.at(idx, 0x7d)) break;
        if (!this.at(idx, 0x2c)) this.fail(depth, "Expecting ',' delimiter", idx);
        idx = this.skipWs(idx + 1);
      }
    }
    recursionAt(depth, 'hook');
    if (duplicate !== undefined) {
      recursionAt(depth, 'hook-raise');
      throw new GateError(`JSON contains duplicate key: ${duplicate}`);
    }
    this.endPos = idx + 1;
    return result;
  }

  parseArray(start: number, depth: number): PyValue {
    checkDepth(depth, 'array');
    const items: PyValue[] = [];
    let idx = this.skipWs(start);
    if (!this.at(idx, 0x5d)) {
      for (;;) {
        items.push(this.scanOnce(idx, depth));
        idx = this.skipWs(this.endPos);
        if (this.at(idx, 0x5d)) break;
        if (!this.at(idx, 0x2c)) this.fail(depth, "Expecting ',' delimiter", idx);
        idx = this.skipWs(idx + 1);
      }
    }
    this.endPos = idx + 1;
    return items;
  }
}

/** Python's int(text), with its limit on the digits of a decimal string. */
function pythonInt(text: string): bigint {
  const digits = text.charCodeAt(0) === 0x2d ? text.length - 1 : text.length;
  if (digits > INT_MAX_STR_DIGITS) {
    throw new UncaughtPythonError(
      'ValueError',
      `Exceeds the limit (${INT_MAX_STR_DIGITS} digits) for integer string conversion: value has ${digits} digits; use sys.set_int_max_str_digits() to increase the limit`,
    );
  }
  return BigInt(text);
}

function checkDepth(depth: number, what: string): void {
  if (depth > MAX_DEPTH) {
    throw new UncaughtPythonError('RecursionError', `maximum recursion depth exceeded while decoding a JSON ${what} from a unicode string`);
  }
}

/** Parse a decoded document as `json.loads(s, parse_constant=reject, object_pairs_hook=reject_duplicates)`. */
export function parseJson(s: string): PyValue {
  if (s.charCodeAt(0) === 0xfeff) throw decodeError('Unexpected UTF-8 BOM (decode using utf-8-sig)', s, 0);
  const length = s.length;
  const scanner = new Scanner(s);
  let idx = 0;
  while (idx < length && isWs(s.charCodeAt(idx))) idx++;
  let value: PyValue;
  let end: number;
  try {
    value = scanner.scanOnce(idx, 0);
    end = scanner.endPos;
  } catch (error) {
    if (error instanceof StopIteration) throw decodeError('Expecting value', s, error.index);
    throw error;
  }
  while (end < length && isWs(s.charCodeAt(end))) end++;
  if (end !== length) throw decodeError('Extra data', s, end);
  return value;
}

/**
 * The deepest container nesting the reference's json scanner accepts when it
 * runs as a script (Python's default recursion limit minus the frames above it).
 */
const MAX_DEPTH = 991;

const RECURSION = 'maximum recursion depth exceeded';

/**
 * Throw the RecursionError the reference raises when it calls back into
 * Python at container depth `depth` with too little stack left:
 * - 'hook': object_pairs_hook entered (a Python frame: needs 1 level);
 * - 'hook-raise': a hook that raises ContractError (frame + class call: 2);
 * - 'decode-error': raising JSONDecodeError from C (class call, __init__
 *   frame, ValueError.__init__ call: 3).
 * A Python frame that does not fit says only "maximum recursion depth
 * exceeded"; a C-level call says "... while calling a Python object".
 */
function recursionAt(depth: number, kind: 'hook' | 'hook-raise' | 'decode-error'): void {
  const room = MAX_DEPTH - depth;
  const calling = `${RECURSION} while calling a Python object`;
  let message: string | undefined;
  if (kind === 'decode-error') {
    if (room <= 0 || room === 2) message = calling;
    else if (room === 1) message = RECURSION;
  } else {
    if (room <= 0) message = RECURSION;
    else if (room === 1 && kind === 'hook-raise') message = calling;
  }
  if (message !== undefined) throw new UncaughtPythonError('RecursionError', message);
}

/**
 * Decode a file's bytes as Python's text-mode `open(encoding="utf-8").read()`
 * does: strict UTF-8 (CPython's UnicodeDecodeError message on failure),
 * then universal newlines.
 */
export function decodeText(bytes: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', {fatal: true, ignoreBOM: true}).decode(bytes);
  } catch {
    throw new GateError(utf8DecodeError(bytes));
  }
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

const isCont = (b: number | undefined): boolean => b !== undefined && b >= 0x80 && b <= 0xbf;

/** CPython's message for the first UTF-8 decoding error in `bytes`. */
export function utf8DecodeError(bytes: Uint8Array): string {
  const end = bytes.length;
  let s = 0;
  const fail = (kind: number): string => {
    let reason: string;
    let start = s;
    let stop: number;
    if (kind === 0) {
      reason = 'unexpected end of data';
      stop = end;
    } else if (kind === 1) {
      reason = 'invalid start byte';
      stop = start + 1;
    } else {
      reason = 'invalid continuation byte';
      stop = start + kind - 1;
    }
    if (stop === start + 1) {
      return `'utf-8' codec can't decode byte 0x${(bytes[start] as number).toString(16).padStart(2, '0')} in position ${start}: ${reason}`;
    }
    return `'utf-8' codec can't decode bytes in position ${start}-${stop - 1}: ${reason}`;
  };
  while (s < end) {
    const ch = bytes[s] as number;
    if (ch < 0x80) {
      s++;
      continue;
    }
    if (ch < 0xe0) {
      if (ch < 0xc2) return fail(1);
      if (end - s < 2) return fail(0);
      if (!isCont(bytes[s + 1])) return fail(2);
      s += 2;
      continue;
    }
    if (ch < 0xf0) {
      if (end - s < 3) {
        if (end - s >= 2) {
          const ch2 = bytes[s + 1] as number;
          if (!isCont(ch2) || (ch2 < 0xa0 ? ch === 0xe0 : ch === 0xed)) return fail(2);
        }
        return fail(0);
      }
      const ch2 = bytes[s + 1] as number;
      if (!isCont(ch2)) return fail(2);
      if (ch === 0xe0 ? ch2 < 0xa0 : ch === 0xed && ch2 >= 0xa0) return fail(2);
      if (!isCont(bytes[s + 2])) return fail(3);
      s += 3;
      continue;
    }
    if (ch < 0xf5) {
      if (end - s < 4) {
        if (end - s >= 2) {
          const ch2 = bytes[s + 1] as number;
          if (!isCont(ch2) || (ch2 < 0x90 ? ch === 0xf0 : ch === 0xf4)) return fail(2);
          if (end - s >= 3 && !isCont(bytes[s + 2])) return fail(3);
        }
        return fail(0);
      }
      const ch2 = bytes[s + 1] as number;
      if (!isCont(ch2)) return fail(2);
      if (ch === 0xf0 ? ch2 < 0x90 : ch === 0xf4 && ch2 >= 0x90) return fail(2);
      if (!isCont(bytes[s + 2])) return fail(3);
      if (!isCont(bytes[s + 3])) return fail(4);
      s += 4;
      continue;
    }
    return fail(1);
  }
  return "'utf-8' codec can't decode: unknown error";
}
