/**
 * Loading a bundle: `fherma.toml` (the marker) parsed and checked, the signature's
 * fingerprint verified, entry points resolved. Authored modules are imported
 * only when `make` or `verify` needs them.
 */
import {readFileSync, statSync} from 'node:fs';
import path from 'node:path';
import {parse as parseToml} from 'smol-toml';
import {UsageError} from '../errors.js';
import {writeFileAtomic} from '../files.js';
import {tomlProblem} from '../toml.js';
import {ELEMENT_TYPES, isElementType, type ElementType, elementWidth} from './codec.js';
import {sha256Hex} from './digest.js';
import {canonicalDim, dimNames, evalDim, parseDim, type DimExpr} from './dims.js';
import {BundleError} from './errors.js';

/** A point parameter: an integer with an inclusive range. */
export interface PointParam {
  name: string;
  type: 'int';
  min: number;
  max: number;
}

/** An argument or result: a named tensor with an element type and dimension expressions. */
export interface Binding {
  name: string;
  type: ElementType;
  /** Dimension expressions in canonical text (whitespace removed); [] for a scalar. */
  dims: string[];
  /** The parsed dimension expressions. */
  dimExprs: DimExpr[];
}

/** A loaded bundle. */
export interface Bundle {
  /** Absolute path of the bundle folder. */
  dir: string;
  /** The specification reference: the stream's SPEC string. */
  spec: string;
  /** The fingerprint computed from the signature (`sha256:<hex>`). */
  fingerprint: string;
  /** The fingerprint written in fherma.toml, if any. */
  markerFingerprint: string | undefined;
  /** Absolute paths of the authored modules. */
  entry: {generate: string; oracle: string; verify?: string};
  /** `[entry] python`: the interpreter the bundle's Python and the runs use (absolute), over ARBOR_PYTHON; an importer records the one that has the task's modules. */
  python?: string;
  point: PointParam[];
  args: Binding[];
  results: Binding[];
  /** The free-form [accept] table handed to the verifier. */
  accept: Record<string, unknown>;
}

/** The bundle's marker file name. */
export const MARKER = 'fherma.toml';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Options of loadBundle. */
export interface LoadOptions {
  /** Refuse a marker whose fingerprint disagrees with its signature (default true). */
  checkFingerprint?: boolean;
  /** How files are looked at (default: the file system; verify passes the reader that shares what it read). */
  files?: BundleFiles;
}

/** How `readBundle` looks at files: each answer as `statSync(file).isFile()` and `readFileSync(file, 'utf8')` give it. */
interface BundleFiles {
  isFile(file: string): boolean;
  /** As `statSync(file).isDirectory()` gives it (false when it fails). */
  isDir(file: string): boolean;
  /** Undefined when the file does not exist. */
  utf8(file: string): string | undefined;
  /** Parse TOML as smol-toml's `parse` does (list remembers identical texts). */
  toml?(text: string): unknown;
}

const plainFiles: BundleFiles = {
  isFile(file) {
    try {
      return statSync(file).isFile();
    } catch {
      return false;
    }
  },
  isDir(file) {
    try {
      return statSync(file).isDirectory();
    } catch {
      return false;
    }
  },
  utf8: (file) => readFileSync(file, 'utf8'),
};

/** Read and check `<dir>/fherma.toml`. UsageError when there is no bundle there; BundleError when the marker is wrong. */
export async function loadBundle(dir: string, options: LoadOptions = {}): Promise<Bundle> {
  return readBundle(dir, options);
}

/** `loadBundle`, synchronously: it reads only the marker (verify and list check every folder's bundle this way). */
export function readBundle(dir: string, options: LoadOptions = {}): Bundle {
  const root = path.resolve(dir);
  const files = options.files ?? plainFiles;
  if (!files.isDir(root)) throw new UsageError(`bundle folder ${dir} does not exist or is not a folder`);
  const markerPath = path.join(root, MARKER);
  let text: string | undefined;
  try {
    text = files.utf8(markerPath);
  } catch {
    // reported below
  }
  if (text === undefined) {
    throw new UsageError(`${path.join(dir, MARKER)} is missing: a bundle folder needs a ${MARKER} marker`);
  }
  const where = path.join(dir, MARKER);
  let raw: Record<string, unknown>;
  try {
    raw = (files.toml ? files.toml(text) : parseToml(text)) as Record<string, unknown>;
  } catch (error) {
    throw new BundleError(`${where} is not valid TOML: ${tomlProblem(error, text)}`);
  }
  const bundle = parseMarker(raw, root, where, files);
  if (options.checkFingerprint !== false) checkFingerprint(bundle, where);
  return bundle;
}

function checkFingerprint(bundle: Bundle, where: string): void {
  if (bundle.markerFingerprint === bundle.fingerprint) return;
  const found = bundle.markerFingerprint === undefined ? 'has no fingerprint' : `says fingerprint = "${bundle.markerFingerprint}"`;
  throw new BundleError(
    `${where} ${found}, but its signature's fingerprint is "${bundle.fingerprint}": the signature changed; ` +
      `if that is intended, write fingerprint = "${bundle.fingerprint}" (arbor bundle <dir> fingerprint prints it)`,
    'fingerprint',
  );
}

type Fail = (message: string) => never;

/** `[entry]`: the authored files (generate and oracle default to their usual names) and the optional python. */
function parseEntry(raw: Record<string, unknown>, root: string, files: BundleFiles, fail: Fail): {entry: Bundle['entry']; python?: string} {
  const entryRaw = (raw.entry ?? {}) as Record<string, unknown>;
  if (!isTable(entryRaw)) fail('[entry] must be a table');
  allowKeys(entryRaw, ['generate', 'oracle', 'verify', 'python'], '[entry]', fail);
  const python = entryRaw.python;
  if (python !== undefined && (typeof python !== 'string' || !path.isAbsolute(python)))
    fail('[entry] python must be an absolute path to a python3, e.g. python = "/usr/bin/python3"');
  const entryFile = (key: string, fallback: string | undefined): string | undefined => {
    const value = entryRaw[key] ?? fallback;
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value === '') return fail(`[entry] ${key} must be a file name relative to the bundle`);
    const file = path.resolve(root, value as string);
    if (!files.isFile(file)) fail(`[entry] ${key} = "${value}" does not name a file in the bundle`);
    return file;
  };
  const entry = {
    generate: entryFile('generate', 'generate.mjs')!,
    oracle: entryFile('oracle', 'oracle.mjs')!,
    verify: entryFile('verify', undefined),
  };
  if (entry.verify === undefined) delete (entry as {verify?: string}).verify;
  return typeof python === 'string' ? {entry, python} : {entry};
}

/** `[[point]]`: integer parameters with their ranges, names unique. */
function parsePoints(value: unknown, fail: Fail): Bundle['point'] {
  const point = listOf(value, '[[point]]', fail).map((item, k) => {
    const at = `[[point]] #${k + 1}`;
    allowKeys(item, ['name', 'type', 'min', 'max'], at, fail);
    const name = checkName(item.name, at, fail);
    if (item.type !== 'int') fail(`${at} (${name}): type must be "int", got ${JSON.stringify(item.type)}`);
    const min = toInteger(item.min, `${at} (${name}): min`, fail);
    const max = toInteger(item.max, `${at} (${name}): max`, fail);
    if (min > max) fail(`${at} (${name}): min ${min} is above max ${max}`);
    return {name, type: 'int' as const, min, max};
  });
  unique(
    point.map((p) => p.name),
    '[[point]]',
    fail,
  );
  return point;
}

/** A binding's `dims`: each a dimension expression over the point's parameters (an integer counts). */
function parseDims(dimsRaw: unknown, at: string, pointNames: Set<string>, fail: Fail): {dims: string[]; dimExprs: DimExpr[]} {
  if (!Array.isArray(dimsRaw)) fail(`${at}: dims must be a list of dimension expressions, e.g. ["N", "D"]`);
  const dims: string[] = [];
  const dimExprs: DimExpr[] = [];
  for (const d of dimsRaw as unknown[]) {
    const text = typeof d === 'bigint' || typeof d === 'number' ? String(d) : d;
    if (typeof text !== 'string') return fail(`${at}: each dimension must be a string or an integer`);
    let expr: DimExpr;
    try {
      expr = parseDim(text);
    } catch (error) {
      return fail(`${at}: bad dimension: ${(error as Error).message}`);
    }
    for (const used of dimNames(expr)) {
      if (!pointNames.has(used)) fail(`${at}: dimension \`${text}\` uses \`${used}\`, which is not a point parameter`);
    }
    dims.push(canonicalDim(text));
    dimExprs.push(expr);
  }
  return {dims, dimExprs};
}

/** `[[args]]` or `[[results]]`: named tensors with an element type and dims, names unique. */
function parseBindings(value: unknown, table: string, pointNames: Set<string>, fail: Fail): Binding[] {
  const list = listOf(value, table, fail).map((item, k) => {
    const at = `${table} #${k + 1}`;
    allowKeys(item, ['name', 'type', 'dims'], at, fail);
    const name = checkName(item.name, at, fail);
    if (!isElementType(item.type)) fail(`${at} (${name}): type must be one of ${ELEMENT_TYPES.join(' ')}, got ${JSON.stringify(item.type)}`);
    const {dims, dimExprs} = parseDims(item.dims ?? [], `${at} (${name})`, pointNames, fail);
    return {name, type: item.type as ElementType, dims, dimExprs};
  });
  unique(
    list.map((b) => b.name),
    table,
    fail,
  );
  return list;
}

function parseMarker(raw: Record<string, unknown>, root: string, where: string, files: BundleFiles): Bundle {
  const fail = (message: string): never => {
    throw new BundleError(`${where}: ${message}`);
  };
  allowKeys(raw, ['spec', 'fingerprint', 'entry', 'point', 'args', 'results', 'accept'], 'top level', fail);
  if (typeof raw.spec !== 'string' || raw.spec === '') fail('`spec` must be a non-empty string, e.g. spec = "zoo/name@1.0.0"');
  const spec = raw.spec as string;
  if (raw.fingerprint !== undefined && typeof raw.fingerprint !== 'string') fail('`fingerprint` must be a string "sha256:<64 hex>"');
  const {entry, python} = parseEntry(raw, root, files, fail);
  const point = parsePoints(raw.point, fail);
  const pointNames = new Set(point.map((p) => p.name));
  const args = parseBindings(raw.args, '[[args]]', pointNames, fail);
  const results = parseBindings(raw.results, '[[results]]', pointNames, fail);
  if (results.length === 0) fail('the signature needs at least one [[results]] entry');

  const accept = raw.accept ?? {};
  if (!isTable(accept)) fail('[accept] must be a table');

  const bundle: Bundle = {
    dir: root,
    spec,
    fingerprint: '',
    markerFingerprint: raw.fingerprint as string | undefined,
    entry,
    ...(python !== undefined ? {python} : {}),
    point,
    args,
    results,
    accept: accept as Record<string, unknown>,
  };
  bundle.fingerprint = signatureFingerprint(bundle);
  return bundle;
}

/**
 * `env` with ARBOR_PYTHON set to the interpreter the bundle at `dir` names (`[entry] python`), for the
 * runs of its plan; `env` itself when it names none or cannot be read (loading it later says why).
 */
export function bundlePythonEnv(dir: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  try {
    const python = readBundle(dir, {checkFingerprint: false}).python;
    return python ? {...env, ARBOR_PYTHON: python} : env;
  } catch {
    return env;
  }
}

/** The canonical signature JSON the fingerprint hashes (see lib/bundle/README.md, "Fingerprint"). */
export function canonicalSignature(bundle: Pick<Bundle, 'point' | 'args' | 'results'>): string {
  const binding = (b: Binding) => ({name: b.name, type: b.type, dims: b.dims});
  return JSON.stringify({
    point: bundle.point.map((p) => ({name: p.name, type: p.type, min: p.min, max: p.max})),
    args: bundle.args.map(binding),
    results: bundle.results.map(binding),
  });
}

/** Fingerprints of the signatures seen last, by canonical text (list loads thousands of bundles, many alike). */
const fingerprints = new Map<string, string>();

/** `sha256:<hex>` of the canonical signature. */
export function signatureFingerprint(bundle: Pick<Bundle, 'point' | 'args' | 'results'>): string {
  const canonical = canonicalSignature(bundle);
  let fingerprint = fingerprints.get(canonical);
  if (fingerprint === undefined) {
    fingerprint = 'sha256:' + sha256Hex(canonical);
    if (fingerprints.size >= 64) fingerprints.clear();
    fingerprints.set(canonical, fingerprint);
  }
  return fingerprint;
}

/** Bytes of one binding's file at a point (dims evaluated exactly). */
export function bindingBytes(binding: Binding, point: Record<string, number>): bigint {
  return bindingLength(binding, point) * BigInt(elementWidth(binding.type));
}

/** Elements of one binding at a point. */
export function bindingLength(binding: Binding, point: Record<string, number>): bigint {
  let n = 1n;
  for (const expr of binding.dimExprs) n *= evalDim(expr, point);
  return n;
}

/** The shape of one binding at a point: each dimension evaluated exactly. */
export function bindingShape(binding: Binding, point: Record<string, number>): bigint[] {
  return binding.dimExprs.map((expr) => evalDim(expr, point));
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function listOf(value: unknown, table: string, fail: (m: string) => never): Record<string, unknown>[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every(isTable)) return fail(`${table} must be an array of tables`);
  return value as Record<string, unknown>[];
}

function allowKeys(table: Record<string, unknown>, allowed: string[], at: string, fail: (m: string) => never): void {
  for (const key of Object.keys(table)) {
    if (!allowed.includes(key)) fail(`unknown key \`${key}\` in ${at}, expected one of ${allowed.join(', ')}`);
  }
}

function checkName(value: unknown, at: string, fail: (m: string) => never): string {
  if (typeof value !== 'string' || !NAME.test(value)) {
    return fail(`${at}: name must be an identifier (letters, digits, _), got ${JSON.stringify(value)}`);
  }
  return value;
}

function toInteger(value: unknown, what: string, fail: (m: string) => never): number {
  const n = typeof value === 'bigint' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) return fail(`${what} must be an integer, got ${String(value)}`);
  return n;
}

function unique(names: string[], table: string, fail: (m: string) => never): void {
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) fail(`${table}: name \`${name}\` appears twice`);
    seen.add(name);
  }
}

/**
 * The marker text with its top-level `fingerprint` set to `fingerprint`: the line replaced where
 * there is one (its comment kept), else a line added after `spec` (else first). Nothing else changes.
 */
function withFingerprint(text: string, fingerprint: string): string {
  const lines = text.split('\n');
  const tableStart = lines.findIndex((line) => /^\s*\[/.test(line));
  const top = tableStart === -1 ? lines.length : tableStart;
  const value = `fingerprint = "${fingerprint}"`;
  for (let k = 0; k < top; k++) {
    const match = /^(\s*)fingerprint\s*=\s*("[^"]*"|'[^']*'|[^\s#]*)(.*)$/.exec(lines[k]!);
    if (match) {
      lines[k] = `${match[1]}${value}${match[3]}`;
      return lines.join('\n');
    }
  }
  const spec = lines.slice(0, top).findIndex((line) => /^\s*spec\s*=/.test(line));
  lines.splice(spec + 1, 0, value);
  return lines.join('\n');
}

/** Write the signature's fingerprint into `<dir>/fherma.toml` (atomically); returns it and whether the file changed. */
export function writeFingerprint(dir: string): {fingerprint: string; changed: boolean} {
  const bundle = readBundle(dir, {checkFingerprint: false});
  if (bundle.markerFingerprint === bundle.fingerprint) return {fingerprint: bundle.fingerprint, changed: false};
  const file = path.join(bundle.dir, MARKER);
  const text = readFileSync(file, 'utf8');
  try {
    writeFileAtomic(file, withFingerprint(text, bundle.fingerprint));
  } catch (error) {
    throw new UsageError(`${file}: cannot write: ${(error as Error).message}`, 'write-failed');
  }
  return {fingerprint: bundle.fingerprint, changed: true};
}
