/**
 * The agent's files, taken at call time. A run reads its solution in a
 * process of its own, later (after its start, after waiting for its turn): a
 * workspace the agent writes could by then hold a link to the salt, the ledger
 * or test data where the call saw a solution. So the server copies the
 * editable files a call names, each opened without following a final link,
 * through the path it was checked at (the descriptor's own path is checked
 * again: a parent swapped meanwhile is caught), into a private folder beside
 * the store (`mcp-snapshots/`, 0700), and the run reads only that copy. The
 * digest of a sealed submission is the copy's too.
 */
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import type {Plan} from '../benchmark/plan.js';
import {UsageError} from '../errors.js';
import {confinedPath, type ServerContext} from './context.js';

/** The most bytes one editable file may hold (a solution is source code). */
const maxFileBytes = 64 * 1024 * 1024;

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

/** The bytes and mode of a file a tool was given, read as checked (see above); a one-line error otherwise. */
async function readConfined(ctx: ServerContext, file: string, what: string): Promise<{bytes: Buffer; mode: number}> {
  const checked = await confinedPath(ctx, file, what);
  let fd: number;
  try {
    fd = openSync(checked, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    throw new UsageError(`${what} ${file}: cannot be read (${(error as NodeJS.ErrnoException).code}): pass a regular file`, 'outside');
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new UsageError(`${what} ${file}: not a regular file: pass a solution file`, 'usage');
    if (stats.size > maxFileBytes) throw new UsageError(`${what} ${file}: ${stats.size} bytes, more than a solution file may hold (64 MiB)`, 'usage');
    const opened = readlinkSync(`/proc/self/fd/${fd}`);
    if (opened !== checked) await confinedPath(ctx, opened, what);
    return {bytes: readFileSync(fd), mode: stats.mode & 0o755};
  } finally {
    closeSync(fd);
  }
}

/**
 * Copy what a call names (a solution file, or a folder's editable files) into
 * a private folder of its own; the copy's path is what the run gets.
 */
export async function snapshotSide(ctx: ServerContext, plan: Plan, given: string, what: string): Promise<Snapshot> {
  const scratch = mkdtempSync(path.join(snapshotRoot(ctx), 'call-'));
  try {
    if (!statSync(given).isDirectory()) {
      const {bytes, mode} = await readConfined(ctx, given, what);
      const copy = path.join(scratch, path.basename(given));
      writeFileSync(copy, bytes, {mode});
      return {path: copy, original: given, scratch};
    }
    const folder = path.join(scratch, 'side');
    mkdirSync(folder);
    for (const rel of plan.editable) {
      const source = path.join(given, rel);
      if (!statSync(source, {throwIfNoEntry: false}) && !lexists(source)) continue;
      const {bytes, mode} = await readConfined(ctx, source, what);
      mkdirSync(path.dirname(path.join(folder, rel)), {recursive: true});
      writeFileSync(path.join(folder, rel), bytes, {mode});
    }
    return {path: folder, original: given, scratch};
  } catch (error) {
    rmSync(scratch, {recursive: true, force: true});
    throw error;
  }
}

/** Whether a path names a link (a dangling one too). */
function lexists(file: string): boolean {
  try {
    readlinkSync(file);
    return true;
  } catch {
    return false;
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
