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
export function protectedPaths(plan: Plan): string[] {
  const rel = (file: string) => path.relative(plan.dir, file);
  const paths = ['plan.toml', 'eval.sh', 'eval.py', rel(plan.bundle), 'data'];
  if (plan.reference) paths.push(rel(plan.reference));
  return [...new Set(paths)].filter((file) => !plan.editable.includes(file));
}

/** Hash the protected files of a benchmark folder as they are now. */
export async function computeLock(dir: string, plan?: Plan): Promise<Lock> {
  return computeLockSync(dir, plan ?? (await loadPlan(dir)));
}

/**
 * `computeLock`, synchronously (verify and list check every folder's lock): one read per file.
 * Protected files are small (a bundle, a plan, a reference, committed data of a few MB).
 */
export function computeLockSync(dir: string, plan: Plan): Lock {
  const files: Record<string, string> = {};
  const visit = (rel: string): void => {
    const file = path.join(dir, rel);
    let info;
    try {
      info = lstatSync(file, {throwIfNoEntry: false});
    } catch {
      info = undefined;
    }
    if (!info || lockIgnoredNames.has(path.basename(rel))) return;
    const key = rel.split(path.sep).join('/');
    if (info.isDirectory()) {
      for (const name of readdirSync(file).sort()) visit(path.join(rel, name));
    } else if (info.isSymbolicLink()) {
      files[key] = `symlink:${readlinkSync(file)}`;
    } else if (info.isFile()) {
      files[key] = createHash('sha256').update(readFileSync(file)).digest('hex');
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

/** `readLock`, synchronously. */
export function readLockSync(dir: string): Lock | undefined {
  const file = path.join(dir, lockFile);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new HarnessError(`${file}: cannot read: ${(error as Error).message}`, 'bad-lock');
  }
  try {
    const lock = JSON.parse(text) as Lock;
    if (lock?.version !== 1 || typeof lock.files !== 'object' || lock.files === null) throw new Error('not an arbor.lock of version 1');
    return lock;
  } catch (error) {
    throw new HarnessError(`${file}: ${(error as Error).message}; run 'arbor benchmark lock ${dir}' to write it anew`, 'bad-lock');
  }
}

/** The first difference between a lock and the folder (a sentence naming the file), or undefined. */
export function lockDifference(locked: Lock, now: Lock): string | undefined {
  for (const [file, digest] of Object.entries(locked.files)) {
    if (!(file in now.files)) return `${file} is missing`;
    if (now.files[file] !== digest) return `${file} changed`;
  }
  const added = Object.keys(now.files).find((file) => !(file in locked.files));
  return added === undefined ? undefined : `${added} was added`;
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
