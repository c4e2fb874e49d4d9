/**
 * Tamper evidence: SHA-256 of every file under a set of paths, taken before a
 * solution runs and compared after it exits, plus the clean-up of anything in
 * a solution's out/ that is not a regular file (a symlink planted towards
 * where expected/ will appear must never be read as an answer).
 */
import {createHash} from 'node:crypto';
import {lstat, readFile, readdir, rm} from 'node:fs/promises';
import path from 'node:path';

/** relative path -> digest (or a marker for folders and other kinds). */
export type TreeHash = Map<string, string>;

/** Hash every file under each root (roots may be files or folders). Symlinks count by their target text. */
export async function hashTree(roots: string[]): Promise<TreeHash> {
  const hashes: TreeHash = new Map();
  const visit = async (file: string): Promise<void> => {
    const info = await lstat(file).catch(() => undefined);
    if (!info) {
      hashes.set(file, 'missing');
    } else if (info.isDirectory()) {
      hashes.set(file, 'dir');
      for (const name of (await readdir(file)).sort()) await visit(path.join(file, name));
    } else if (info.isFile()) {
      hashes.set(file, createHash('sha256').update(await readFile(file)).digest('hex'));
    } else {
      hashes.set(file, `other:${info.mode}`);
    }
  };
  for (const root of roots) await visit(root);
  return hashes;
}

/** The first path whose state differs between two hashes, or undefined when they agree. */
export function firstDifference(before: TreeHash, after: TreeHash): string | undefined {
  for (const [file, digest] of before) if (after.get(file) !== digest) return file;
  for (const file of after.keys()) if (!before.has(file)) return file;
  return undefined;
}

/** Remove everything under `dir` that is not a regular file or a folder; returns how many entries went. */
export async function keepRegularFiles(dir: string): Promise<number> {
  let removed = 0;
  const visit = async (current: string): Promise<void> => {
    let names: string[];
    try {
      names = await readdir(current);
    } catch {
      return;
    }
    for (const name of names) {
      const file = path.join(current, name);
      const info = await lstat(file).catch(() => undefined);
      if (!info) continue;
      if (info.isDirectory()) await visit(file);
      else if (!info.isFile() || info.nlink > 1) {
        await rm(file, {force: true, recursive: true});
        removed++;
      }
    }
  };
  await visit(dir);
  return removed;
}
