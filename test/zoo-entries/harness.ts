/** Test harness for the zoo entries' authored bundle functions and Python solutions (no arbor runtime). */
import {spawnSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';
import {parse} from 'smol-toml';
import {TestStream} from './stream.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const zoo = path.join(repoRoot, 'zoo');

type Tensor = Int8Array | Int16Array | Int32Array | BigInt64Array | Uint8Array | Uint16Array | Uint32Array | BigUint64Array | Float32Array | Float64Array;
export type Tensors = Record<string, Tensor>;
export type Point = Record<string, number>;
interface Binding {
  name: string;
  type: string;
  dims: (string | number)[];
}
export interface Entry {
  spec: string;
  args: Binding[];
  results: Binding[];
  accept: Record<string, unknown>;
  generate: (point: Point, stream: TestStream) => Tensors | Promise<Tensors>;
  oracle: (point: Point, args: Tensors) => Tensors | Promise<Tensors>;
  verify?: (
    point: Point,
    args: Tensors,
    expected: Tensors,
    actual: Tensors,
    accept: Record<string, unknown>,
  ) => {passed: boolean; metrics: Record<string, unknown>};
}

export async function loadEntry(name: string): Promise<Entry> {
  const dir = path.join(zoo, name, 'bundle');
  const toml = parse(readFileSync(path.join(dir, 'fherma.toml'), 'utf8')) as Record<string, any>;
  const load = async (file: string | undefined) => (file ? (await import(pathToFileURL(path.join(dir, file)).href)).default : undefined);
  return {
    spec: toml.spec,
    args: toml.args,
    results: toml.results,
    accept: toml.accept ?? {},
    generate: await load(toml.entry.generate),
    oracle: await load(toml.entry.oracle),
    verify: await load(toml.entry.verify),
  };
}

export async function generateCase(entry: Entry, point: Point, seed: number): Promise<Tensors> {
  return entry.generate(point, new TestStream(entry.spec, seed));
}

const dtypes: Record<string, string> = {
  i8: 'int8',
  i16: 'int16',
  i32: 'int32',
  i64: 'int64',
  u8: 'uint8',
  u16: 'uint16',
  u32: 'uint32',
  u64: 'uint64',
  f32: 'float32',
  f64: 'float64',
};
const constructors: Record<string, new (buffer: ArrayBuffer) => Tensor> = {
  i8: Int8Array,
  i16: Int16Array,
  i32: Int32Array,
  i64: BigInt64Array,
  u8: Uint8Array,
  u16: Uint16Array,
  u32: Uint32Array,
  u64: BigUint64Array,
  f32: Float32Array,
  f64: Float64Array,
};

function shape(binding: Binding, point: Point): number[] {
  return binding.dims.map((dim) => (typeof dim === 'number' ? dim : Function(...Object.keys(point), `return (${dim});`)(...Object.values(point))));
}

/** Run a Python solution file (init/run/free) on one case; returns its results and the seconds `run` took. */
export function runPython(entry: Entry, file: string, point: Point, args: Tensors): {results: Tensors; seconds: number} {
  const dir = mkdtempSync(path.join(tmpdir(), 'arbor-zoo-entry-'));
  try {
    const inputs: Record<string, unknown> = {};
    for (const binding of entry.args) {
      const tensor = args[binding.name]!;
      const file = path.join(dir, `${binding.name}.bin`);
      writeFileSync(file, new Uint8Array(tensor.buffer, tensor.byteOffset, tensor.byteLength));
      inputs[binding.name] = {dtype: dtypes[binding.type], shape: shape(binding, point), file};
    }
    const results: Record<string, unknown> = {};
    for (const binding of entry.results) {
      results[binding.name] = {dtype: dtypes[binding.type], shape: shape(binding, point), file: path.join(dir, `out-${binding.name}.bin`)};
    }
    const job = {solution: file, point, inputs, results};
    const run = spawnSync('python3', [path.join(repoRoot, 'test/zoo-entries/run_solution.py')], {
      input: JSON.stringify(job),
      encoding: 'utf8',
      env: {...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1'},
    });
    if (run.status !== 0) throw new Error(`python3 failed on ${file}: ${run.stderr}`);
    const out: Tensors = {};
    for (const binding of entry.results) {
      const bytes = readFileSync(path.join(dir, `out-${binding.name}.bin`));
      const copy = new Uint8Array(bytes.byteLength);
      copy.set(bytes);
      out[binding.name] = new constructors[binding.type]!(copy.buffer);
    }
    return {results: out, seconds: Number(run.stdout.trim())};
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
}

/** Run a short Python/numpy snippet that reads JSON on stdin and prints JSON on stdout. */
export function python(code: string, input: unknown): any {
  const run = spawnSync('python3', ['-c', code], {input: JSON.stringify(input), encoding: 'utf8', maxBuffer: 1 << 28});
  if (run.status !== 0) throw new Error(`python3 failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}
