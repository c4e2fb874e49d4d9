/**
 * `arbor benchmark gate`: a byte-identical port of the reference result-package
 * gate (spec/agent_gate_reference.py). `runGate` returns what the reference
 * would print and its exit code; it never prints.
 */
import {readFileSync} from 'node:fs';
import path from 'node:path';
import {evaluate} from './gate.js';
import {validateCases, validateResults, validateSpec} from './validate.js';
import {decodeText, GateError, parseJson} from './json.js';
import {dumps, dumpsUtf8} from './dumps.js';
import {backslashReplaceSurrogates, reprString, UncaughtPythonError, type PyValue} from './py.js';

export {GateError} from './json.js';
export {parseGateArgs, pythonColumns, type GateArgs} from './args.js';

/** Defaults, as the reference's (taken from the working directory). */
const GATE_DEFAULTS = {
  spec: 'benchmark_spec.json',
  cases: 'benchmark_cases.json',
  results: 'benchmark_results_pass.json',
  candidate: 'candidate-pass',
} as const;

export interface GateOptions {
  /** A file path; an empty list is what argparse gives for `--spec=--` (the reference then crashes). */
  spec?: string | readonly [];
  cases?: string | readonly [];
  results?: string | readonly [];
  /** A system id; an empty list is what argparse gives for `--candidate=--` (found by no system). */
  candidate?: string | readonly [];
  /** Folder that relative paths resolve against (default: process.cwd()). */
  cwd?: string;
}

export interface GateOutcome {
  /** What goes to stdout (the decision document and a newline, or nothing). */
  readonly stdout: string;
  /**
   * The same as UTF-8 bytes when that is what the document already is (the
   * CLI writes these: decoding 2 MB to a string only to re-encode it is waste).
   */
  readonly stdoutBytes?: Uint8Array;
  /** What goes to stderr (`ERROR: <message>\n` on a contract error, or nothing). */
  stderr: string;
  /** 0 PASS, 1 REVIEW/BLOCK/INCOMPARABLE (or a crash of the reference), 2 ERROR. */
  exitCode: 0 | 1 | 2;
}

/** `str(pathlib.Path(text))` on POSIX. */
function pythonPath(text: string): string {
  let root = '';
  if (text.startsWith('/')) root = text.startsWith('//') && !text.startsWith('///') ? '//' : '/';
  const parts = text.split('/').filter((part) => part !== '' && part !== '.');
  const joined = root + parts.join('/');
  return joined === '' ? '.' : joined;
}

const ERRNO: Record<string, [number, string]> = {
  EPERM: [1, 'Operation not permitted'],
  ENOENT: [2, 'No such file or directory'],
  EIO: [5, 'Input/output error'],
  ENXIO: [6, 'No such device or address'],
  EACCES: [13, 'Permission denied'],
  ENODEV: [19, 'No such device'],
  ENOTDIR: [20, 'Not a directory'],
  EISDIR: [21, 'Is a directory'],
  EINVAL: [22, 'Invalid argument'],
  EMFILE: [24, 'Too many open files'],
  ENAMETOOLONG: [36, 'File name too long'],
  ELOOP: [40, 'Too many levels of symbolic links'],
};

function loadJson(file: string | readonly [] | undefined, fallback: string, cwd: string): PyValue {
  if (Array.isArray(file)) throw new UncaughtPythonError('AttributeError', "'list' object has no attribute 'open'");
  // A default is shown as the reference shows its own: an absolute path.
  const shown = file === undefined ? path.resolve(cwd, fallback) : pythonPath(file as string);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path.resolve(cwd, shown));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    const known = ERRNO[code];
    const [errno, text] = known ?? [(error as NodeJS.ErrnoException).errno ?? 0, code || String(error)];
    throw new GateError(`[Errno ${Math.abs(errno)}] ${text}: ${reprString(shown)}`);
  }
  return parseJson(decodeText(bytes));
}

/** Run the gate on a result package. */
export function runGate(options: GateOptions = {}): GateOutcome {
  const cwd = options.cwd ?? process.cwd();
  try {
    const spec = validateSpec(loadJson(options.spec, GATE_DEFAULTS.spec, cwd));
    const caseFile = validateCases(loadJson(options.cases, GATE_DEFAULTS.cases, cwd), spec);
    const results = validateResults(loadJson(options.results, GATE_DEFAULTS.results, cwd), spec, caseFile);
    const candidate = options.candidate ?? GATE_DEFAULTS.candidate;
    // A list equals no system id (nor the baseline's): the reference's lookup fails, showing str([]).
    if (typeof candidate !== 'string') throw new GateError('system not found: []');
    const {document, pass} = evaluate(spec, caseFile, results, candidate);
    const exitCode = pass ? 0 : 1;
    const utf8 = dumpsUtf8(document, 2);
    // Lone surrogates cannot be UTF-8: then only the text form is exact.
    if (!utf8.wellFormed) return {stdout: dumps(document, 2) + '\n', stderr: '', exitCode};
    const bytes = new Uint8Array(utf8.bytes.length + 1);
    bytes.set(utf8.bytes);
    bytes[utf8.bytes.length] = 0x0a;
    // The text is decoded only if someone asks for it (tests do; the CLI does not).
    let text: string | undefined;
    return {
      get stdout(): string {
        return (text ??= new TextDecoder().decode(bytes));
      },
      stdoutBytes: bytes,
      stderr: '',
      exitCode,
    };
  } catch (error) {
    if (error instanceof GateError) {
      return {stdout: '', stderr: backslashReplaceSurrogates(`ERROR: ${error.message}`) + '\n', exitCode: 2};
    }
    if (error instanceof UncaughtPythonError) {
      // The reference crashes here with a traceback and exit 1; we say what it says last.
      return {stdout: '', stderr: `${error.pyType}: ${error.message}\n`, exitCode: 1};
    }
    throw error;
  }
}
