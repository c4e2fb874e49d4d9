/**
 * What a python said about itself (environment.ts's probe), kept between
 * processes. Every eval asks, and asking costs a Python start and a numpy
 * import (a quarter of a CPU second); the answer changes only when the
 * interpreter changes or a folder on its sys.path does (installing or
 * upgrading a package rewrites its site-packages folder). Kept in arbor's
 * cache folder (lib/files.ts cacheDir), one file per interpreter, and only
 * for an interpreter that is a binary: a version manager's shim picks its
 * python per folder and environment, so it is asked every time. Nothing here
 * fails: a cache that cannot be read or written means the python is asked.
 */
import {closeSync, mkdirSync, openSync, readFileSync, readSync, realpathSync, statSync} from 'node:fs';
import {createHash} from 'node:crypto';
import path from 'node:path';
import {cacheDir, writeFileAtomic} from './files.js';

/** The answer as cached: PythonInfo without the executable (which is the key). */
export interface CachedPythonInfo {
  version: string | null;
  implementation: string | null;
  numpy: string | null;
  blas: {name: string | null; version: string | null; config: string | null} | null;
}

/** What must be unchanged for an answer to hold: the binary and every folder on sys.path. */
interface Entry {
  /** The probe script's digest: another script asks other questions. */
  script: string;
  executable: string;
  binary: string;
  folders: Record<string, string>;
  info: CachedPythonInfo;
}

/** The cached answer of `executable` to the probe `script`, when the interpreter and its folders are as they were. */
export function readCachedPythonInfo(executable: string, script: string, env: NodeJS.ProcessEnv = process.env): CachedPythonInfo | undefined {
  const file = entryFile(executable, env);
  if (!file || !isBinary(executable)) return undefined;
  try {
    const entry = JSON.parse(readFileSync(file, 'utf8')) as Entry;
    if (entry.script !== digest(script) || entry.executable !== executable || entry.binary !== stampOf(executable)) return undefined;
    if (!entry.folders || typeof entry.folders !== 'object') return undefined;
    for (const [folder, stamp] of Object.entries(entry.folders)) if (stampOf(folder) !== stamp) return undefined;
    return validInfo(entry.info);
  } catch {
    return undefined;
  }
}

/** Keep the answer of `executable` (a binary) to `script`, with the stamps of the folders on its sys.path. */
export function writeCachedPythonInfo(
  executable: string,
  script: string,
  info: CachedPythonInfo,
  sysPath: unknown,
  env: NodeJS.ProcessEnv = process.env,
): void {
  const file = entryFile(executable, env);
  const valid = validInfo(info);
  if (!file || !valid || !isBinary(executable) || !Array.isArray(sysPath)) return;
  const folders: Record<string, string> = {};
  for (const folder of sysPath) {
    if (typeof folder !== 'string' || !path.isAbsolute(folder)) continue;
    // A folder on sys.path that does not exist yet is stamped as missing: creating it changes the answer too.
    folders[folder] = stampOf(folder);
  }
  const entry: Entry = {script: digest(script), executable, binary: stampOf(executable), folders, info: valid};
  try {
    mkdirSync(path.dirname(file), {recursive: true, mode: 0o700});
    writeFileAtomic(file, `${JSON.stringify(entry)}\n`);
  } catch {
    // A cache that cannot be written: the next eval asks again.
  }
}

function entryFile(executable: string, env: NodeJS.ProcessEnv): string | undefined {
  const folder = cacheDir(env);
  if (!path.isAbsolute(folder) || !path.isAbsolute(executable)) return undefined;
  return path.join(folder, `python-${digest(executable).slice(0, 16)}.json`);
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The file's identity and last change (through symlinks), or 'missing'. */
function stampOf(file: string): string {
  try {
    const real = realpathSync(file);
    const stat = statSync(real);
    return `${real}:${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
  } catch {
    return 'missing';
  }
}

/** Whether the file (through symlinks) is an ELF binary, not a script such as a version manager's shim. */
function isBinary(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const head = Buffer.alloc(4);
    return readSync(fd, head, 0, 4, 0) === 4 && head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The info when every field has its type (a cache file is data from disk), else undefined. */
function validInfo(info: unknown): CachedPythonInfo | undefined {
  if (!info || typeof info !== 'object') return undefined;
  const {version, implementation, numpy, blas} = info as Record<string, unknown>;
  const text = (value: unknown) => value === null || typeof value === 'string';
  if (!text(version) || !text(implementation) || !text(numpy)) return undefined;
  if (blas !== null) {
    if (!blas || typeof blas !== 'object') return undefined;
    const {name, version: blasVersion, config} = blas as Record<string, unknown>;
    if (!text(name) || !text(blasVersion) || !text(config)) return undefined;
    return {version, implementation, numpy, blas: {name, version: blasVersion, config}} as CachedPythonInfo;
  }
  return {version, implementation, numpy, blas: null} as CachedPythonInfo;
}
