/**
 * Helpers for the zoo entries whose bundle is written in Python (generate.py, oracle.py): the
 * entry's signature for runPython, a Python snippet run beside the bundle's own modules, and the
 * bundle's make and verify through the public CLI.
 */
import {spawnSync} from 'node:child_process';
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {parse} from 'smol-toml';
import {expect} from 'vitest';
import {runCli, tempDir} from '../helpers/cli.js';
import {type Entry, type Point, repoRoot, zoo} from './harness.js';

/** The signature of a zoo entry's bundle, in the shape runPython takes (no JavaScript functions). */
export function pythonEntry(name: string): Entry {
  const toml = parse(readFileSync(path.join(zoo, name, 'bundle/fherma.toml'), 'utf8')) as Record<string, any>;
  const missing = () => {
    throw new Error(`${name}: a Python bundle has no JavaScript generate or oracle`);
  };
  return {spec: toml.spec, args: toml.args, results: toml.results, accept: toml.accept ?? {}, generate: missing, oracle: missing};
}

/**
 * Run `code` with the entry's bundle folder first on sys.path (its modules import as the host
 * imports them) and arbor's Python stream importable as `arbor_stream`. The input is in `job`;
 * the snippet prints its JSON answer.
 */
export function pythonInBundle(name: string, code: string, input: unknown): any {
  const prelude = `import json, sys, importlib.util
sys.path.insert(0, ${JSON.stringify(path.join(zoo, name, 'bundle'))})
_spec = importlib.util.spec_from_file_location("arbor_stream", ${JSON.stringify(path.join(repoRoot, 'lib/bundle/stream.py'))})
arbor_stream = importlib.util.module_from_spec(_spec)
sys.modules["arbor_stream"] = arbor_stream
_spec.loader.exec_module(arbor_stream)
job = json.load(sys.stdin)
`;
  const run = spawnSync('python3', ['-B', '-c', prelude + code], {input: JSON.stringify(input), encoding: 'utf8', maxBuffer: 1 << 28});
  if (run.status !== 0) throw new Error(`python3 failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** `arbor bundle zoo/<name>/bundle make` into a fresh work directory; returns it. */
export function makeCases(name: string, point: Point, seeds: string): string {
  const dir = path.join(tempDir(), 'work');
  const made = runCli(['bundle', path.join(zoo, name, 'bundle'), 'make', dir, '--point', JSON.stringify(point), '--seeds', seeds]);
  expect(made.stderr).not.toMatch(/error|threw/i);
  expect(made.code).toBe(0);
  return dir;
}

const caseDir = (k: number) => String(k).padStart(6, '0');

/** The bytes of one tensor of a work directory: `cases`, `expected` or `out`. */
export function tensorBytes(dir: string, part: 'cases' | 'expected' | 'out', k: number, binding: string): Buffer {
  return readFileSync(path.join(dir, part, caseDir(k), `${binding}.bin`));
}

/** Write an answer into out/ of case k. */
export function writeAnswer(dir: string, k: number, binding: string, bytes: ArrayBufferView): void {
  mkdirSync(path.join(dir, 'out', caseDir(k)), {recursive: true});
  writeFileSync(path.join(dir, 'out', caseDir(k), `${binding}.bin`), new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

/** `arbor bundle zoo/<name>/bundle verify <dir>`: the per-case verdicts. */
export function verdicts(name: string, dir: string): {i: number; passed: boolean; note?: string; metrics?: Record<string, any>}[] {
  const run = runCli(['bundle', path.join(zoo, name, 'bundle'), 'verify', dir]);
  expect(run.code).toBe(0);
  return JSON.parse(readFileSync(path.join(dir, 'verdicts.json'), 'utf8')).cases;
}

/** x^e mod m with BigInt, the tests' independent modular arithmetic. */
export function modpow(x: bigint, e: bigint, m: bigint): bigint {
  let result = 1n;
  let base = x % m;
  for (let k = e; k > 0n; k >>= 1n) {
    if (k & 1n) result = (result * base) % m;
    base = (base * base) % m;
  }
  return result;
}

/** Primality by trial division (numbers below 2^31 here). */
export function isPrime(n: number): boolean {
  if (n < 2) return false;
  for (let d = 2; d * d <= n; d += 1) if (n % d === 0) return false;
  return true;
}

/** reference.py is the baseline solution.py but for its docstring's first line (so one of them need not be run). */
export function referenceIsBaseline(name: string): boolean {
  const body = (file: string) =>
    readFileSync(path.join(zoo, name, file), 'utf8')
      .split('\n')
      .slice(1)
      .join('\n');
  return body('reference.py') === body('solution.py');
}
