/** Parsing `--point` and `--seeds`: usage errors, found before anything is written. */
import {UsageError} from '../errors.js';
import {bindingLength, type Bundle} from './bundle.js';
import {evalDim} from './dims.js';

/** A point: the point parameters by name, in signature order. */
export type Point = Record<string, number>;

/** Most cases one work directory can number (six digits). */
export const MAX_CASES = 1_000_000;

/** A JSON text clipped for an error line: at most `max` characters, with the full length when cut. */
function clip(text: string, max = 60): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

/** Index just past the JSON string that starts at `text[i]` (a `"`). */
function stringEnd(text: string, i: number): number {
  for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
  return i + 1;
}

/**
 * The members of the top-level object of valid JSON `text`, in order: each key
 * (unescaped) with the raw text of its value, which is what tells `2` from
 * `2.0` and keeps every digit of `12345678901234567890`.
 */
function topLevelMembers(text: string): {key: string; raw: string}[] {
  const members: {key: string; raw: string}[] = [];
  let depth = 0;
  let key: string | undefined;
  let valueStart = -1;
  const close = (i: number) => {
    if (key !== undefined && valueStart >= 0) members.push({key, raw: text.slice(valueStart, i).trim()});
    key = undefined;
    valueStart = -1;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      const end = stringEnd(text, i);
      if (depth === 1 && key === undefined) key = JSON.parse(text.slice(i, end)) as string;
      i = end - 1;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (depth === 1) close(i);
      depth--;
    } else if (depth === 1 && c === ':') valueStart = i + 1;
    else if (depth === 1 && c === ',') close(i);
  }
  return members;
}

/** Check a point (JSON text or object) against the signature; UsageError naming the problem. */
export function parsePoint(bundle: Bundle, json: string | object): Point {
  let value: unknown = json;
  if (typeof json === 'string') {
    try {
      value = JSON.parse(json);
    } catch {
      throw new UsageError(`--point is not valid JSON: ${clip(JSON.stringify(json))}; expected an object like ${example(bundle)}`);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`--point must be a JSON object like ${example(bundle)}, got ${clip(JSON.stringify(value))}`);
  }
  const given = value as Record<string, unknown>;
  // The raw text of each value: JSON.parse keeps the last of two equal keys (a point that says
  // N twice is a mistake to report) and reads 2.0 as 2, where the protocol's Python reads a float.
  const members = typeof json === 'string' ? topLevelMembers(json) : [];
  const rawText = new Map<string, string>();
  for (const {key, raw} of members) {
    if (rawText.has(key)) throw new UsageError(`--point gives ${clip(key)} more than once; give each parameter once, like ${example(bundle)}`);
    rawText.set(key, raw);
  }
  const names = bundle.point.map((p) => p.name);
  const extra = Object.keys(given).filter((key) => !names.includes(key));
  if (extra.length > 0) {
    const shown =
      extra
        .slice(0, 3)
        .map((key) => clip(key))
        .join(', ') + (extra.length > 3 ? ` and ${extra.length - 3} more` : '');
    throw new UsageError(`--point has unknown parameter${extra.length > 1 ? 's' : ''} ${shown}; the point parameters are ${names.join(', ') || '(none)'}`);
  }
  const missing = names.filter((name) => !Object.hasOwn(given, name));
  if (missing.length > 0) {
    throw new UsageError(`--point lacks parameter${missing.length > 1 ? 's' : ''} ${missing.join(', ')}; expected ${example(bundle)}`);
  }
  const point: Point = {};
  for (const param of bundle.point) {
    // A bigint (TOML readers may give one) is fine when it is a safe integer.
    const raw = given[param.name];
    const text = rawText.get(param.name);
    if (text !== undefined && /^-?\d+$/.test(text) && !Number.isSafeInteger(Number(text))) {
      throw new UsageError(`--point ${param.name} = ${clip(text)} is out of range, expected ${param.min}..${param.max}`);
    }
    if (text !== undefined && /^-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$/.test(text) && !/^-?\d+$/.test(text)) {
      const integral = Number.isInteger(Number(text)) ? `; write ${Number(text)}` : '';
      throw new UsageError(`--point ${param.name} must be an integer in ${param.min}..${param.max}, got ${clip(text)} (a float in JSON${integral})`);
    }
    const v = typeof raw === 'bigint' && Number.isSafeInteger(Number(raw)) ? Number(raw) : raw;
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
      throw new UsageError(`--point ${param.name} must be an integer in ${param.min}..${param.max}, got ${clip(show(raw))}`);
    }
    if (v < param.min || v > param.max) {
      throw new UsageError(`--point ${param.name} = ${v} is out of range, expected ${param.min}..${param.max}`);
    }
    point[param.name] = v;
  }
  for (const binding of [...bundle.args, ...bundle.results]) {
    binding.dimExprs.forEach((expr, k) => {
      const size = evalDim(expr, point);
      if (size < 0n) {
        throw new UsageError(`--point gives ${binding.name} dimension \`${binding.dims[k]}\` = ${size}, expected a size >= 0`);
      }
    });
    if (bindingLength(binding, point) > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new UsageError(`--point makes ${binding.name} too large to address (more than 2^53 elements)`);
    }
  }
  return point;
}

function show(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  return JSON.stringify(value) ?? String(value);
}

function example(bundle: Bundle): string {
  return JSON.stringify(Object.fromEntries(bundle.point.map((p) => [p.name, p.min])));
}

/**
 * A seed: any non-negative integer, exact. A number when it is at most
 * 2^53 - 1 (every seed a plan is likely to hold), a bigint above that; the
 * stream is keyed on its decimal digits either way.
 */
export type Seed = number | bigint;

/**
 * Parse `--seeds`: `0-7`, `0,3,5`, `0-2,7,9`. Seeds are decimal non-negative integers of any
 * size (exact: a bigint above 2^53 - 1), distinct, at most 1,000,000 of them.
 */
export function parseSeedList(text: string, label = '--seeds'): Seed[] {
  const bad = (why: string): never => {
    throw new UsageError(`${label} ${clip(JSON.stringify(text))} ${why}; expected a range 0-7, a list 0,3,5 or a mix 0-2,7,9`);
  };
  if (typeof text !== 'string' || text.trim() === '') return bad('is empty');
  const seeds: Seed[] = [];
  const seen = new Set<string>();
  const add = (seed: bigint) => {
    const key = seed.toString();
    if (seen.has(key)) bad(`lists seed ${key} twice`);
    seen.add(key);
    seeds.push(seed <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(seed) : seed);
    if (seeds.length > MAX_CASES) bad(`lists more than ${MAX_CASES} seeds (case numbers have six digits)`);
  };
  for (const rawItem of text.split(',')) {
    const item = rawItem.trim();
    const range = /^(\d+)-(\d+)$/.exec(item);
    if (range) {
      const lo = seedNumber(range[1]!, bad);
      const hi = seedNumber(range[2]!, bad);
      if (lo > hi) bad(`has a descending range ${clip(item)}`);
      if (hi - lo >= BigInt(MAX_CASES)) bad(`lists more than ${MAX_CASES} seeds (case numbers have six digits)`);
      for (let s = lo; s <= hi; s++) add(s);
    } else if (/^\d+$/.test(item)) {
      add(seedNumber(item, bad));
    } else {
      bad(item === '' ? 'has an empty item' : `has ${clip(JSON.stringify(item))}, which is not a seed or a range`);
    }
  }
  return seeds;
}

/**
 * `parseSeedList` for callers that keep seeds as numbers (eval plans): a seed above 2^53 - 1
 * is a usage error there.
 */
export function parseSeeds(text: string, label = '--seeds'): number[] {
  const seeds = parseSeedList(text, label);
  const big = seeds.find((seed) => typeof seed === 'bigint');
  if (big !== undefined) {
    throw new UsageError(
      `${label} ${clip(JSON.stringify(text))} has seed ${clip(big.toString())}, above 2^53 - 1; seeds here must be at most 9007199254740991`,
    );
  }
  return seeds as number[];
}

function seedNumber(digits: string, bad: (why: string) => never): bigint {
  if (digits.length > 1 && digits.startsWith('0')) bad(`has ${clip(digits)} with a leading zero (write ${clip(digits.replace(/^0+(?=\d)/, ''))})`);
  return BigInt(digits);
}
