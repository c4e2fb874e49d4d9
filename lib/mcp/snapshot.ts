/**
 * The agent's files, taken at call time. A run reads its solution in a
 * process of its own, later (after its start, after waiting for its turn): a
 * workspace the agent writes could by then hold a link to the salt, the ledger
 * or test data where the call saw a solution. So the server copies the
 * editable files a call names, with the eval's copier (no link followed, the
 * descriptor's own path checked again: a parent swapped meanwhile is caught),
 * into a private folder beside the store (`mcp-snapshots/`, 0700), and the
 * run reads only that copy. The digest of a sealed submission is the copy's too.
 */
import {mkdirSync, mkdtempSync, readdirSync, rmSync, statSync} from 'node:fs';
import path from 'node:path';
import type {Plan} from '../benchmark/plan.js';
import {copyRegularFiles} from '../eval/index.js';
import {confinedPath, type ServerContext} from './context.js';

/** A call's copy of a side: the path the run reads, and the path the agent gave (results name it). */
export interface Snapshot {
  path: string;
  original: string;
  /** The private folder to remove when the run ends. */
  scratch: string;
}

/** The folder of every call's copies. */
function snapshotRoot(ctx: ServerContext): string {
  const root = path.join(path.dirname(ctx.store.file), 'mcp-snapshots');
  mkdirSync(root, {recursive: true, mode: 0o700});
  return root;
}

/**
 * Copy what a call names (a solution file, or a folder's editable files) into
 * a private folder of its own; the copy's path is what the run gets. The
 * copier is the eval's (lib/eval/snapshot.ts: no link followed, regular files
 * only, the descriptor's path checked); this server adds only its
 * confinement of each named path to the zoo and the agent's workspaces.
 */
export async function snapshotSide(ctx: ServerContext, plan: Plan, given: string, what: string): Promise<Snapshot> {
  const scratch = mkdtempSync(path.join(snapshotRoot(ctx), 'call-'));
  const options = {what, confine: (file: string) => confinedPath(ctx, file, what)};
  try {
    if (!statSync(given).isDirectory()) {
      await copyRegularFiles(path.dirname(given), [path.basename(given)], scratch, options);
      return {path: path.join(scratch, path.basename(given)), original: given, scratch};
    }
    const folder = path.join(scratch, 'side');
    await copyRegularFiles(given, plan.editable, folder, options);
    return {path: folder, original: given, scratch};
  } catch (error) {
    rmSync(scratch, {recursive: true, force: true});
    throw error;
  }
}

/** Remove the copies no run uses any more: older than `keepMs` (a run that outlived its copy would have ended long before). */
export function sweepSnapshots(storeFile: string, keepMs: number, now = Date.now()): void {
  const root = path.join(path.dirname(storeFile), 'mcp-snapshots');
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  for (const name of names) {
    const stats = statSync(path.join(root, name), {throwIfNoEntry: false});
    if (stats && stats.mtimeMs + keepMs < now) rmSync(path.join(root, name), {recursive: true, force: true});
  }
}
