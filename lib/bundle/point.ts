/** Parsing `--point` and `--seeds`: usage errors, found before anything is written. */
import {UsageError} from '../errors.js';
import {bindingLength, type Bundle} from './bundle.js';
import {evalDim} from './dims.js';

/** A point: the point parameters by name, in signature order. */
export type Point = Record<string, number>;

/** Most cases one work directory can number (six digits). */
export const MAX_CASES = 1_000_000;

const keyColon = /[ \t\n\r]*:/y;

/** The first key of the top-level object in valid JSON `text` that appears twice, if any. */
function repeatedKey(text: string): string | undefined {
  const seen = new Set<string>();
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if (c === '"') {
      const start = i;
      for (i++; text[i] !== '"'; i++) if (text[i] === '\\') i++;
      keyColon.lastIndex = i + 1;
      if (depth !== 1 || !keyColon.test(text)) continue;
      const key = JSON.parse(text.slice(start, i + 1)) as string;
      if (seen.has(key)) return key;
      seen.add(key);
    }
  }
  return undefined;
}

/** Check a point (JSON text or object) against the signature; UsageError naming the problem. */
export function parsePoint(bundle: Bundle, json: string | object): Point {
  let value: unknown = json;
  if (typeof json === 'string') {
    try {
      value = JSON.parse(json);
    } catch {
      throw new UsageError(`--point is not valid JSON: ${JSON.stringify(json)}; expected an object like ${example(bundle)}`);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`--point must be a JSON object like ${example(bundle)}, got ${JSON.stringify(value)}`);
  }
  const given = value as Record<string, unknown>;
  // JSON.parse keeps the last of two equal keys; a point that says N twice is a mistake to report.
  const repeated = typeof json === 'string' ? repeatedKey(json) : undefined;
  if (repeated !== undefined) throw new UsageError(`--point gives ${repeated} more than once; give each parameter once, like ${example(bundle)}`);
  const names = bundle.point.map((p) => p.name);
  const extra = Object.keys(given).filter((key) => !names.includes(key));
  if (extra.length > 0) {
    throw new UsageError(`--point has unknown parameter${extra.length > 1 ? 's' : ''} ${extra.join(', ')}; the point parameters are ${names.join(', ') || '(none)'}`);
  }
  const missing = names.filter((name) => !Object.hasOwn(given, name));
  if (missing.length > 0) {
    throw new UsageError(`--point lacks parameter${missing.length > 1 ? 's' : ''} ${missing.join(', ')}; expected ${example(bundle)}`);
  }
  const point: Point = {};
  for (const param of bundle.point) {
    // A bigint (TOML readers may give one) is fine when it is a safe integer.
    const raw = given[param.name];
    const v = typeof raw === 'bigint' && Number.isSafeInteger(Number(raw)) ? Number(raw) : raw;
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
      throw new UsageError(`--point ${param.name} must be an integer in ${param.min}..${param.max}, got ${show(raw)}`);
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

/** Parse `--seeds`: `0-7`, `0,3,5`, `0-2,7,9`. Seeds are decimal non-negative integers, distinct, at most 1,000,000. */
export function parseSeeds(text: string, label = '--seeds'): number[] {
  const bad = (why: string): never => {
    throw new UsageError(`${label} ${JSON.stringify(text)} ${why}; expected a range 0-7, a list 0,3,5 or a mix 0-2,7,9`);
  };
  if (typeof text !== 'string' || text.trim() === '') return bad('is empty');
  const seeds: number[] = [];
  const seen = new Set<number>();
  const add = (seed: number) => {
    if (seen.has(seed)) bad(`lists seed ${seed} twice`);
    seen.add(seed);
    seeds.push(seed);
    if (seeds.length > MAX_CASES) bad(`lists more than ${MAX_CASES} seeds (case numbers have six digits)`);
  };
  for (const rawItem of text.split(',')) {
    const item = rawItem.trim();
    const range = /^(\d+)-(\d+)$/.exec(item);
    if (range) {
      const lo = seedNumber(range[1]!, bad);
      const hi = seedNumber(range[2]!, bad);
      if (lo > hi) bad(`has a descending range ${item}`);
      if (hi - lo >= MAX_CASES) bad(`lists more than ${MAX_CASES} seeds (case numbers have six digits)`);
      for (let s = lo; s <= hi; s++) add(s);
    } else if (/^\d+$/.test(item)) {
      add(seedNumber(item, bad));
    } else {
      bad(item === '' ? 'has an empty item' : `has ${JSON.stringify(item)}, which is not a seed or a range`);
    }
  }
  return seeds;
}

function seedNumber(digits: string, bad: (why: string) => never): number {
  if (digits.length > 1 && digits.startsWith('0')) bad(`has ${digits} with a leading zero (write ${Number(digits)})`);
  const n = Number(digits);
  if (!Number.isSafeInteger(n)) bad(`has seed ${digits}, above 2^53 - 1`);
  return n;
}
