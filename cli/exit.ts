/**
 * The one place that maps outcomes to exit codes and error lines.
 *
 * Handlers return normally and set `process.exitCode`, or throw; this module
 * never calls `process.exit()` so buffered stdout is always flushed.
 */
import {ExitCode, isArborError} from '../lib/errors.js';

/** Print a thrown value as one line on stderr and set the matching exit code. */
export function reportFailure(error: unknown): void {
  if (isArborError(error)) {
    process.stderr.write(`arbor: ${error.message}\n`);
    process.exitCode = error.exitCode;
    return;
  }
  if (isYargsValidation(error)) {
    process.stderr.write(`arbor: ${firstLine(error.message)} (run with --help for usage)\n`);
    process.exitCode = ExitCode.usage;
    return;
  }
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`arbor: internal error (this is a bug, please report it): ${firstLine(stack)}\n${stack}\n`);
  process.exitCode = ExitCode.internal;
}

/** Set the exit code for a finished command without overriding a worse one. */
export function setExitCode(code: number): void {
  if ((process.exitCode ?? 0) === 0 || Number(process.exitCode) < code) process.exitCode = code;
}

function isYargsValidation(error: unknown): error is Error {
  return error instanceof Error && error.name === 'YError';
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? '';
}
