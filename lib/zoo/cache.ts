/**
 * The list cache: verify results keyed by a stat signature of every file a
 * result depends on (size, mtime, ctime, inode, mode). It lives outside the
 * benchmark folders, is written atomically, and an entry is never trusted when
 * any of those files changed. Entries whose files changed within the last
 * `racyMs` before they were read are not stored (the file system clock is coarse).
 */
import {createHash} from 'node:crypto';
import {closeSync, mkdirSync, openSync, readSync, renameSync, rmSync, type Stats, statSync, writeSync} from 'node:fs';
import path from 'node:path';

/** Bump when the shape or meaning of cached results changes. */
const cacheFormat = 9;
/** Files touched this recently before being read are not cached. */
const racyMs = 100;

export {cacheDir} from '../files.js';

/** A cached value with the signature it was computed under. */
export interface CacheEntry<T> {
  /** `folderKey` of the folder when its listing was taken. */
  dir: string;
  /** The top-level text files the folder had then. */
  files: string[];
  /** `signature` of `signed`. */
  sig: string;
  /** The files (and folders) whose stats prove the value unchanged (`signedFiles`). */
  signed: string[];
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

/** A file's stat, undefined when it does not exist, or the error code of a stat that failed otherwise. */
export type StatResult = Stats | undefined | string;

/** `stat` that never throws (see `StatResult`). */
export function statOf(file: string): StatResult {
  try {
    return statSync(file, {throwIfNoEntry: false});
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? 'error';
  }
}

/**
 * The files to sign of those a value depends on (relative to `root`, or absolute for a file outside
 * it): each that exists; for each missing one, the nearest folder above it that exists instead,
 * since a folder's mtime changes when an entry is added to it (none for a file whose nearest
 * existing folder is `root`, which `folderKey` signs). A missing file outside the folder is signed
 * itself: the folders above it (the cache folder) change for other reasons.
 */
export function signedFiles(root: string, names: Iterable<string>, stat: (file: string) => StatResult): string[] {
  const signed = new Set<string>();
  for (const name of new Set(names)) {
    const absolute = path.isAbsolute(name);
    if (absolute || stat(`${root}/${name}`) !== undefined) {
      signed.add(name);
      continue;
    }
    for (let folder = path.posix.dirname(name); folder !== '.' && !signed.has(folder); folder = path.posix.dirname(folder)) {
      if (stat(`${root}/${folder}`) !== undefined) {
        signed.add(folder);
        break;
      }
    }
  }
  return [...signed];
}

const float = new Float64Array(1);
const words = new Uint32Array(float.buffer);

/**
 * A signature of the stats of `files` under `root` (size, mtime, ctime, inode and mode of each; its
 * absence or its stat error otherwise), and the newest change time among them.
 */
export function signature(root: string, files: readonly string[], stat: (file: string) => StatResult = statOf): {sig: string; newest: number} {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  const mix = (word: number) => {
    h1 = Math.imul(h1 ^ word, 2654435761);
    h2 = Math.imul(h2 ^ word, 1597334677);
  };
  const number = (value: number) => {
    float[0] = value;
    mix(words[0]!);
    mix(words[1]!);
  };
  let newest = 0;
  for (const name of files) {
    const s = stat(path.isAbsolute(name) ? name : `${root}/${name}`);
    mix(0x2f2f2f2f);
    if (s === undefined) mix(1);
    else if (typeof s === 'string') for (let i = 0; i < s.length; i++) mix(s.charCodeAt(i) + 2);
    else {
      number(s.size);
      number(s.mtimeMs);
      number(s.ctimeMs);
      number(s.ino);
      number(s.mode);
      if (s.mtimeMs > newest) newest = s.mtimeMs;
      if (s.ctimeMs > newest) newest = s.ctimeMs;
    }
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return {sig: (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36), newest};
}

/**
 * A cache file for one zoo; load, look up, update, save atomically. One line per folder,
 * `<name as JSON> TAB <[dir, files, sig, signed, value] as JSON>`, after a header line. Lines are
 * parsed only when looked up, and the new file is written while the zoo is listed (the entries
 * kept and stored, in listing order) and renamed into place at the end when anything changed:
 * a cache of 100,000 folders never has to be in memory whole.
 */
export class ResultCache<T> {
  readonly file: string;
  /** The JSON of each entry read from the file and not looked up yet, by folder name. */
  private lines = new Map<string, string>();
  /** The last entry looked up, kept when the caller says it was a hit. */
  private last: {name: string; line: string} | undefined;
  /** The new file being written. */
  private out: {temp: string; fd: number; chunk: string} | undefined;
  private failed = false;
  private changed = false;

  constructor(dir: string, key: string) {
    const hash = createHash('sha256').update(`${cacheFormat}\0${key}`).digest('hex').slice(0, 32);
    this.file = path.join(dir, `list-${hash}.jsonl`);
  }

  /** Read the cache file; a missing or corrupt file is an empty cache. */
  load(): this {
    this.lines = new Map();
    // Read in 1 MiB pieces as latin1 (the file is ASCII JSON, escapes included): each line becomes
    // its own string, and the file is never in memory whole.
    const header = `{"format":${cacheFormat}}`;
    let fd: number | undefined;
    try {
      fd = openSync(this.file, 'r');
      const buffer = Buffer.allocUnsafe(1 << 20);
      let rest = '';
      let first = true;
      for (;;) {
        const n = readSync(fd, buffer, 0, buffer.length, null);
        const text = rest + buffer.toString('latin1', 0, n);
        const lines = text.split('\n');
        rest = n === 0 ? '' : lines.pop()!;
        for (const line of lines) {
          if (first) {
            if (line !== header) throw new Error('another format');
            first = false;
          } else if (line !== '') this.addLine(line);
        }
        if (n === 0) break;
      }
    } catch {
      this.lines.clear();
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    return this;
  }

  /** One line of the file: `<name as JSON> TAB <entry as JSON>` (a raw tab cannot occur inside JSON). */
  private addLine(line: string): void {
    const tab = line.indexOf('"\t');
    if (tab === -1) throw new Error('not a cache line');
    const quoted = line.slice(0, tab + 1);
    this.lines.set(quoted.includes('\\') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1), line.slice(tab + 2));
  }

  /** The cached entry for `name` (check its `dir` and `sig` before trusting it; then `keep` it or `set` a new one). */
  entry(name: string): CacheEntry<T> | undefined {
    const line = this.lines.get(name);
    if (line === undefined) return undefined;
    this.lines.delete(name);
    this.last = {name, line};
    try {
      const [dir, files, sig, signed, value] = JSON.parse(line) as [string, string[], string, string[], T];
      return {dir, files, sig, signed, value};
    } catch {
      return undefined;
    }
  }

  /** Keep the entry just looked up for `name` (it was still valid). */
  keep(name: string): void {
    if (this.last?.name === name) this.append(name, this.last.line);
    this.last = undefined;
  }

  /** Store a value; `newest` is the newest file time it depends on, `readAt` when it was read. */
  set(name: string, entry: Omit<CacheEntry<T>, 'value'>, value: T, newest: number, readAt: number): void {
    this.changed = true;
    if (newest > readAt - racyMs) return; // files this fresh may change again within the clock's resolution
    this.append(name, asciiJson([entry.dir, entry.files, entry.sig, entry.signed, value]));
  }

  /**
   * Finish the new file: entries never looked up (folders removed from the zoo) are left out.
   * Renamed into place when anything changed, else dropped; failures only cost speed.
   */
  save(): boolean {
    if (this.lines.size > 0) this.changed = true;
    this.lines = new Map();
    if (!this.changed) {
      this.discard();
      return true;
    }
    if (!this.out) this.open();
    const out = this.out;
    if (!out || this.failed) {
      this.discard();
      return false;
    }
    try {
      writeSync(out.fd, out.chunk, null, 'latin1');
      closeSync(out.fd);
      out.fd = -1;
      renameSync(out.temp, this.file);
      this.out = undefined;
      return true;
    } catch {
      this.discard();
      return false;
    }
  }

  private open(): void {
    const temp = `${this.file}.${process.pid}.${Date.now()}.tmp`;
    try {
      mkdirSync(path.dirname(this.file), {recursive: true});
      this.out = {temp, fd: openSync(temp, 'w'), chunk: `{"format":${cacheFormat}}\n`};
    } catch {
      this.failed = true;
    }
  }

  private append(name: string, line: string): void {
    if (!this.out && !this.failed) this.open();
    const out = this.out;
    if (!out || this.failed) return;
    out.chunk += `${asciiJson(name)}\t${line}\n`;
    if (out.chunk.length < 1 << 20) return;
    try {
      writeSync(out.fd, out.chunk, null, 'latin1');
      out.chunk = '';
    } catch {
      this.failed = true;
    }
  }

  private discard(): void {
    if (!this.out) return;
    try {
      if (this.out.fd >= 0) closeSync(this.out.fd);
    } catch {
      // already closed
    }
    rmSync(this.out.temp, {force: true});
    this.out = undefined;
  }
}

/** JSON with every character above U+007E escaped: ASCII text, one byte per character on disk. */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
