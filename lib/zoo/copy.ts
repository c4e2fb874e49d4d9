/** Copying folders: modes kept, symlinks kept as links, junk left behind. */
import {chmodSync, copyFileSync, mkdirSync, readdirSync, readlinkSync, statSync, symlinkSync} from 'node:fs';
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
  if (!existing.isDirectory()) throw new RefusedError(`Refusing to ${action} into \`${shown}\`: it is ${existing.isFile() ? 'a file' : kindOf(existing)}, expected a new or empty folder`);
  if (readdirSync(target).length > 0) throw new RefusedError(`Refusing to ${action} into \`${shown}\`: the folder is not empty (nothing was changed)`);
}

/** Names never copied by `checkout`: caches, dependencies and VCS folders. */
export const junkNames: ReadonlySet<string> = new Set([
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
