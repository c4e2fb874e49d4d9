/** The error a broken bundle raises: bad marker, an authored function that throws or returns a bad tensor. */
import {ArborError, ExitCode} from '../errors.js';

/** The bundle itself cannot run or produced something the signature forbids (exit 1). */
export class BundleError extends ArborError {
  constructor(message: string, code = 'bundle', options?: {cause?: unknown}) {
    super(message, code, ExitCode.findings, options);
  }
}

/** `Type: message` of a thrown value, the form verdicts and error lines use. */
export function describeThrown(error: unknown): string {
  if (error instanceof Error) return `${error.name || error.constructor?.name || 'Error'}: ${error.message}`;
  return `Error: ${String(error)}`;
}
