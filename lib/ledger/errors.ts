/** The ledger's typed errors: an eval turns them into a stderr warning, `runs` into one line and exit 1. */
import {ArborError, ExitCode} from '../errors.js';

/**
 * Why the ledger could not be used. Stable codes:
 * `ledger-corrupt` (not a SQLite database, or a damaged one), `ledger-foreign`
 * (a SQLite database arbor did not create), `ledger-newer` (written by a newer
 * arbor), `ledger-unwritable` (cannot create, open or write the file),
 * `ledger-busy` (locked past the busy timeout), `ledger-invalid` (a record the
 * caller built wrongly).
 */
export type LedgerErrorCode = 'ledger-corrupt' | 'ledger-foreign' | 'ledger-newer' | 'ledger-unwritable' | 'ledger-busy' | 'ledger-invalid';

/** A ledger that cannot be read or written; `file` is the database path. */
export class LedgerError extends ArborError {
  declare readonly code: LedgerErrorCode;
  readonly file: string;

  constructor(message: string, code: LedgerErrorCode, file: string, options?: {cause?: unknown}) {
    super(message, code, ExitCode.findings, options);
    this.file = file;
  }
}

/** Whether a value is a LedgerError. */
export function isLedgerError(value: unknown): value is LedgerError {
  return value instanceof LedgerError;
}

/** Map an exception from better-sqlite3 (or the file system) to a LedgerError naming the file. */
export function ledgerFailure(error: unknown, file: string, doing: string): LedgerError {
  if (error instanceof LedgerError) return error;
  const code = String((error as {code?: unknown})?.code ?? '');
  const reason = error instanceof Error ? error.message : String(error);
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return new LedgerError(`run ledger ${file} is corrupt (${reason}) while ${doing}: move it aside to start a new one`, 'ledger-corrupt', file, {
      cause: error,
    });
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new LedgerError(`run ledger ${file} stayed locked by another process while ${doing} (${reason})`, 'ledger-busy', file, {cause: error});
  }
  return new LedgerError(`run ledger ${file} cannot be used while ${doing}: ${reason}`, 'ledger-unwritable', file, {cause: error});
}
