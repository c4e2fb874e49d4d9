/**
 * Lines for stdout and stderr, written without creating `process.stdout` or `process.stderr`.
 *
 * Creating either stream loads Node's stream modules: about 10 ms, as much as the rest of a small
 * `bundle verify` or `info` takes after Node's own start. A line needs one write(2). On Linux Node
 * writes these streams synchronously to files, pipes and terminals, so the bytes and their order
 * are the same. Should a direct write fail (a full non-blocking pipe, a reader that has gone), the
 * rest goes to Node's stream, which handles it as it always has, and so does every later line.
 */
import {writeSync} from 'node:fs';

const throughStream = new Set<number>();

/** Standard output. */
export const stdout = {write: (text: string): void => write(1, text)};

/** Standard error; `isTTY` (asked only when needed) is process.stderr's. */
export const stderr = {
  write: (text: string): void => write(2, text),
  get isTTY(): boolean {
    return process.stderr.isTTY;
  },
};

function write(fd: 1 | 2, text: string): void {
  const stream = () => (fd === 1 ? process.stdout : process.stderr);
  if (throughStream.has(fd)) {
    stream().write(text);
    return;
  }
  const bytes = Buffer.from(text, 'utf8');
  let done = 0;
  try {
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
  } catch {
    throughStream.add(fd);
    stream().write(bytes.subarray(done));
  }
}
