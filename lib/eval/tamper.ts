/**
 * Tamper evidence for runs without a sandbox: SHA-256 of every file under a
 * set of paths, taken before a solution runs and compared after it exits.
 */
import {createHash} from 'node:crypto';
import {lstat, readFile, readdir} from 'node:fs/promises';
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
      hashes.set(
        file,
        createHash('sha256')
          .update(await readFile(file))
          .digest('hex'),
      );
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
