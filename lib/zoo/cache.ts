/**
 * The list cache: verify results keyed by a stat signature of every file a
 * result depends on (size, mtime, ctime, inode, mode). It lives outside the
 * benchmark folders, is written atomically, and an entry is never trusted when
 * any of those files changed. Entries whose files changed within the last
 * `racyMs` before they were read are not stored (the file system clock is coarse).
 */
import {createHash} from 'node:crypto';
import {closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Bump when the shape or meaning of cached results changes. */
const cacheFormat = 6;
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
  return {sig: hash53(sig), newest};
}

/** A 53-bit hash of a string (cyrb53) in base 36: the cache stores signatures this short. */
export function hash53(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/**
 * A cache file for one zoo; load, look up, update, save atomically. One line per folder,
 * `<name as JSON> TAB <[dir, files, sig, value] as JSON>`, after a header line: lines are
 * parsed only when looked up, so a cache of 100,000 folders costs its text and a map.
 */
export class ResultCache<T> {
  readonly file: string;
  /** The JSON of each entry by folder name, as read or as stored since. */
  private lines = new Map<string, string>();
  /** Names looked up or stored since loading: the folders the zoo still has. */
  private readonly seen = new Set<string>();
  private dirty = false;

  constructor(dir: string, key: string) {
    const hash = createHash('sha256').update(`${cacheFormat}\0${key}`).digest('hex').slice(0, 32);
    this.file = path.join(dir, `list-${hash}.jsonl`);
  }

  /** Read the cache file; a missing or corrupt file is an empty cache. */
  load(): this {
    this.lines = new Map();
    let text: string;
    try {
      text = readFileSync(this.file, 'latin1');
    } catch {
      return this;
    }
    // Read as latin1 (one byte per character, no decoding): the JSON is ASCII, escapes included.
    const header = `{"format":${cacheFormat}}\n`;
    if (!text.startsWith(header)) return this;
    for (let at = header.length; at < text.length; ) {
      let end = text.indexOf('\n', at);
      if (end === -1) end = text.length;
      const tab = text.indexOf('"\t', at);
      if (tab === -1 || tab >= end) {
        this.lines.clear();
        return this;
      }
      const quoted = text.slice(at, tab + 1);
      try {
        this.lines.set(quoted.includes('\\') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1), text.slice(tab + 2, end));
      } catch {
        this.lines.clear();
        return this;
      }
      at = end + 1;
    }
    return this;
  }

  /** The cached entry for `name` (check its `dir` and `sig` before trusting it). */
  entry(name: string): CacheEntry<T> | undefined {
    this.seen.add(name);
    const line = this.lines.get(name);
    if (line === undefined) return undefined;
    try {
      const [dir, files, sig, value] = JSON.parse(line) as [string, string[], string, T];
      return {dir, files, sig, value};
    } catch {
      return undefined;
    }
  }

  /** Store a value; `newest` is the newest file time it depends on, `readAt` when it was read. */
  set(name: string, entry: Omit<CacheEntry<T>, 'value'>, value: T, newest: number, readAt: number): void {
    this.seen.add(name);
    if (newest > readAt - racyMs) {
      if (this.lines.delete(name)) this.dirty = true;
      return;
    }
    this.lines.set(name, asciiJson([entry.dir, entry.files, entry.sig, value]));
    this.dirty = true;
  }

  /** Forget entries whose names were not looked up since loading (folders removed from the zoo). */
  pruneUnseen(): void {
    for (const name of this.lines.keys())
      if (!this.seen.has(name)) {
        this.lines.delete(name);
        this.dirty = true;
      }
  }

  /** Write the cache atomically (temp file + rename), in chunks; failures only cost speed. */
  save(): boolean {
    if (!this.dirty) return true;
    const temp = `${this.file}.${process.pid}.${Date.now()}.tmp`;
    let fd: number | undefined;
    try {
      mkdirSync(path.dirname(this.file), {recursive: true});
      fd = openSync(temp, 'w');
      let chunk = `{"format":${cacheFormat}}\n`;
      for (const [name, line] of this.lines) {
        chunk += `${asciiJson(name)}\t${line}\n`;
        if (chunk.length >= 1 << 20) {
          writeSync(fd, chunk, null, 'latin1');
          chunk = '';
        }
      }
      writeSync(fd, chunk, null, 'latin1');
      closeSync(fd);
      fd = undefined;
      renameSync(temp, this.file);
      this.dirty = false;
      return true;
    } catch {
      if (fd !== undefined) closeSync(fd);
      rmSync(temp, {force: true});
      return false;
    }
  }
}

/** JSON with every character above U+007E escaped: ASCII text, one byte per character on disk. */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
