/**
 * The harness's end of a run's channels: the runner's socket, read as header
 * lines each followed by a payload (FrameReader), and whole streams such as
 * valgrind's log (collect). Nothing here knows what a case is; run-serve.ts
 * gives each header its meaning.
 */
import type {Duplex} from 'node:stream';

/** A header line longer than this is a protocol violation (the runner's are under 1 KiB). */
const maxHeaderBytes = 1 << 16;

/** One message from the runner: its header line (parsed) and the payload bytes that follow it. */
export interface Frame {
  header: Record<string, unknown>;
  payload: Buffer;
}

/**
 * The harness's end of the runner's socket: header lines, each followed by a
 * payload whose size the caller derives from the header. Anything malformed
 * ends the run (a protocol violation is the solution's failure).
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private waiting?: {size: (header: Record<string, unknown>) => number; keep: boolean; resolve: (frame: Frame) => void; reject: (error: Error) => void};
  private header?: Record<string, unknown>;
  private need = 0;
  private closed?: Error;
  /** When the last byte of the last complete frame arrived. */
  lastAt = 0n;

  constructor(socket: Duplex) {
    socket.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
      this.pump();
    });
    const end = () => this.fail(new Error('the runner closed its channel'));
    socket.on('end', end);
    socket.on('close', end);
    socket.on('error', end);
  }

  /** Bytes received that no frame asked for yet: a runner sends nothing unasked. */
  get pending(): number {
    return this.buffered;
  }

  /**
   * The next frame; `size` gives its payload size from its header, or -1 when
   * the header is not acceptable. With `keep` false the payload is consumed
   * but not kept (an empty buffer): the answers of warm-up and null cases are
   * never read, and copying megabytes of them per call was the harness's
   * largest CPU cost in an eval of large cases.
   */
  next(size: (header: Record<string, unknown>) => number, keep = true): Promise<Frame> {
    return new Promise((resolve, reject) => {
      this.waiting = {size, keep, resolve, reject};
      this.pump();
    });
  }

  /** End the channel: a frame not complete by now never will be. */
  fail(error: Error): void {
    this.closed ??= error;
    this.pump();
  }

  /**
   * The next `size` bytes, in a buffer of their own: copied once, whether they
   * lie in one chunk or span many (an answer of megabytes arrives in 64 KiB
   * chunks, and joining every chunk buffered, then copying the frame out again,
   * cost an eval a tenth of a second per 100 MB). What follows stays queued.
   */
  private take(size: number, keep = true): Buffer {
    const parts: Buffer[] = [];
    for (let got = 0; got < size; ) {
      const chunk = this.chunks[0]!;
      const want = size - got;
      if (chunk.length <= want) {
        parts.push(chunk);
        this.chunks.shift();
        got += chunk.length;
      } else {
        parts.push(chunk.subarray(0, want));
        this.chunks[0] = chunk.subarray(want);
        got = size;
      }
    }
    this.buffered -= size;
    // Buffer.concat copies even a single part, so no frame keeps a chunk (and the bytes after it) alive.
    return keep ? Buffer.concat(parts, size) : Buffer.alloc(0);
  }

  private settle(result: {frame: Frame} | {error: Error}): void {
    const waiting = this.waiting!;
    this.waiting = undefined;
    this.header = undefined;
    if ('frame' in result) waiting.resolve(result.frame);
    else waiting.reject(result.error);
  }

  private pump(): void {
    if (!this.waiting) return;
    if (this.header === undefined) {
      const newline = this.newline();
      if (newline < 0) {
        if (this.buffered > maxHeaderBytes) return this.violate('a header line longer than 64 KiB');
        if (this.closed) this.settle({error: this.closed});
        return;
      }
      const line = this.take(newline + 1)
        .subarray(0, newline)
        .toString('utf8');
      let header: unknown;
      try {
        header = JSON.parse(line);
      } catch {
        return this.violate('a header line that is not JSON');
      }
      if (!header || typeof header !== 'object' || Array.isArray(header)) return this.violate('a header that is not a JSON object');
      const size = this.waiting.size(header as Record<string, unknown>);
      if (!(size >= 0)) return this.violate(`an unexpected message ${line.slice(0, 120)}`);
      this.header = header as Record<string, unknown>;
      this.need = size;
    }
    if (this.buffered >= this.need) {
      // The last byte is here: the time is taken before the copy, which is the harness's work, not the run's.
      this.lastAt = process.hrtime.bigint();
      const payload = this.take(this.need, this.waiting.keep);
      this.settle({frame: {header: this.header!, payload}});
    } else if (this.closed) {
      this.settle({error: this.closed});
    }
  }

  private newline(): number {
    let offset = 0;
    for (const chunk of this.chunks) {
      const at = chunk.indexOf(10);
      if (at >= 0) return offset + at;
      offset += chunk.length;
    }
    return -1;
  }

  private violate(what: string): void {
    this.closed = new Error(`the runner's channel carried ${what}`);
    this.chunks = [];
    this.buffered = 0;
    this.settle({error: this.closed});
  }
}

/** Everything a stream carries until it ends, or undefined past `limit` bytes. */
export function collect(stream: Duplex, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  return new Promise((resolve) => {
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    const done = () => resolve(size <= limit ? Buffer.concat(chunks).toString('utf8') : undefined);
    stream.on('end', done);
    stream.on('close', done);
    stream.on('error', done);
  });
}
