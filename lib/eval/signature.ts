/**
 * The runner's view of a bundle's signature at one point: every argument and
 * result with its element type and concrete shape, read from fherma.toml.
 */
import {readFile} from 'node:fs/promises';
import path from 'node:path';
import {HarnessError} from './errors.js';

/** One tensor binding with its dimensions evaluated at a point. */
export interface Binding {
  name: string;
  type: string;
  shape: number[];
}

/** What runner.py reads from its --signature file. */
export interface PointSignature {
  args: Binding[];
  results: Binding[];
}

interface RawBinding {
  name?: unknown;
  type?: unknown;
  dims?: unknown;
}

const elementTypes = new Set(['i8', 'i16', 'i32', 'i64', 'u8', 'u16', 'u32', 'u64', 'f32', 'f64']);

/** Read `<bundleDir>/fherma.toml` and evaluate every dimension at `point`. */
export async function pointSignature(bundleDir: string, point: Record<string, number>): Promise<PointSignature> {
  const file = path.join(bundleDir, 'fherma.toml');
  const {parse} = await import('smol-toml');
  let data: Record<string, unknown>;
  try {
    data = parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new HarnessError(`${file}: cannot read the bundle's signature: ${firstLine((error as Error).message)}`, 'bad-bundle');
  }
  const bindings = (key: 'args' | 'results'): Binding[] => {
    const list = data[key];
    if (!Array.isArray(list) || list.length === 0) throw new HarnessError(`${file}: no [[${key}]] in the signature`, 'bad-bundle');
    return (list as RawBinding[]).map((raw, index) => {
      if (typeof raw.name !== 'string' || typeof raw.type !== 'string' || !elementTypes.has(raw.type)) {
        throw new HarnessError(`${file}: [[${key}]] #${index + 1} needs a name and an element type (i8 ... f64)`, 'bad-bundle');
      }
      const dims = raw.dims === undefined ? [] : raw.dims;
      if (!Array.isArray(dims)) throw new HarnessError(`${file}: ${key} "${raw.name}": dims must be an array`, 'bad-bundle');
      const shape = dims.map((dim) => {
        const value = evaluateDim(String(dim), point);
        if (value === undefined || !Number.isSafeInteger(value) || value < 0) {
          throw new HarnessError(`${file}: ${key} "${raw.name}": dimension "${String(dim)}" is not a non-negative integer at point ${JSON.stringify(point)}`, 'bad-bundle');
        }
        return value;
      });
      return {name: raw.name, type: raw.type, shape};
    });
  };
  return {args: bindings('args'), results: bindings('results')};
}

/** Evaluate a dimension expression (names, integers, + - * and parentheses); undefined if malformed. */
export function evaluateDim(text: string, point: Record<string, number>): number | undefined {
  const tokens = text.match(/\s*([A-Za-z_][A-Za-z0-9_]*|\d+|[-+*()])\s*/g);
  if (!tokens || tokens.join('') !== text) return undefined;
  const list = tokens.map((token) => token.trim());
  let at = 0;
  const primary = (): number | undefined => {
    const token = list[at++];
    if (token === undefined) return undefined;
    if (token === '(') {
      const value = sum();
      return list[at++] === ')' ? value : undefined;
    }
    if (token === '-') {
      const value = primary();
      return value === undefined ? undefined : -value;
    }
    if (/^\d+$/.test(token)) return Number(token);
    if (/^[A-Za-z_]/.test(token)) return Object.hasOwn(point, token) ? point[token] : undefined;
    return undefined;
  };
  const product = (): number | undefined => {
    let value = primary();
    while (value !== undefined && list[at] === '*') {
      at++;
      const right = primary();
      value = right === undefined ? undefined : value * right;
    }
    return value;
  };
  const sum = (): number | undefined => {
    let value = product();
    while (value !== undefined && (list[at] === '+' || list[at] === '-')) {
      const op = list[at++];
      const right = product();
      value = right === undefined ? undefined : op === '+' ? value + right : value - right;
    }
    return value;
  };
  const value = sum();
  return at === list.length ? value : undefined;
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? '';
}
