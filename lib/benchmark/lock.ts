/**
 * `arbor.lock`: the SHA-256 of every protected file of a benchmark folder
 * (the eval entrypoints, plan.toml, the bundle, the reference solver, data/),
 * written by scaffold, checkout and `arbor benchmark lock`, committed with the
 * folder. An eval whose protected files differ from the lock refuses to run (exit 3): an
 * agent working in a checkout cannot make its eval easier between runs. It
 * guards against solutions and agents, not against the folder's owner, who
 * refreshes the lock on purpose.
 */
import {createHash} from 'node:crypto';
import {lstatSync, readFileSync, readdirSync, readlinkSync} from 'node:fs';
import path from 'node:path';
import {UsageError} from '../errors.js';
import {writeFileAtomic} from '../files.js';
import {HarnessError} from './errors.js';
import {loadPlan, type Plan} from './plan.js';

export const lockFile = 'arbor.lock';

/** The lock's content: relative path (POSIX separators) -> sha256 hex (symlinks: of their target text). */
export interface Lock {
  version: 1;
  files: Record<string, string>;
}

/** Folders never part of what is protected (caches that tools write). */
export const lockIgnoredNames: ReadonlySet<string> = new Set(['__pycache__', '.DS_Store', 'node_modules', '.pytest_cache']);

/** The protected paths of a benchmark, relative to its folder: what the eval reads besides the solution. */
function protectedPaths(plan: Plan): string[] {
  const rel = (file: string) => path.relative(plan.dir, file);
  const paths = ['plan.toml', 'eval.sh', 'eval.py', rel(plan.bundle), 'data'];
  if (plan.reference) paths.push(rel(plan.reference));
  return [...new Set(paths)].filter((file) => !plan.editable.includes(file));
}

/** Hash the protected files of a benchmark folder as they are now. */
export async function computeLock(dir: string, plan?: Plan): Promise<Lock> {
  return computeLockSync(dir, plan ?? (await loadPlan(dir)));
}

/** What an entry is, as `lstat` says (a symlink is not followed); undefined when it cannot be looked at. */
export type EntryKind = 'file' | 'dir' | 'symlink' | 'other';

/**
 * How a folder's files are read when hashing them: the file system itself (`fileSystem`), or a
 * reader that shares what an earlier step read (verify reads each file once for lint, the lock
 * and the determinism key).
 */
export interface TreeSource {
  /** The entry's kind (lstat), undefined when it is missing or cannot be looked at. */
  kind(file: string): EntryKind | undefined;
  /** The names in a folder, sorted (throws as readdirSync does). */
  names(dir: string): string[];
  /** SHA-256 hex of a file's bytes, a symlink followed (throws as readFileSync does). */
  sha256(file: string): string;
  readlink(file: string): string;
}

/** `TreeSource` straight from the file system. */
export const fileSystem: TreeSource = {
  kind(file) {
    let info;
    try {
      info = lstatSync(file, {throwIfNoEntry: false});
    } catch {
      return undefined;
    }
    if (!info) return undefined;
    return info.isDirectory() ? 'dir' : info.isSymbolicLink() ? 'symlink' : info.isFile() ? 'file' : 'other';
  },
  names: (dir) => readdirSync(dir).sort(),
  sha256: (file) => createHash('sha256').update(readFileSync(file)).digest('hex'),
  readlink: (file) => readlinkSync(file),
};

/**
 * `computeLock`, synchronously (verify and list check every folder's lock): one read per file.
 * Protected files are small (a bundle, a plan, a reference, committed data of a few MB).
 */
export function computeLockSync(dir: string, plan: Plan, source: TreeSource = fileSystem): Lock {
  const files: Record<string, string> = {};
  const visit = (rel: string): void => {
    const file = path.join(dir, rel);
    const kind = source.kind(file);
    if (!kind || lockIgnoredNames.has(path.basename(rel))) return;
    const key = rel.split(path.sep).join('/');
    if (kind === 'dir') {
      for (const name of source.names(file)) visit(path.join(rel, name));
    } else if (kind === 'symlink') {
      files[key] = `symlink:${source.readlink(file)}`;
    } else if (kind === 'file') {
      files[key] = source.sha256(file);
    }
  };
  for (const rel of protectedPaths(plan)) visit(rel);
  const sorted = Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {version: 1, files: sorted};
}

/** Read `<dir>/arbor.lock`: undefined when there is none; a HarnessError when it is not a lock. */
export async function readLock(dir: string): Promise<Lock | undefined> {
  return readLockSync(dir);
}

/** `readLock`, synchronously; `read`: how the file's text is read (undefined when it does not exist, else throwing as readFileSync does). */
export function readLockSync(dir: string, read: (file: string) => string | undefined = (file) => readFileSync(file, 'utf8')): Lock | undefined {
  const file = path.join(dir, lockFile);
  let text: string | undefined;
  try {
    text = read(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new HarnessError(`${file}: cannot read: ${(error as Error).message}`, 'bad-lock');
  }
  if (text === undefined) return undefined;
  try {
    const lock = JSON.parse(text) as Lock;
    if (lock?.version !== 1 || typeof lock.files !== 'object' || lock.files === null) throw new Error('not an arbor.lock of version 1');
    return lock;
  } catch (error) {
    throw new HarnessError(`${file}: ${(error as Error).message}; run 'arbor benchmark lock ${dir}' to write it anew`, 'bad-lock');
  }
}

/** How the protected files differ from a lock: each list in path order (as the lock sorts them). */
export interface LockChanges {
  /** In the lock and in the folder, with another digest. */
  changed: string[];
  /** In the folder, not in the lock. */
  added: string[];
  /** In the lock, not in the folder. */
  removed: string[];
}

const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Every protected file that differs between a lock and the folder as it is now (`now`), in path order. */
export function lockChanges(locked: Lock, now: Lock): LockChanges {
  const changes: LockChanges = {changed: [], added: [], removed: []};
  for (const [file, digest] of Object.entries(locked.files)) {
    if (!Object.hasOwn(now.files, file)) changes.removed.push(file);
    else if (now.files[file] !== digest) changes.changed.push(file);
  }
  for (const file of Object.keys(now.files)) if (!Object.hasOwn(locked.files, file)) changes.added.push(file);
  for (const list of Object.values(changes) as string[][]) list.sort(byPath);
  return changes;
}

/**
 * How many files a difference names, across its three kinds; the rest are counted (`and 3 more`).
 * Eight is every hand-written protected file of a typical entry (the plan, eval.sh, the reference
 * and the bundle's five or so scripts and marker), so an edit by hand is named in full; past it
 * the difference is a regenerated data or vectors folder, whose count says more than its names,
 * and the line stays one a terminal shows readably (eight paths of 20-45 characters).
 */
export const lockNamesShown = 8;

/**
 * A difference in one line, every kind that occurs in the order changed, added, removed, each
 * kind's files in path order: `bundle/fherma.toml, bundle/oracle.mjs changed; data/x added;
 * reference.py removed`. Past `limit` names in all, a kind ends in `and N more`, or is only
 * counted (`3 files added`). Undefined when nothing differs.
 */
export function formatLockChanges(changes: LockChanges, limit = lockNamesShown): string | undefined {
  let room = limit;
  const parts: string[] = [];
  for (const kind of ['changed', 'added', 'removed'] as const) {
    const files = changes[kind];
    if (files.length === 0) continue;
    const named = files.slice(0, Math.max(0, room));
    room -= named.length;
    const rest = files.length - named.length;
    const what = named.length === 0 ? `${rest} ${rest === 1 ? 'file' : 'files'}` : rest > 0 ? `${named.join(', ')} and ${rest} more` : named.join(', ');
    parts.push(`${what} ${kind}`);
  }
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/** Every difference between a lock and the folder in one line (formatLockChanges), or undefined when there is none. */
export function lockDifference(locked: Lock, now: Lock): string | undefined {
  return formatLockChanges(lockChanges(locked, now));
}

/** Write `<dir>/arbor.lock` atomically; returns the lock written. */
export async function writeLock(dir: string, plan?: Plan): Promise<Lock> {
  const lock = await computeLock(dir, plan);
  const target = path.join(dir, lockFile);
  try {
    writeFileAtomic(target, `${JSON.stringify(lock, null, 2)}\n`);
  } catch (error) {
    throw new UsageError(`${target}: cannot write: ${(error as Error).message}`, 'write-failed');
  }
  return lock;
}
