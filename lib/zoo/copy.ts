/**
 * Copying folders (modes kept, symlinks kept as links, junk left behind), and the
 * hidden temporary siblings that scaffold and checkout build in: named after the
 * host and the process, so the next run can remove those of dead runs.
 */
import {createHash, randomBytes} from 'node:crypto';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {RefusedError, UsageError} from '../errors.js';
import {describeFsError, kindOf} from './text.js';

/**
 * Refuse to write a new folder at `target` unless nothing or an empty folder is
 * there: a user's files are never overwritten. `shown` is the path as the user
 * wrote it; `action` completes "Refusing to … into".
 */
export function refuseUnlessEmptyFolder(target: string, shown: string, action: string): void {
  let existing;
  try {
    existing = statSync(target, {throwIfNoEntry: false});
  } catch (error) {
    throw new UsageError(`Cannot inspect \`${shown}\` (${describeFsError(error)})`);
  }
  if (!existing) return;
  if (!existing.isDirectory())
    throw new RefusedError(`Refusing to ${action} into \`${shown}\`: it is ${existing.isFile() ? 'a file' : kindOf(existing)}, expected a new or empty folder`);
  if (readdirSync(target).length > 0) throw new RefusedError(`Refusing to ${action} into \`${shown}\`: the folder is not empty (nothing was changed)`);
}

/**
 * Names never copied by `checkout`: caches, dependencies, VCS folders, and
 * arbor's run history (`.arbor/`: the ledger would show the agent the
 * author's runs, such as a 33x solution's score and digest, and how often the
 * test split was scored).
 */
const junkNames: ReadonlySet<string> = new Set([
  '.arbor',
  'node_modules',
  '__pycache__',
  '.git',
  '.venv',
  '.pytest_cache',
  '.mypy_cache',
  '.ruff_cache',
  '.DS_Store',
  '.ipynb_checkpoints',
]);

/** Whether a file name is junk (see `junkNames`, plus compiled Python files). */
export function isJunk(name: string): boolean {
  return junkNames.has(name) || name.endsWith('.pyc') || name.endsWith('.pyo');
}

/** Copy `from` into the (existing, empty) folder `to`; returns the relative paths copied. */
export function copyTree(from: string, to: string, options: {skip?: (name: string) => boolean} = {}): string[] {
  const copied: string[] = [];
  const walk = (src: string, dest: string, prefix: string) => {
    for (const entry of readdirSync(src, {withFileTypes: true}).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (options.skip?.(entry.name)) continue;
      const s = path.join(src, entry.name);
      const d = path.join(dest, entry.name);
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isSymbolicLink()) symlinkSync(readlinkSync(s), d);
      else if (entry.isDirectory()) {
        mkdirSync(d);
        walk(s, d, rel);
        chmodSync(d, statSync(s).mode & 0o7777);
        continue;
      } else if (entry.isFile()) {
        copyFileSync(s, d);
        chmodSync(d, statSync(s).mode & 0o7777);
      } else continue; // sockets, pipes and devices are not part of a benchmark
      copied.push(rel);
    }
  };
  walk(from, to, '');
  return copied;
}

/** The runs that leave temporary siblings. */
export type TempKind = 'scaffold' | 'checkout';

let hostTagCache: string | undefined;

/** 8 hex digits of the host name's hash: a process id only means something on its own host. */
function hostTag(): string {
  return (hostTagCache ??= createHash('sha256').update(os.hostname()).digest('hex').slice(0, 8));
}

/** `.<base>.<kind>-<host>-<pid>-`: the prefix of this process's temporary names for `base`. */
function tempPrefix(base: string, kind: TempKind): string {
  return `.${base}.${kind}-${hostTag()}-${process.pid}-`;
}

const tempPattern = /^\..+\.(?:scaffold|checkout)-([0-9a-f]{8})-([1-9][0-9]*)-[A-Za-z0-9]{6,}$/;

/** Whether process `pid` is alive on this host (a process of another user counts). */
function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Remove the temporary siblings in `dir` that a killed scaffold or checkout left:
 * names of this host whose process is gone. Returns the names removed. Anything
 * else (a live run's temp, another host's, a name that merely looks similar) is
 * left alone, and a folder that cannot be read or cleaned is not an error.
 */
export function removeStaleTemps(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const match = tempPattern.exec(name);
    if (!match || match[1] !== hostTag() || isAlive(Number(match[2]))) continue;
    try {
      rmSync(path.join(dir, name), {recursive: true, force: true});
      removed.push(name);
    } catch {
      // left for a later run
    }
  }
  return removed;
}

/** A new hidden temporary folder beside `target`, named for this run. */
export function makeTempSibling(target: string, kind: TempKind): string {
  return mkdtempSync(path.join(path.dirname(target), tempPrefix(path.basename(target), kind)));
}

/**
 * Write a new file atomically and never over anything: a temp file beside it, then
 * a hard link to the final name (which fails if the name exists) and the temp's
 * removal. Returns false, writing nothing, when something is already there.
 */
export function writeNewFile(file: string, data: string | Uint8Array, mode: number, kind: TempKind): boolean {
  const temp = path.join(path.dirname(file), `${tempPrefix(path.basename(file), kind)}${randomBytes(4).toString('hex')}`);
  const fd = openSync(temp, 'wx', mode);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, {force: true});
    throw error;
  }
  closeSync(fd);
  try {
    chmodSync(temp, mode);
    try {
      linkSync(temp, file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      // File systems without hard links: rename, after a last look that nothing is there.
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV') throw error;
      if (lstatSync(file, {throwIfNoEntry: false})) return false;
      renameSync(temp, file);
    }
    return true;
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // renamed away
    }
  }
}
