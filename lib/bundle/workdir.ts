/**
 * The work directory: make (cases/, expected/, manifest.json last), the oracle
 * pass on its own (writeExpected), and verify (verdicts.json).
 */
import {constants as bufferConstants} from 'node:buffer';
import {existsSync, mkdirSync, readFileSync, rmSync, statfsSync, statSync, unlinkSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {ArborError, RefusedError, UsageError} from '../errors.js';
import {importAuthored, withAuthored} from './authored.js';
import {bindingBytes, bindingLength, type Binding, type Bundle} from './bundle.js';
import {arrayName, countNaN, describeValue, fileSize, isTensorOf, readTensor, writeFileAtomic, writeTensor, type ElementType, type Tensor} from './codec.js';
import {BundleError, describeThrown} from './errors.js';
import {exactRule} from './exact.js';
import {MAX_CASES, parsePoint, type Point, type Seed} from './point.js';

/** The contents of manifest.json. */
export interface Manifest {
  point: Point;
  cases: number;
}

/** One record of verdicts.json. */
export interface Verdict {
  i: number;
  passed: boolean;
  metrics?: Record<string, unknown>;
  note?: string;
  error?: string;
}

/** The contents of verdicts.json. */
export interface Verdicts {
  cases: Verdict[];
}

/** Tensors by binding name. */
export type Tensors = Record<string, Tensor>;

/** Options of makeWorkDir. */
export interface MakeOptions {
  /** Run the oracle and write expected/ (default true). false: cases/ and manifest.json only. */
  expected?: boolean;
  /** Told before each step of each case, and after the last: for progress on a large point. */
  progress?: (step: MakeProgress) => void;
}

/** Where make is: the step about to run for case `case` (0-based) of `cases`, and the bytes written so far. */
export interface MakeProgress {
  step: 'generate' | 'write cases' | 'oracle' | 'write expected' | 'done';
  case: number;
  cases: number;
  bytesWritten: number;
  /** Bytes all cases will have written. */
  bytesTotal: number;
}

/** The six-digit case folder name. */
export function caseName(i: number): string {
  return String(i).padStart(6, '0');
}

/** Bytes of the files of one case: arguments (cases/) and results (expected/, also out/). */
export function caseSizes(bundle: Bundle, point: Point): {args: bigint; results: bigint; largest: bigint} {
  let args = 0n;
  let results = 0n;
  let largest = 0n;
  for (const b of bundle.args) {
    const n = bindingBytes(b, point);
    args += n;
    if (n > largest) largest = n;
  }
  for (const b of bundle.results) {
    const n = bindingBytes(b, point);
    results += n;
    if (n > largest) largest = n;
  }
  return {args, results, largest};
}

/** Memory a run may use: free memory, capped by a cgroup limit when there is one. */
function availableMemory(): number {
  let free = os.freemem();
  const constrained = (process as {constrainedMemory?: () => number | undefined}).constrainedMemory?.();
  if (constrained && constrained > 0 && constrained < Number.MAX_SAFE_INTEGER) free = Math.min(free, constrained);
  return free;
}

function freeDisk(dir: string): number | undefined {
  let probe = path.resolve(dir);
  while (!existsSync(probe)) probe = path.dirname(probe);
  try {
    const stats = statfsSync(probe);
    // Pseudo file systems (/proc, /sys) report no blocks at all; nothing can be made there,
    // and Node's recursive mkdir can spin on them, so refuse before trying.
    if (stats.blocks === 0) throw new UsageError(`cannot write the work directory under ${probe}: it is a pseudo file system, expected a folder on a disk`);
    return stats.bavail * stats.bsize;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    return undefined;
  }
}

/** Human size: bytes and MiB/GiB. */
function formatBytes(n: bigint | number): string {
  const v = Number(n);
  const exact = typeof n === 'bigint' ? n.toString() : String(Math.round(n));
  if (v >= 2 ** 30) return `${(v / 2 ** 30).toFixed(1)} GiB (${exact} bytes)`;
  if (v >= 2 ** 20) return `${(v / 2 ** 20).toFixed(1)} MiB (${exact} bytes)`;
  return `${exact} bytes`;
}

/** Refuse, before anything is written, a point whose files do not fit in memory or on disk. */
function checkCapacity(bundle: Bundle, dir: string, point: Point, cases: number, expected: boolean, memoryFactor = 1): void {
  const {args, results, largest} = caseSizes(bundle, point);
  const limit = BigInt(Math.min(bufferConstants.MAX_LENGTH, 2 ** 32));
  if (largest > limit) {
    throw new RefusedError(`the point ${JSON.stringify(point)} needs a tensor of ${formatBytes(largest)}, above the ${formatBytes(limit)} one array can hold`);
  }
  const memory = args + BigInt(memoryFactor) * results;
  const available = availableMemory();
  if (memory > BigInt(available)) {
    throw new RefusedError(
      `the point ${JSON.stringify(point)} needs ${formatBytes(memory)} of memory per case, but only ${formatBytes(available)} is available`,
    );
  }
  const disk = BigInt(cases) * (args + (expected ? results : 0n));
  const free = freeDisk(dir);
  if (free !== undefined && disk > BigInt(free)) {
    throw new RefusedError(
      `the point ${JSON.stringify(point)} with ${cases} cases needs ${formatBytes(disk)} on disk, but only ${formatBytes(free)} is free under ${dir}`,
    );
  }
}

/** Check tensors an authored function returned against the signature; BundleError naming everything. */
export function checkTensors(value: unknown, bindings: Binding[], point: Point, who: string): Tensors {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || ArrayBuffer.isView(value)) {
    throw new BundleError(`${who} returned ${describeValue(value)}, expected an object {${bindings.map((b) => b.name).join(', ')}} of typed arrays`);
  }
  const record = value as Record<string, unknown>;
  const names = bindings.map((b) => b.name);
  const extra = Object.keys(record).filter((k) => !names.includes(k));
  if (extra.length > 0) throw new BundleError(`${who} returned unknown binding ${extra.join(', ')}; the signature has ${names.join(', ')}`);
  const out: Tensors = {};
  for (const b of bindings) {
    if (!Object.hasOwn(record, b.name)) throw new BundleError(`${who} did not return ${b.name}; the signature has ${names.join(', ')}`);
    const tensor = record[b.name];
    if (!isTensorOf(tensor, b.type)) {
      throw new BundleError(`${who} returned ${b.name} as ${describeValue(tensor)}, expected ${arrayName(b.type)} (${b.type})`);
    }
    const length = bindingLength(b, point);
    if (BigInt(tensor.length) !== length) {
      throw new BundleError(
        `${who} returned ${b.name} with ${tensor.length} elements, expected ${length} (dims [${b.dims.join(', ')}] at ${JSON.stringify(point)})`,
      );
    }
    out[b.name] = tensor;
  }
  return out;
}

type Authored = (...args: unknown[]) => unknown;

async function callAuthored(fn: Authored, role: string, file: string, where: string, ...args: unknown[]): Promise<unknown> {
  try {
    return await fn(...args);
  } catch (error) {
    throw new BundleError(`${role} (${path.basename(file)}) threw ${where}: ${describeThrown(error).split('\n', 1)[0]}`, 'authored', {cause: error});
  }
}

/** Fill `dir` for one point: for each seed, generate -> cases/NNNNNN/, oracle -> expected/NNNNNN/; manifest.json last. */
export async function makeWorkDir(
  bundle: Bundle,
  dir: string,
  point: Point | string,
  seeds: readonly Seed[],
  options: MakeOptions = {},
): Promise<{cases: number}> {
  return withIoErrors(dir, () => withAuthored(bundle, () => make(bundle, dir, point, seeds, options)));
}

async function make(bundle: Bundle, dir: string, point: Point | string, seeds: readonly Seed[], options: MakeOptions): Promise<{cases: number}> {
  const thePoint = parsePoint(bundle, point);
  if (seeds.length === 0) throw new UsageError('--seeds lists no seed');
  if (seeds.length > MAX_CASES) throw new UsageError(`--seeds lists ${seeds.length} seeds, more than ${MAX_CASES}`);
  const seen = new Set<string>();
  for (const seed of seeds) {
    if (typeof seed === 'bigint' ? seed < 0n : !Number.isSafeInteger(seed) || seed < 0)
      throw new UsageError(`seed ${String(seed)} is not a non-negative integer`);
    const key = String(seed);
    if (seen.has(key)) throw new UsageError(`seed ${key} is listed twice`);
    seen.add(key);
  }
  const withExpected = options.expected !== false;
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new UsageError(`work directory ${dir} exists and is not a folder`);
  checkCapacity(bundle, dir, thePoint, seeds.length, withExpected);
  // The stream (SHA-256 kernels, worker pool) is only needed here: verify and info do not load it.
  const {Stream} = await import('./stream.js');
  const generate = (await importAuthored(bundle.entry.generate, 'generator')) as Authored;
  const oracle = withExpected ? ((await importAuthored(bundle.entry.oracle, 'oracle')) as Authored) : undefined;

  mkdirSync(dir, {recursive: true});
  // The old manifest goes first: from here on the folder is detectably incomplete.
  rmSync(path.join(dir, 'manifest.json'), {force: true});
  for (const stale of ['verdicts.json', 'out', 'cases', 'expected']) rmSync(path.join(dir, stale), {recursive: true, force: true});

  const casesDir = path.join(dir, 'cases');
  const expectedDir = path.join(dir, 'expected');
  mkdirSync(casesDir);
  if (withExpected) mkdirSync(expectedDir);
  const sizes = caseSizes(bundle, thePoint);
  const perCase = Number(sizes.args + (withExpected ? sizes.results : 0n));
  const tell = (step: MakeProgress['step'], i: number, bytesWritten: number) =>
    options.progress?.({step, case: i, cases: seeds.length, bytesWritten, bytesTotal: perCase * seeds.length});
  for (let i = 0; i < seeds.length; i++) {
    const seed = seeds[i]!;
    const name = caseName(i);
    const where = `for seed ${seed} (case ${name})`;
    const stream = new Stream(bundle.spec, seed);
    tell('generate', i, perCase * i);
    const args = checkTensors(
      await callAuthored(generate, 'generate', bundle.entry.generate, where, {...thePoint}, stream),
      bundle.args,
      thePoint,
      `generate (${path.basename(bundle.entry.generate)}) ${where}`,
    );
    tell('write cases', i, perCase * i);
    writeBindings(path.join(casesDir, name), bundle.args, args);
    if (oracle) {
      tell('oracle', i, perCase * i + Number(sizes.args));
      await runOracle(bundle, oracle, thePoint, args, path.join(expectedDir, name), where, () => tell('write expected', i, perCase * i + Number(sizes.args)));
    }
  }
  tell('done', seeds.length, perCase * seeds.length);
  writeManifest(dir, {point: thePoint, cases: seeds.length});
  return {cases: seeds.length};
}

async function runOracle(bundle: Bundle, oracle: Authored, point: Point, args: Tensors, into: string, where: string, writing?: () => void): Promise<void> {
  const results = checkTensors(
    await callAuthored(oracle, 'oracle', bundle.entry.oracle, where, {...point}, args),
    bundle.results,
    point,
    `oracle (${path.basename(bundle.entry.oracle)}) ${where}`,
  );
  writing?.();
  writeBindings(into, bundle.results, results);
}

function writeBindings(folder: string, bindings: Binding[], tensors: Tensors): void {
  mkdirSync(folder, {recursive: true});
  // In place, not temp + rename: the folder is complete only once manifest.json is written.
  for (const b of bindings) writeTensor(path.join(folder, `${b.name}.bin`), b.type, tensors[b.name]!, {atomic: false});
}

function writeManifest(dir: string, manifest: Manifest): void {
  writeFileAtomic(path.join(dir, 'manifest.json'), spacedJson({point: manifest.point, cases: manifest.cases}) + '\n');
}

/** Read and check `<dir>/manifest.json`; UsageError when it is missing or malformed. */
export function readManifest(bundle: Bundle, dir: string): Manifest {
  const file = path.join(dir, 'manifest.json');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new UsageError(`${file} is missing: ${dir} is not a finished work directory (run make; an interrupted make leaves no manifest)`);
    }
    throw new UsageError(`cannot read ${file}: ${describeThrown(error)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${file} is not valid JSON`);
  }
  const m = value as Partial<Manifest>;
  if (typeof m !== 'object' || m === null || typeof m.point !== 'object' || m.point === null) {
    throw new UsageError(`${file} must hold {"point": {...}, "cases": n}`);
  }
  if (!Number.isSafeInteger(m.cases) || (m.cases as number) < 0 || (m.cases as number) > MAX_CASES) {
    throw new UsageError(`${file}: cases must be an integer in 0..${MAX_CASES}, got ${JSON.stringify(m.cases)}`);
  }
  let point: Point;
  try {
    point = parsePoint(bundle, m.point);
  } catch (error) {
    throw new UsageError(`${file} holds a point this bundle does not accept: ${(error as Error).message.replace(/^--point /, '')}`);
  }
  return {point, cases: m.cases as number};
}

/** Run the oracle over cases/ of a made work directory and write expected/ (replacing any old expected/). */
export async function writeExpected(bundle: Bundle, dir: string): Promise<void> {
  return withIoErrors(dir, () => withAuthored(bundle, () => oraclePass(bundle, dir)));
}

async function oraclePass(bundle: Bundle, dir: string): Promise<void> {
  const manifest = readManifest(bundle, dir);
  const oracle = (await importAuthored(bundle.entry.oracle, 'oracle')) as Authored;
  const expectedDir = path.join(dir, 'expected');
  rmSync(expectedDir, {recursive: true, force: true});
  mkdirSync(expectedDir);
  for (let i = 0; i < manifest.cases; i++) {
    const name = caseName(i);
    const args = readBindings(bundle.args, path.join(dir, 'cases', name), manifest.point, 'cases');
    await runOracle(bundle, oracle, manifest.point, args, path.join(expectedDir, name), `for case ${name}`);
  }
}

/** Read a made (bundle-written) folder's tensors; a missing or wrong-sized file is a broken work directory. */
function readBindings(bindings: Binding[], folder: string, point: Point, what: string): Tensors {
  const out: Tensors = {};
  for (const b of bindings) {
    const file = path.join(folder, `${b.name}.bin`);
    const length = Number(bindingLength(b, point));
    try {
      out[b.name] = readTensor(file, b.type, length);
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? `${file} is missing` : (error as Error).message;
      throw new BundleError(`the work directory's ${what}/ is incomplete: ${reason} (run make again)`);
    }
  }
  return out;
}

/** Verify out/ against expected/ for every case of the manifest; writes verdicts.json atomically and returns it. */
export async function verifyWorkDir(bundle: Bundle, dir: string): Promise<Verdicts> {
  return withIoErrors(dir, () => withAuthored(bundle, () => verifyAll(bundle, dir)));
}

/**
 * Run a work-directory operation, turning a file-system failure of arbor's own reads and writes
 * (permissions, a full disk, a file where a folder should be) into one clear line (exit 2).
 */
async function withIoErrors<T>(dir: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (!(error instanceof ArborError) && typeof e?.code === 'string' && typeof e.syscall === 'string') {
      const where = e.path ?? dir;
      throw new UsageError(`cannot ${e.syscall} ${where} in the work directory ${dir}: ${e.code} (${e.message.split(',', 1)[0]})`, 'io', {cause: error});
    }
    throw error;
  }
}

async function verifyAll(bundle: Bundle, dir: string): Promise<Verdicts> {
  const stats = statSync(dir, {throwIfNoEntry: false});
  if (!stats) throw new UsageError(`work directory ${dir} does not exist: make it first (arbor bundle <bundle-dir> make ${dir} --point … --seeds …)`);
  if (!stats.isDirectory()) throw new UsageError(`work directory ${dir} is ${stats.isFile() ? 'a file' : 'not a folder'}, expected the folder make wrote`);
  // The old verdicts go first, as make removes the manifest first: a verify that fails leaves none.
  try {
    unlinkSync(path.join(dir, 'verdicts.json'));
  } catch (error) {
    // Absent is fine; a folder in its place makes the final rename fail with its own message.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && (error as NodeJS.ErrnoException).code !== 'EISDIR') throw error;
  }
  const manifest = readManifest(bundle, dir);
  const {point} = manifest;
  const verify = bundle.entry.verify ? ((await importAuthored(bundle.entry.verify, 'verifier')) as Authored) : undefined;
  if (verify) checkCapacity(bundle, dir, point, 0, false, 2);
  const verdicts: Verdict[] = [];
  for (let i = 0; i < manifest.cases; i++) {
    const name = caseName(i);
    const outDir = path.join(dir, 'out', name);
    const expectedDir = path.join(dir, 'expected', name);
    // Sizes first: a missing or wrong-length answer is a note, never a crash.
    let note: string | undefined;
    for (const b of bundle.results) {
      const expectedBytes = Number(bindingBytes(b, point));
      const expectedFile = path.join(expectedDir, `${b.name}.bin`);
      const have = fileSize(expectedFile);
      if (have !== expectedBytes) {
        throw new BundleError(
          `the work directory's expected/ is incomplete: ${expectedFile} ${have === undefined ? 'is missing' : `is ${have} bytes, expected ${expectedBytes}`} (run make again)`,
        );
      }
      let size: number | undefined;
      try {
        size = fileSize(path.join(outDir, `${b.name}.bin`));
      } catch {
        size = undefined;
      }
      if (size === undefined) {
        note ??= 'no answer';
      } else if (size !== expectedBytes) {
        note ??= `out/${name}/${b.name}.bin is ${size} bytes, expected ${expectedBytes} (${bindingLength(b, point)} × ${b.type})`;
      }
    }
    if (note !== undefined) {
      verdicts.push({i, passed: false, note});
      continue;
    }
    const nanNotes: string[] = [];
    const nanNote = (b: Binding, nans: number) => {
      if (nans > 0) nanNotes.push(`out/${name}/${b.name}.bin holds ${nans} NaN value${nans === 1 ? '' : 's'}`);
    };
    let verdict: Verdict;
    if (verify) {
      verdict = await verifyCase(bundle, verify, dir, i, point, nanNote);
    } else {
      const exact = exactRule(bundle, point, {expected: expectedDir, out: outDir, name}, nanNote);
      verdict = exact.note !== undefined ? {i, passed: false, note: exact.note} : {i, passed: exact.passed, metrics: exact.metrics};
    }
    if (nanNotes.length > 0) {
      verdict.passed = false;
      if (verdict.error === undefined) verdict.note = [verdict.note, ...nanNotes].filter(Boolean).join('; ');
    }
    verdicts.push(orderVerdict(verdict));
  }
  const result = {cases: verdicts};
  writeVerdicts(dir, result);
  return result;
}

async function verifyCase(
  bundle: Bundle,
  verify: Authored,
  dir: string,
  i: number,
  point: Point,
  nanNote: (b: Binding, nans: number) => void,
): Promise<Verdict> {
  const name = caseName(i);
  const args = readBindings(bundle.args, path.join(dir, 'cases', name), point, 'cases');
  const expected = readBindings(bundle.results, path.join(dir, 'expected', name), point, 'expected');
  const actual: Tensors = {};
  for (const b of bundle.results) {
    try {
      actual[b.name] = readTensor(path.join(dir, 'out', name, `${b.name}.bin`), b.type, Number(bindingLength(b, point)));
    } catch (error) {
      return {i, passed: false, note: `out/${name}/${b.name}.bin could not be read: ${describeThrown(error)}`};
    }
    nanNote(b, countNaN(actual[b.name]!));
  }
  let value: unknown;
  try {
    value = await verify({...point}, args, expected, actual, structuredClone(bundle.accept));
  } catch (error) {
    return {i, passed: false, error: describeThrown(error).split('\n', 1)[0]};
  }
  const record = value as {passed?: unknown; metrics?: unknown};
  if (typeof record !== 'object' || record === null || typeof record.passed !== 'boolean') {
    return {i, passed: false, error: `BundleError: verify returned ${describeValue(value)} without a boolean \`passed\`, expected {passed, metrics}`};
  }
  const metrics = record.metrics ?? {};
  if (typeof metrics !== 'object' || metrics === null || Array.isArray(metrics)) {
    return {i, passed: false, error: `BundleError: verify returned metrics of type ${describeValue(metrics)}, expected an object`};
  }
  return {i, passed: record.passed, metrics: jsonSafe(metrics) as Record<string, unknown>};
}

function jsonSafe(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? (Number.isSafeInteger(Number(v)) ? Number(v) : String(v)) : v)));
}

function orderVerdict(v: Verdict): Verdict {
  const out: Verdict = {i: v.i, passed: v.passed};
  if (v.metrics !== undefined) out.metrics = v.metrics;
  if (v.note !== undefined) out.note = v.note;
  if (v.error !== undefined) out.error = v.error;
  return out;
}

function writeVerdicts(dir: string, verdicts: Verdicts): void {
  const body = verdicts.cases.length === 0 ? '{"cases": []}\n' : `{"cases": [\n${verdicts.cases.map((v) => '  ' + spacedJson(v)).join(',\n')}\n]}\n`;
  writeFileAtomic(path.join(dir, 'verdicts.json'), body);
}

/** What `info` prints: everything needed to size every file from a point. */
export interface Info {
  spec: string;
  fingerprint: string;
  point: {name: string; type: 'int'; min: number; max: number}[];
  args: {name: string; type: ElementType; dims: string[]}[];
  results: {name: string; type: ElementType; dims: string[]}[];
  verifier: boolean;
}

/** The bundle's signature as plain data (the `info` JSON). */
export function bundleInfo(bundle: Bundle): Info {
  const binding = (b: Binding) => ({name: b.name, type: b.type, dims: [...b.dims]});
  return {
    spec: bundle.spec,
    fingerprint: bundle.fingerprint,
    point: bundle.point.map((p) => ({name: p.name, type: p.type, min: p.min, max: p.max})),
    args: bundle.args.map(binding),
    results: bundle.results.map(binding),
    verifier: bundle.entry.verify !== undefined,
  };
}

/** JSON with Python's default separators (`, ` and `: `), the shape the protocol's examples show. */
function spacedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(spacedJson).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}: ${spacedJson(v)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
