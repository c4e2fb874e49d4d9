/**
 * An eval's private work folder (`$TMPDIR/arbor-eval-<owner>-XXXXXX`): the
 * snapshots of everything a run sees, the cases, each run's answers, and
 * expected/ once every solution process is gone. Its name carries the
 * owner's tag, so the next eval removes the folders of evals that were killed
 * before they could clean up (a kill -9 leaves no handler to run).
 */
import {mkdtemp, readdir, rename, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {ownerAlive, ownerTag} from '../sandbox/index.js';

const prefix = 'arbor-eval-';

/** Remove the work folders of evals that are no longer running; returns how many went. */
async function removeStaleWorkFolders(root = tmpdir()): Promise<number> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const match = /^arbor-eval-(\d+\.\d+)-[^/]+$/.exec(name);
    if (!match || ownerAlive(match[1]!)) continue;
    await rm(path.join(root, name), {recursive: true, force: true}).catch(() => {});
    removed++;
  }
  return removed;
}

/** A new work folder (after clearing stale ones). */
export async function createWorkFolder(root = tmpdir()): Promise<string> {
  await removeStaleWorkFolders(root);
  return mkdtemp(path.join(root, `${prefix}${ownerTag()}-`));
}

/**
 * Keep a work folder for the user (`--keep`): renamed so that no later eval
 * takes it for the folder of a killed one and removes it. Returns its path.
 */
export async function keepWorkFolder(folder: string): Promise<string> {
  const kept = path.join(path.dirname(folder), path.basename(folder).replace(prefix, `${prefix}kept-`));
  try {
    await rename(folder, kept);
    return kept;
  } catch {
    return folder;
  }
}
