/**
 * Reading benchmark files as text: UTF-8 (a BOM and CRLF are fine), with every
 * failure turned into data a rule can report instead of an exception.
 */
import {closeSync, constants, fstatSync, openSync, readFileSync, readSync, type Stats, statSync} from 'node:fs';

/** What happened when a file of a benchmark folder was loaded. */
export type LoadedFile =
  | {status: 'ok'; text: string; size: number}
  | {status: 'missing'}
  | {status: 'not-file'; kind: string}
  | {status: 'unreadable'; reason: string}
  | {status: 'not-utf8'; line: number; column: number; offset: number};

const decoder = new TextDecoder('utf-8', {fatal: true, ignoreBOM: false});

/** Describe a stat error code in words a user understands. */
export function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ELOOP':
      return 'symlink loop';
    case 'ENOENT':
      return 'does not exist';
    case 'ENOTDIR':
      return 'a path component is not a folder';
    case 'EISDIR':
      return 'is a folder';
    case 'EIO':
      return 'input/output error';
    default:
      return code ?? (error instanceof Error ? error.message : String(error));
  }
}

/** Describe the kind of a non-regular file system entry. */
export function kindOf(stats: {isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean}): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a named pipe';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

const openFlags = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** A file's bytes and the stat they were read under, or why they could not be read. */
export type RawFile = {status: 'ok'; bytes: Uint8Array; stats: Stats} | Extract<LoadedFile, {status: 'missing' | 'not-file' | 'unreadable'}>;

/**
 * `file`'s bytes without throwing, with the stat of the open descriptor (the state the bytes were
 * read in). Fast path: one open (non-blocking, so a named pipe cannot hang it), fstat and read on
 * the descriptor; any open failure other than "does not exist" takes the stat-then-read path,
 * which words the problem. `keep`: the bytes outlive the next read (else they may be a view of a
 * buffer every read reuses).
 */
export function readRaw(file: string, keep: boolean): RawFile {
  let fd: number | undefined;
  try {
    fd = openSync(file, openFlags);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {status: 'missing'};
  }
  if (fd !== undefined) {
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile()) return {status: 'not-file', kind: kindOf(stats)};
      const bytes = readBytes(fd, stats.size);
      return {status: 'ok', bytes: keep && bytes.buffer === scratch.buffer ? bytes.slice() : bytes, stats};
    } catch {
      // fall back to the path below, which names the failure
    } finally {
      closeSync(fd);
    }
  }
  return readRawSlow(file);
}

/** Reused for files up to 64 KiB: the decoder copies the text out, so one buffer serves every read. */
const scratch = new Uint8Array(1 << 16);

/** The `size` bytes of an open file (fewer if it shrank): one read, without readFileSync's second fstat. */
function readBytes(fd: number, size: number): Uint8Array {
  const buffer = size <= scratch.length ? scratch : new Uint8Array(size);
  let done = 0;
  while (done < size) {
    const n = readSync(fd, buffer, done, size - done, null);
    if (n === 0) break;
    done += n;
  }
  return buffer.subarray(0, done);
}

function readRawSlow(file: string): RawFile {
  let stats;
  try {
    stats = statSync(file, {throwIfNoEntry: false});
  } catch (error) {
    return {status: 'unreadable', reason: describeFsError(error)};
  }
  if (!stats) return {status: 'missing'};
  if (!stats.isFile()) return {status: 'not-file', kind: kindOf(stats)};
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    return {status: 'unreadable', reason: describeFsError(error)};
  }
  return {status: 'ok', bytes, stats};
}

/** Decode UTF-8 bytes strictly; on failure say where the first bad byte is. */
export function decodeUtf8(bytes: Uint8Array): LoadedFile {
  try {
    return {status: 'ok', text: decoder.decode(bytes), size: bytes.length};
  } catch {
    const offset = firstInvalidUtf8(bytes);
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < offset; i++) {
      if (bytes[i] === 0x0a) {
        line++;
        lineStart = i + 1;
      }
    }
    return {status: 'not-utf8', line, column: offset - lineStart + 1, offset};
  }
}

/** Byte offset of the first byte that is not part of a valid UTF-8 sequence. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    let need = 0;
    let min = 0;
    if (b < 0x80) {
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else return i;
    let cp = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return bytes.length;
}

/** 1-based line and column of a character offset in `text`. */
export function pointAt(text: string, offset: number): {line: number; column: number; offset: number} {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return {line, column: offset - lineStart + 1, offset};
}
