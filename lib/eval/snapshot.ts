/**
 * The one copier of a solution's files: what an eval (each side and the
 * reference, so compare, calibrate and the queue's workers too) and an MCP
 * call snapshot before anything runs. The files it reads may belong to
 * someone else (root evaluating another user's solution), so it never
 * follows a link: each file is opened with O_NOFOLLOW | O_NONBLOCK and
 * fstat'ed, and anything but a regular file or a folder (a link, final or
 * inside a walked folder; a fifo; a device; a socket) is refused with one
 * line naming the path. The descriptor's own path (`/proc/self/fd/N`) must be
 * the one resolved at the start: a parent swapped to a link between the check
 * and the open is caught. A folder is walked through its descriptor, so its
 * entries are those of the folder that was checked.
 *
 * Hard links: with `/proc/sys/fs/protected_hardlinks` = 1 (the default of
 * every current distribution) the kernel refuses a user a hard link to a file
 * they could not read and write, so a hard link in a solution leads to
 * nothing its owner could not read already.
 */
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  type Stats,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import {UsageError} from '../errors.js';

/** The most bytes one editable file may hold (a solution is source code). */
const maxFileBytes = 64 * 1024 * 1024;

export interface CopyOptions {
  /** What the files are, as errors name them: `solution`, `candidate`, `reference`. */
  what: string;
  /** Files copied from elsewhere than `from`: relative path -> the file to copy there (eval's --solution). */
  rename?: Record<string, string>;
  /** A check of each named path before it is opened (MCP's confinement to the agent's workspace); returns the real path it vetted. */
  confine?: (file: string) => Promise<string>;
}

const fileFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const folderFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_DIRECTORY;

/**
 * Copy the given files of `from` (relative paths; folders walked) into `to`,
 * keeping their relative paths and modes (0755 mask). Missing ones are
 * skipped: a solution that lost a file of its own fails by itself.
 */
export async function copyRegularFiles(from: string, files: string[], to: string, options: CopyOptions): Promise<void> {
  mkdirSync(to, {recursive: true});
  for (const rel of files) {
    const renamed = options.rename?.[rel];
    const source = renamed ?? path.join(from, rel);
    const found = lstatOrMissing(source);
    if (!found) continue;
    // Resolved once, here, before anything else looks: the folder the file must still be in when it is opened.
    const base = renamed ? path.dirname(source) : from;
    const expected = path.join(realpathSync(base), renamed ? path.basename(source) : rel);
    const resolved = path.join(realpathSync(path.dirname(source)), path.basename(source));
    const vetted = options.confine ? await options.confine(source) : undefined;
    refuseKind(source, found, options.what);
    if (resolved !== expected)
      throw new UsageError(`${options.what} ${source}: a folder on its path is a symbolic link, never followed: pass a path without links`, 'link');
    if (vetted !== undefined && vetted !== expected) throw changed(source, options.what);
    const target = path.join(to, rel);
    mkdirSync(path.dirname(target), {recursive: true});
    copyEntry({open: source, shown: source, expected, target, what: options.what});
  }
}

/** One path to copy: where to open it, how errors name it, the real path its descriptor must have, where its copy goes. */
interface Entry {
  open: string;
  shown: string;
  expected: string;
  target: string;
  what: string;
}

/** Copy a regular file, or walk a folder (each entry opened through the folder's descriptor). */
function copyEntry(entry: Entry): void {
  const fd = openChecked(entry);
  try {
    const stats = fstatSync(fd);
    refuseKind(entry.shown, stats, entry.what);
    if (readlinkSync(`/proc/self/fd/${fd}`) !== entry.expected) throw changed(entry.shown, entry.what);
    if (stats.isDirectory()) {
      mkdirSync(entry.target, {recursive: true, mode: stats.mode & 0o755});
      // `/proc/self/fd/N/name` is looked up in the folder the descriptor holds, whatever its path names now.
      for (const name of readdirSync(`/proc/self/fd/${fd}`).sort()) {
        const child = `/proc/self/fd/${fd}/${name}`;
        const shown = path.join(entry.shown, name);
        const found = lstatOrMissing(child);
        if (!found) continue;
        refuseKind(shown, found, entry.what);
        copyEntry({open: child, shown, expected: path.join(entry.expected, name), target: path.join(entry.target, name), what: entry.what});
      }
      return;
    }
    if (stats.size > maxFileBytes)
      throw new UsageError(`${entry.what} ${entry.shown}: ${stats.size} bytes, more than a solution file may hold (64 MiB): make it smaller`, 'usage');
    writeFileSync(entry.target, readFileSync(fd));
    chmodSync(entry.target, stats.mode & 0o755);
  } finally {
    closeSync(fd);
  }
}

/** Open without following a final link; a link that appeared since the lstat is refused as one. */
function openChecked(entry: Entry): number {
  const folder = lstatOrMissing(entry.open)?.isDirectory() ?? false;
  try {
    return openSync(entry.open, folder ? folderFlags : fileFlags);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOTDIR') throw linkError(entry.shown, entry.what);
    throw new UsageError(`${entry.what} ${entry.shown}: cannot be read (${code}): pass a regular file you can read`, 'usage');
  }
}

/** A link, fifo, device or socket: refused, with what it is. */
function refuseKind(shown: string, stats: Stats, what: string): void {
  if (stats.isFile() || stats.isDirectory()) return;
  if (stats.isSymbolicLink()) throw linkError(shown, what);
  const kind = stats.isFIFO() ? 'a fifo' : stats.isSocket() ? 'a socket' : 'a device';
  throw new UsageError(`${what} ${shown}: ${kind}, not a regular file: pass a regular file`, 'not-regular');
}

function linkError(shown: string, what: string): UsageError {
  return new UsageError(`${what} ${shown}: a symbolic link, never followed: pass the file itself (copy it in place of the link)`, 'link');
}

function changed(shown: string, what: string): UsageError {
  return new UsageError(`${what} ${shown}: moved or replaced while it was copied: pass a path nothing else changes`, 'changed');
}

/** lstat, or undefined when nothing is there (a parent that is not a folder counts as nothing). */
function lstatOrMissing(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}
