/** Errors of the eval pipeline. */
import {ArborError, ExitCode} from '../errors.js';

/**
 * The harness itself could not produce a score (exit 1, no score line): a broken
 * plan.toml, a missing python3 or numpy, a bundle or reference solver that fails.
 * A failing *solution* is never a HarnessError: it scores 0.0.
 */
export class HarnessError extends ArborError {
  constructor(message: string, code = 'harness', options?: {cause?: unknown}) {
    super(message, code, ExitCode.findings, options);
  }
}
