/**
 * Python's json.dumps as the reference calls it (sort_keys, ensure_ascii=False, optional indent),
 * to text and straight to UTF-8 bytes, and the UnicodeEncodeError a lone surrogate raises when
 * the text is encoded.
 */
import {compareCodePoints, floatRepr, hex} from './py.js';

/** A value json.dumps can write: PyValue, or a plain object with fixed keys. */
export type DumpValue = null | boolean | bigint | number | string | readonly DumpValue[] | Map<string, DumpValue> | {readonly [key: string]: DumpValue};

const ESCAPES: Record<string, string> = {'"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f'};

/** json.dumps of a string with ensure_ascii=False. */
function dumpString(text: string): string {
  // eslint-disable-next-line no-control-regex
  if (!/["\\\u0000-\u001f]/.test(text)) return '"' + text + '"';
  // eslint-disable-next-line no-control-regex
  return '"' + text.replace(/["\\\u0000-\u001f]/g, (c) => ESCAPES[c] ?? '\\u' + hex(c.charCodeAt(0), 4)) + '"';
}

// Objects of a few shapes (records, trial results and their checks) repeat:
// remember the sorted order of the last few key sequences.
const recentShapes: [string[], string[]][] = [];

/** Keys in code point order. */
function sortedKeys(keys: string[]): string[] {
  if (keys.length < 2) return keys;
  for (const [seen, sorted] of recentShapes) {
    if (seen.length !== keys.length) continue;
    let same = true;
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] !== seen[i]) {
        same = false;
        break;
      }
    }
    if (same) return sorted;
  }
  const sorted = [...keys].sort(compareCodePoints);
  recentShapes.unshift([keys, sorted]);
  if (recentShapes.length > 8) recentShapes.pop();
  return sorted;
}

/**
 * json.dumps(value, ensure_ascii=False, sort_keys=True) with either
 * separators=(",", ":") (indent undefined) or indent=n.
 */
export function dumps(value: DumpValue, indent?: number): string {
  const out = dumpsUtf8(value, indent);
  // Lone surrogates cannot be UTF-8: write this (rare) text the slow way.
  return out.wellFormed ? new TextDecoder().decode(out.bytes) : dumpsText(value, indent);
}

const encoder = new TextEncoder();

/** A growable UTF-8 buffer. */
class Utf8Writer {
  bytes = new Uint8Array(1 << 16);
  length = 0;
  wellFormed = true;

  private reserve(extra: number): void {
    if (this.length + extra <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + extra) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  /** Text known to be ASCII. */
  ascii(text: string): void {
    const n = text.length;
    this.reserve(n);
    const bytes = this.bytes;
    let at = this.length;
    for (let i = 0; i < n; i++) bytes[at++] = text.charCodeAt(i);
    this.length = at;
  }

  byte(b: number): void {
    this.reserve(1);
    this.bytes[this.length++] = b;
  }

  /**
   * A JSON string literal. Nearly all text in a result package is plain
   * printable ASCII: copy it in one pass that also checks each character, and
   * only fall back to escaping / UTF-8 encoding when one needs it.
   */
  quoted(text: string): void {
    const n = text.length;
    this.reserve(n + 2);
    const bytes = this.bytes;
    let at = this.length;
    bytes[at++] = 0x22;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x20 || c === 0x22 || c === 0x5c || c >= 0x80) return this.quotedSlow(text);
      bytes[at++] = c;
    }
    bytes[at++] = 0x22;
    this.length = at;
  }

  private quotedSlow(text: string): void {
    if (NEEDS_ESCAPE.test(text)) text = dumpString(text).slice(1, -1);
    this.byte(0x22);
    this.text(text);
    this.byte(0x22);
  }

  text(text: string): void {
    this.reserve(text.length * 3);
    let ascii = true;
    for (let i = 0; i < text.length; i++) {
      if (text.charCodeAt(i) >= 0x80) {
        ascii = false;
        break;
      }
    }
    if (ascii) {
      const bytes = this.bytes;
      let at = this.length;
      for (let i = 0; i < text.length; i++) bytes[at++] = text.charCodeAt(i);
      this.length = at;
      return;
    }
    if (!text.isWellFormed()) this.wellFormed = false;
    this.length += encoder.encodeInto(text, this.bytes.subarray(this.length)).written;
  }
}

// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;

/**
 * json.dumps straight to UTF-8 bytes (no intermediate strings: the documents
 * are megabytes). `wellFormed` is false when a string held a lone surrogate,
 * which UTF-8 cannot encode (the bytes then hold U+FFFD in its place).
 */
export function dumpsUtf8(value: DumpValue, indent?: number): {bytes: Uint8Array; wellFormed: boolean} {
  const w = new Utf8Writer();
  const pads: string[] = [];
  const pad = (level: number): string => (pads[level] ??= '\n' + ' '.repeat((indent ?? 0) * level));
  const write = (v: DumpValue, level: number): void => {
    if (v === null) w.ascii('null');
    else if (v === true) w.ascii('true');
    else if (v === false) w.ascii('false');
    else if (typeof v === 'string') w.quoted(v);
    else if (typeof v === 'bigint') w.ascii(v.toString());
    else if (typeof v === 'number') {
      if (Number.isNaN(v)) w.ascii('NaN');
      else if (v === Infinity) w.ascii('Infinity');
      else if (v === -Infinity) w.ascii('-Infinity');
      else w.ascii(floatRepr(v));
    } else if (Array.isArray(v)) {
      const items = v as readonly DumpValue[];
      if (items.length === 0) return w.ascii('[]');
      w.byte(0x5b);
      for (let i = 0; i < items.length; i++) {
        if (i > 0) w.byte(0x2c);
        if (indent !== undefined) w.ascii(pad(level + 1));
        write(items[i] as DumpValue, level + 1);
      }
      if (indent !== undefined) w.ascii(pad(level));
      w.byte(0x5d);
    } else {
      const isMap = v instanceof Map;
      const keys = sortedKeys(isMap ? [...(v as Map<string, DumpValue>).keys()] : Object.keys(v));
      if (keys.length === 0) return w.ascii('{}');
      w.byte(0x7b);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i] as string;
        if (i > 0) w.byte(0x2c);
        if (indent !== undefined) w.ascii(pad(level + 1));
        w.quoted(key);
        w.ascii(indent === undefined ? ':' : ': ');
        write(isMap ? ((v as Map<string, DumpValue>).get(key) as DumpValue) : ((v as {readonly [key: string]: DumpValue})[key] as DumpValue), level + 1);
      }
      if (indent !== undefined) w.ascii(pad(level));
      w.byte(0x7d);
    }
  };
  write(value, 0);
  return {bytes: w.bytes.subarray(0, w.length), wellFormed: w.wellFormed};
}

/** json.dumps as text (keeps lone surrogates; used when the UTF-8 path cannot). */
export function dumpsText(value: DumpValue, indent?: number): string {
  const keySeparator = indent === undefined ? ':' : ': ';
  const pads: string[] = [];
  const pad = (level: number): string => (pads[level] ??= '\n' + ' '.repeat((indent ?? 0) * level));
  const write = (v: DumpValue, level: number): string => {
    if (v === null) return 'null';
    if (v === true) return 'true';
    if (v === false) return 'false';
    if (typeof v === 'string') return dumpString(v);
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'number') {
      if (Number.isNaN(v)) return 'NaN';
      if (v === Infinity) return 'Infinity';
      if (v === -Infinity) return '-Infinity';
      return floatRepr(v);
    }
    const inner = indent === undefined ? '' : pad(level + 1);
    let out: string;
    if (Array.isArray(v)) {
      const items = v as readonly DumpValue[];
      if (items.length === 0) return '[]';
      out = '[';
      for (let i = 0; i < items.length; i++) out += (i > 0 ? ',' : '') + inner + write(items[i] as DumpValue, level + 1);
      out += indent === undefined ? ']' : pad(level) + ']';
      return out;
    }
    const isMap = v instanceof Map;
    const keys = sortedKeys(isMap ? [...v.keys()] : Object.keys(v));
    if (keys.length === 0) return '{}';
    out = '{';
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      const item = isMap ? (v.get(key) as DumpValue) : ((v as {readonly [key: string]: DumpValue})[key] as DumpValue);
      out += (i > 0 ? ',' : '') + inner + dumpString(key) + keySeparator + write(item, level + 1);
    }
    out += indent === undefined ? '}' : pad(level) + '}';
    return out;
  };
  return write(value, 0);
}

/**
 * Python's `str.encode("utf-8")` check: the message of the UnicodeEncodeError
 * it raises for lone surrogates, or undefined when the text encodes.
 */
export function utf8EncodeError(text: string): string | undefined {
  if (text.isWellFormed()) return undefined;
  const match = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.exec(text);
  if (!match) return undefined;
  // Position in code points; then the run of consecutive surrogates.
  let position = 0;
  for (let i = 0; i < match.index; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const p = text.charCodeAt(i - 1);
      if (p >= 0xd800 && p <= 0xdbff) continue;
    }
    position++;
  }
  let end = match.index;
  // Consecutive lone surrogates (a high followed by a low would be a pair, so never both).
  while (end < text.length) {
    const c = text.charCodeAt(end);
    if (c < 0xd800 || c > 0xdfff) break;
    if (c <= 0xdbff && end + 1 < text.length) {
      const n = text.charCodeAt(end + 1);
      if (n >= 0xdc00 && n <= 0xdfff) break;
    }
    end++;
  }
  const count = end - match.index;
  if (count === 1) {
    return `'utf-8' codec can't encode character '\\u${hex(text.charCodeAt(match.index), 4)}' in position ${position}: surrogates not allowed`;
  }
  return `'utf-8' codec can't encode characters in position ${position}-${position + count - 1}: surrogates not allowed`;
}
