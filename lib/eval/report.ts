/** Presenting an eval: the progress display and the `--json` report file. */
import {accessSync, constants, statSync} from 'node:fs';
import {rename, rm, writeFile} from 'node:fs/promises';
import path from 'node:path';
import {UsageError} from '../errors.js';
import {HarnessError} from './errors.js';
import type {EvalReport} from './types.js';

/** Check before an eval runs that `--json-file FILE` can be written, so a finished eval is never lost to a bad path. */
export function checkReportPath(file: string): void {
  const folder = path.dirname(path.resolve(file));
  const stats = statSync(folder, {throwIfNoEntry: false});
  if (!stats?.isDirectory()) {
    const problem = stats ? 'is not a folder' : 'does not exist';
    throw new UsageError(`--json-file ${file}: \`${path.dirname(file)}\` ${problem}, expected a path in an existing folder`);
  }
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    throw new UsageError(`--json-file ${file}: the folder \`${path.dirname(file)}\` is not writable`);
  }
  const existing = statSync(file, {throwIfNoEntry: false});
  if (existing?.isDirectory()) throw new UsageError(`--json-file ${file}: is a folder, expected a file path`);
  // Renaming over a FIFO, a socket or a device node would replace it: only a regular file is overwritten.
  if (existing && !existing.isFile()) throw new UsageError(`--json-file ${file}: exists and is not a regular file, expected a new path or a regular file`);
}

/** Write a JSON report (an eval's, or a compare's) to `file` atomically: a temporary file renamed over it. */
export async function writeReport(file: string, report: EvalReport | object): Promise<void> {
  const target = path.resolve(file);
  const temp = `${target}.tmp-${process.pid}`;
  try {
    await writeFile(temp, `${JSON.stringify(report, null, 2)}\n`);
    await rename(temp, target);
  } catch (error) {
    await rm(temp, {force: true}).catch(() => {});
    throw new HarnessError(`--json-file ${file}: cannot write the report: ${(error as Error).message}`, 'write-failed');
  }
}

interface Stream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/**
 * Progress on stderr: on a terminal, transient steps overwrite one status
 * line and finished steps scroll above it; otherwise only finished steps are
 * printed, one plain line each.
 */
export function progressPrinter(stream: Stream, quiet = false): {progress: (kind: 'line' | 'status', text: string) => void; done: () => void} {
  const tty = Boolean(stream.isTTY) && !process.env.CI;
  let status = false;
  const clear = () => {
    if (status) stream.write('\r\x1b[K');
    status = false;
  };
  return {
    progress: (kind, text) => {
      if (quiet) return;
      if (kind === 'line') {
        clear();
        stream.write(`${text}\n`);
      } else if (tty) {
        clear();
        const width = Math.max(20, (stream.columns || 80) - 1);
        stream.write(text.length > width ? `${text.slice(0, width - 1)}…` : text);
        status = true;
      }
    },
    done: clear,
  };
}
