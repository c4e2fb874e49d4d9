/**
 * The list cache: verify results keyed by a stat signature of every file a
 * result depends on (size, mtime, ctime, inode, mode). It lives outside the
 * benchmark folders, is written atomically, and an entry is never trusted when
 * any of those files changed. Entries whose files changed within the last
 * `racyMs` before they were read are not stored (the file system clock is coarse).
 */
import {createHash} from 'node:crypto';
import {mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Bump when the shape or meaning of cached results changes. */
const cacheFormat = 5;
/** Files touched this recently before being read are not cached. */
export const racyMs = 100;

/** The cache folder: $ARBOR_CACHE_DIR, else $XDG_CACHE_HOME/arbor, else ~/.cache/arbor. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ARBOR_CACHE_DIR) return env.ARBOR_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return path.join(env.XDG_CACHE_HOME, 'arbor');
  return path.join(os.homedir(), '.cache', 'arbor');
}

/** A cached value with the signature it was computed under. */
export interface CacheEntry<T> {
  /** `folderKey` of the folder when its listing was taken. */
  dir: string;
  /** The top-level text files the folder had then. */
  files: string[];
  /** `signature` of every file the value depends on. */
  sig: string;
  value: T;
}

/** The stat key of a folder: changes when entries are added, removed or renamed in it. */
export function folderKey(root: string): {key: string; newest: number} | undefined {
  try {
    const s = statSync(root);
    const key = `${s.ino.toString(36)}:${s.mode.toString(36)}:${s.uid}:${s.mtimeMs.toString(36)}:${s.ctimeMs.toString(36)}`;
    return {key, newest: Math.max(s.mtimeMs, s.ctimeMs)};
  } catch {
    return undefined;
  }
}

/** A signature for `files` under `root`, and the newest change time among them. */
export function signature(root: string, files: readonly string[]): {sig: string; newest: number} {
  let sig = '';
  let newest = 0;
  // Names are left out: the file list is fixed apart from the top-level text
  // files, which the cache entry stores and compares separately.
  // A file in a subfolder (`bundle/x`) is looked at only when the subfolder
  // exists: otherwise it gets the signature of a missing file, as its stat would give.
  let folders: Map<string, boolean> | undefined;
  for (const name of files) {
    const slash = name.indexOf('/');
    if (slash !== -1) {
      folders ??= new Map();
      const folder = name.slice(0, slash);
      let present = folders.get(folder);
      if (present === undefined) {
        try {
          // Absent: every file under it is missing too. Anything else (a folder, or a file,
          // which makes the files' stats fail with ENOTDIR): stat the files themselves.
          present = statSync(path.join(root, folder), {throwIfNoEntry: false}) !== undefined;
        } catch {
          present = true; // let the file's own stat say what is wrong
        }
        folders.set(folder, present);
      }
      if (!present) {
        sig += '-|';
        continue;
      }
    }
    try {
      const s = statSync(path.join(root, name), {throwIfNoEntry: false});
      if (!s) sig += '-|';
      else {
        const ctime = s.ctimeMs === s.mtimeMs ? '' : s.ctimeMs.toString(36);
        sig += `${s.size.toString(36)}:${s.mtimeMs.toString(36)}:${ctime}:${s.ino.toString(36)}:${s.mode.toString(36)}|`;
        if (s.mtimeMs > newest) newest = s.mtimeMs;
        if (s.ctimeMs > newest) newest = s.ctimeMs;
      }
    } catch (error) {
      sig += `!${(error as NodeJS.ErrnoException).code}|`;
    }
  }
  return {sig, newest};
}

/** A JSON cache file for one zoo; load, look up, update, save atomically. */
export class ResultCache<T> {
  readonly file: string;
  private entries: Record<string, CacheEntry<T>> = {};
  /** Names looked up or stored since loading: the folders the zoo still has. */
  private readonly seen = new Set<string>();
  private dirty = false;

  constructor(dir: string, key: string) {
    const hash = createHash('sha256').update(`${cacheFormat}\0${key}`).digest('hex').slice(0, 32);
    this.file = path.join(dir, `list-${hash}.json`);
  }

  /** Read the cache file; a missing or corrupt file is an empty cache. */
  load(): this {
    try {
      const data = JSON.parse(readFileSync(this.file, 'utf8')) as {format?: number; entries?: Record<string, CacheEntry<T>>};
      if (data.format === cacheFormat && data.entries && typeof data.entries === 'object') this.entries = data.entries;
    } catch {
      this.entries = {};
    }
    return this;
  }

  /** The cached entry for `name` (check its `dir` and `sig` before trusting it). */
  entry(name: string): CacheEntry<T> | undefined {
    this.seen.add(name);
    return Object.hasOwn(this.entries, name) ? this.entries[name] : undefined;
  }

  /** Store a value; `newest` is the newest file time it depends on, `readAt` when it was read. */
  set(name: string, entry: Omit<CacheEntry<T>, 'value'>, value: T, newest: number, readAt: number): void {
    if (newest > readAt - racyMs) {
      if (name in this.entries) {
        delete this.entries[name];
        this.dirty = true;
      }
      return;
    }
    this.entries[name] = {...entry, value};
    this.dirty = true;
  }

  /** Forget entries whose names were not looked up since loading (folders removed from the zoo). */
  pruneUnseen(): void {
    for (const name of Object.keys(this.entries))
      if (!this.seen.has(name)) {
        delete this.entries[name];
        this.dirty = true;
      }
  }

  /** Write the cache atomically (temp file + rename); failures only cost speed. */
  save(): boolean {
    if (!this.dirty) return true;
    const temp = `${this.file}.${process.pid}.${Date.now()}.tmp`;
    try {
      mkdirSync(path.dirname(this.file), {recursive: true});
      writeFileSync(temp, JSON.stringify({format: cacheFormat, entries: this.entries}));
      renameSync(temp, this.file);
      this.dirty = false;
      return true;
    } catch {
      rmSync(temp, {force: true});
      return false;
    }
  }
}
