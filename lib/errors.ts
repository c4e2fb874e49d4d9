/**
 * Typed errors shared by every part of arbor.
 *
 * Library code throws these; `cli/exit.ts` is the one place that turns them
 * into a stderr line and an exit code. The `code` is stable and documented.
 */

/** Exit codes used by every command (see docs/commands.md, "Exit codes"). */
export const ExitCode = {
  /** Success: clean, written, PASS. */
  ok: 0,
  /** A result the user must act on: findings, refused, REVIEW/BLOCK. */
  findings: 1,
  /** Could not run: bad usage, missing input, unreadable file. */
  usage: 2,
  /** A benchmark's protected files differ from its arbor.lock: nothing was run or scored. */
  staleLock: 3,
  /** An unexpected exception inside arbor: a bug. */
  internal: 70,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** Base class of every error arbor reports to the user on purpose. */
export class ArborError extends Error {
  /** Stable machine-readable code, e.g. `usage`, `refused`, `not-found`. */
  readonly code: string;
  /** The process exit code this error maps to. */
  readonly exitCode: ExitCodeValue;

  constructor(message: string, code: string, exitCode: ExitCodeValue, options?: {cause?: unknown}) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.exitCode = exitCode;
  }
}

/** Bad arguments or input the command cannot work with (exit 2). */
export class UsageError extends ArborError {
  constructor(message: string, code = 'usage', options?: {cause?: unknown}) {
    super(message, code, ExitCode.usage, options);
  }
}

/** A request that was understood but refused to protect the user's files (exit 1). */
export class RefusedError extends ArborError {
  constructor(message: string, code = 'refused', options?: {cause?: unknown}) {
    super(message, code, ExitCode.findings, options);
  }
}

/** Whether a value is an error arbor raised on purpose. */
export function isArborError(value: unknown): value is ArborError {
  return value instanceof ArborError;
}

/** A thrown value's message, first line only: what a one-line report or a case's note may quote of it. */
export function messageOf(error: unknown): string {
  return String(error instanceof Error ? error.message : error).split('\n', 1)[0] ?? '';
}

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
