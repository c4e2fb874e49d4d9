/** Errors of a benchmark that cannot be evaluated: its harness failed, or its protected files differ from arbor.lock. */
import {ArborError, ExitCode} from '../errors.js';

/** The harness could not produce a score: defined with the other typed errors (lib/errors.ts), below the sandbox that throws it too. */
export {HarnessError} from '../errors.js';

/**
 * A benchmark's protected files (plan, bundle, reference, eval entrypoints, data) differ from its
 * arbor.lock (exit 3). Every command that evaluates refuses it the same way, before anything runs:
 * no score line, nothing recorded. For an agent it means a protected file was changed (restore
 * it); for the benchmark's author, a change on purpose that needs `arbor benchmark lock`.
 */
export class StaleLockError extends ArborError {
  /** The benchmark as named, and every difference in one line (`plan.toml, bundle/oracle.mjs changed; data/x added`: lockDifference). */
  readonly shown: string;
  readonly difference: string;

  constructor(shown: string, difference: string) {
    super(
      `${shown}: its protected files differ from arbor.lock (${difference}), so nothing was evaluated: restore them (e.g. with git checkout), or if the change is on purpose run 'arbor benchmark lock ${shown}'`,
      'stale-lock',
      ExitCode.staleLock,
    );
    this.shown = shown;
    this.difference = difference;
  }
}
