/**
 * One verify's view of a benchmark folder: each file read once, its bytes shared by lint (as
 * text), the lock's hashes and the determinism key; each folder inside listed once, the kinds of
 * its entries standing in for an lstat of each; and the stat of every file read (fstat of the
 * descriptor the bytes came through) kept for list's cache signature.
 */
import {hash as sha256} from 'node:crypto';
import {readdirSync, readFileSync, readlinkSync, type Stats, statSync} from 'node:fs';
import path from 'node:path';
import {parse as parseToml} from 'smol-toml';
import {type EntryKind, fileSystem, type TreeSource} from '../benchmark/lock.js';
import {decodeUtf8, type LoadedFile, type RawFile, readRaw} from './text.js';

/** What a folder's listing says of its entries; null when the folder is missing (or not a folder). */
type Listing = Map<string, EntryKind> | null;

export class FolderReader implements TreeSource {
  private readonly raws = new Map<string, RawFile>();
  private readonly texts = new Map<string, LoadedFile>();
  private readonly listings = new Map<string, Listing | 'unlisted'>();
  private readonly hashes = new Map<string, string>();
  /** The stat each file was read under, by absolute path. */
  readonly stats = new Map<string, Stats>();

  /**
   * `root`: the benchmark folder; folders at or under it are listed, paths elsewhere are looked at
   * one by one. `outside`: files outside the folder already read (list shares them between folders).
   */
  constructor(
    readonly root: string,
    private readonly outside?: Map<string, RawFile>,
    private readonly tomls?: Map<string, unknown>,
  ) {}

  /**
   * `text` parsed as TOML (smol-toml), throwing what it throws. With a memo (list's run), a text
   * parsed before gives a copy of the value it gave then, when that value is plain data
   * (tables, arrays, strings, numbers, booleans): many entries share a plan or a bundle marker.
   */
  toml(text: string): unknown {
    if (!this.tomls) return parseToml(text);
    if (this.tomls.has(text)) return structuredClone(this.tomls.get(text));
    const value = parseToml(text);
    if (this.tomls.size < 256 && isPlain(value)) this.tomls.set(text, structuredClone(value));
    return value;
  }

  /** The file's bytes (kept: they serve every later read of it) and the stat they were read under. */
  raw(file: string): RawFile {
    let raw = this.raws.get(file);
    if (!raw) {
      const shared = this.outside && !this.inside(path.dirname(file)) ? this.outside : undefined;
      raw = shared?.get(file) ?? readRaw(file, true);
      shared?.set(file, raw);
      this.raws.set(file, raw);
      if (raw.status === 'ok') this.stats.set(file, raw.stats);
    }
    return raw;
  }

  /** The file as UTF-8 text (strict: `not-utf8` says where the first bad byte is). */
  text(file: string): LoadedFile {
    let text = this.texts.get(file);
    if (!text) {
      const raw = this.raw(file);
      text = raw.status === 'ok' ? decodeUtf8(raw.bytes) : raw;
      this.texts.set(file, text);
    }
    return text;
  }

  kind(file: string): EntryKind | undefined {
    const parent = path.dirname(file);
    const listing = this.inside(parent) ? this.listing(parent) : 'unlisted';
    if (listing === 'unlisted') return fileSystem.kind(file);
    return listing?.get(path.basename(file));
  }

  names(dir: string): string[] {
    const listing = this.inside(dir) ? this.listing(dir) : 'unlisted';
    // A missing or unlistable folder: readdirSync throws what it always threw.
    if (listing === 'unlisted' || listing === null) return fileSystem.names(dir);
    return [...listing.keys()].sort();
  }

  sha256(file: string): string {
    let hash = this.hashes.get(file);
    if (hash === undefined) {
      const raw = this.raw(file);
      // Anything but a regular file read whole: read as the plain file system would (and fail as it would).
      const bytes = raw.status === 'ok' ? raw.bytes : readFileSync(file);
      hash = sha256('sha256', Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), 'hex');
      this.hashes.set(file, hash);
    }
    return hash;
  }

  /** The file's bytes as UTF-8 (as `readFileSync(file, 'utf8')`, and throwing what it throws), undefined when it does not exist. */
  utf8(file: string): string | undefined {
    const raw = this.raw(file);
    if (raw.status === 'missing') return undefined;
    if (raw.status !== 'ok') return readFileSync(file, 'utf8');
    return Buffer.from(raw.bytes.buffer, raw.bytes.byteOffset, raw.bytes.byteLength).toString('utf8');
  }

  readlink(file: string): string {
    return readlinkSync(file);
  }

  /** Whether `file` is a regular file, a symlink followed (as `statSync(file).isFile()`). */
  isFile(file: string): boolean {
    if (this.raws.get(file)?.status === 'ok') return true;
    const kind = this.kind(file);
    if (kind !== 'symlink') return kind === 'file';
    try {
      return statSync(file).isFile();
    } catch {
      return false;
    }
  }

  /** Whether `file` is a folder, a symlink followed (as `statSync(file).isDirectory()`). */
  isDir(file: string): boolean {
    const kind = this.kind(file);
    if (kind !== 'symlink') return kind === 'dir';
    try {
      return statSync(file).isDirectory();
    } catch {
      return false;
    }
  }

  /** Whether `file` exists, a symlink followed (as `existsSync`). */
  exists(file: string): boolean {
    const kind = this.kind(file);
    if (kind !== 'symlink') return kind !== undefined;
    try {
      return statSync(file, {throwIfNoEntry: false}) !== undefined;
    } catch {
      return false;
    }
  }

  /**
   * Whether the folder listings show `file` absent, with no call beyond the listings: its folder,
   * at or under the root, was listed without it, or is itself absent from its parent's listing.
   * False when that cannot be told so (a symlink on the way, a folder that could not be listed,
   * a path outside the root): the caller then stats the file.
   */
  listedAbsent(file: string): boolean {
    const parent = path.dirname(file);
    if (!this.inside(parent)) return false;
    const listing = this.listing(parent);
    return listing === null || (listing !== 'unlisted' && !listing.has(path.basename(file)));
  }

  /** The entries of a folder at or under the root and their kinds, undefined when it cannot be listed. */
  entries(dir: string): ReadonlyMap<string, EntryKind> | undefined {
    if (!this.inside(dir)) {
      try {
        return new Map(readdirSync(dir).map((name) => [name, 'other' as const]));
      } catch {
        return undefined;
      }
    }
    const listing = this.listing(dir);
    return listing === null || listing === 'unlisted' ? undefined : listing;
  }

  private inside(dir: string): boolean {
    return dir === this.root || (dir.startsWith(this.root) && dir[this.root.length] === path.sep);
  }

  /** The kinds of a folder's entries, from one listing ('unlisted' when it cannot be listed for another reason than being missing). */
  private listing(dir: string): Listing | 'unlisted' {
    let listing = this.listings.get(dir);
    if (listing === undefined && dir !== this.root) {
      // A folder its parent's listing says is missing (or not a folder) has nothing in it.
      const parent = this.listing(path.dirname(dir));
      const kind = parent === null ? undefined : parent === 'unlisted' ? 'dir' : parent.get(path.basename(dir));
      if (kind !== 'dir' && kind !== 'symlink') listing = null;
    }
    if (listing === undefined) {
      try {
        listing = new Map();
        for (const entry of readdirSync(dir, {withFileTypes: true}))
          listing.set(entry.name, entry.isDirectory() ? 'dir' : entry.isSymbolicLink() ? 'symlink' : entry.isFile() ? 'file' : 'other');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        listing = code === 'ENOENT' || code === 'ENOTDIR' ? null : 'unlisted';
      }
      this.listings.set(dir, listing);
    }
    return listing;
  }
}

/** Whether a TOML value holds only tables, arrays, strings, numbers, bigints and booleans (a copy of it is the same value). */
function isPlain(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return typeof value !== 'function' && typeof value !== 'symbol' && value !== undefined;
  if (Array.isArray(value)) return value.every(isPlain);
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.values(value).every(isPlain);
}

const readers = new WeakMap<object, FolderReader>();

/** Make `reader` the one `readerOf(ctx)` gives (lint does, for each folder it verifies). */
export function bindReader(ctx: object, reader: FolderReader): void {
  readers.set(ctx, reader);
}

/** The reader of the folder a rule context verifies: the files lint read, shared with the runnable rules' hashes. */
export function readerOf(ctx: {readonly root: string}): FolderReader {
  let reader = readers.get(ctx);
  if (!reader) {
    reader = new FolderReader(ctx.root);
    readers.set(ctx, reader);
  }
  return reader;
}
