/**
 * Importing another run ledger into the zoo's, on request only
 * (`arbor benchmark runs --merge FILE`), and the notes about the ledgers left
 * where the zoo's history no longer goes (one per benchmark from an earlier
 * arbor, or the zoo's own before `git init`). Reading a history never merges
 * anything: a ledger file is only a file, and anyone who can write into a zoo
 * entry can write one, so its runs are never taken for this zoo's own. An
 * imported run is marked (`imported_from`) and never counts as a best, a
 * latest or a step (`summarizeRuns`, `findChanges`).
 */
import {existsSync, realpathSync, renameSync, statSync} from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import {UsageError} from '../errors.js';
import {isLedgerError, ledgerFailure} from './errors.js';
import {checkRecord, openLedger, type LedgerRun} from './ledger.js';

/** One ledger imported: the file it was, how many runs it held, where the file now is. */
export interface MergedLedger {
  from: string;
  runs: number;
  keptAs: string;
}

/** The suffix an imported ledger's file gets: kept, never deleted, and no longer found as a ledger. */
const mergedSuffix = '.merged';

/** Options of `importLedger`. */
export interface ImportOptions {
  /** The folder paths in messages are relative to (default the working directory). */
  cwd?: string;
}

/**
 * Append every run of the ledger `source` to `target` marked as imported from
 * `source` (see `Ledger.importRuns`: new ids, oldest first, each run checked
 * as a new record is), then rename `source` to `<source>.merged` (or
 * `.merged.2`, … when that name is taken: an earlier file is never replaced).
 * The import and the rename are one transaction on `target`: the rename comes
 * before the commit and is undone if the commit fails, and a second process
 * importing the same file waits for the write lock, then finds it gone.
 * `source` is read as it is (never migrated); only a write-ahead log beside
 * it is folded into it first, so the renamed file holds every run.
 *
 * Throws UsageError (one line, nothing written) when `source` is missing, a
 * folder, the target itself, a file arbor already renamed (`*.merged`), not
 * an arbor ledger, damaged, written by a newer arbor, or holds a run arbor
 * would not record; LedgerError when `target` cannot be opened or written.
 */
export function importLedger(target: string, source: string, options: ImportOptions = {}): MergedLedger {
  const cwd = options.cwd ?? process.cwd();
  const from = path.resolve(cwd, source);
  const into = path.resolve(cwd, target);
  const shown = (file: string) => displayPath(file, cwd);
  const refuse = (why: string) => new UsageError(`--merge: ${why}`, 'ledger-merge');
  const stats = statSync(from, {throwIfNoEntry: false});
  if (!stats) throw refuse(`there is no file ${shown(from)}: name the run ledger to import (an .arbor/runs.db)`);
  if (!stats.isFile()) throw refuse(`${shown(from)} is not a file: name the run ledger to import (an .arbor/runs.db)`);
  if (sameFile(from, into)) throw refuse(`${shown(from)} is the ledger it would be imported into: name another ledger`);
  if (/\.merged(\.\d+)?$/.test(from)) {
    throw refuse(
      `${shown(from)} is a ledger arbor already merged or imported (it renamed it so): its runs are in the ledger it went into; rename the file first to import it again`,
    );
  }
  // Checked before the target is created or opened for writing: a bad source changes neither file.
  readSource(from, shown, refuse, false);

  let keptAs: string | null = null;
  const ledger = openLedger(into);
  try {
    const runs = ledger.importRuns(
      from,
      () => (existsSync(from) ? readSource(from, shown, refuse, true) : null),
      () => {
        keptAs = freeName(from + mergedSuffix);
        renameSync(from, keptAs);
      },
    );
    if (runs === null) throw refuse(`there is no file ${shown(from)} any more (another process imported it meanwhile?)`);
    return {from, runs, keptAs: keptAs!};
  } catch (error) {
    // The transaction rolled back: put the file back where it was.
    if (keptAs !== null && !existsSync(from) && existsSync(keptAs)) renameSync(keptAs, from);
    throw isLedgerError(error) && error.file === from && sourceCodes.includes(error.code) ? refuse(sourceProblem(error, shown(from))) : error;
  } finally {
    ledger.close();
  }
}

/**
 * The runs of the ledger `file`, read-only (an older schema is read as it is).
 * With `foldLog`, a write-ahead log beside it is checkpointed into it first.
 * A file that is not a ledger arbor can read throws UsageError.
 */
function readSource(file: string, shown: (file: string) => string, refuse: (why: string) => UsageError, foldLog: boolean): LedgerRun[] {
  try {
    openLedger(file, {readonly: true}).close(); // the version, and that it is arbor's, before anything writes to it
    if (foldLog) {
      // The file is about to be renamed: its write-ahead log goes into it (and the -wal and -shm files away), so the renamed file holds every run.
      const Driver = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
      const db = new Driver(file, {fileMustExist: true, timeout: 10_000});
      try {
        db.pragma('wal_checkpoint(TRUNCATE)');
        db.pragma('journal_mode = DELETE');
      } finally {
        db.close();
      }
    }
    const ledger = openLedger(file, {readonly: true});
    try {
      const runs = ledger.listRuns();
      for (const run of runs) checkRecord(run, file);
      return runs;
    } finally {
      ledger.close();
    }
  } catch (error) {
    if (!existsSync(file)) throw refuse(`there is no file ${shown(file)} any more (another process imported it meanwhile?)`);
    const failure = ledgerFailure(error, file, 'reading it to import it');
    if (sourceCodes.includes(failure.code)) throw refuse(sourceProblem(failure, shown(file)));
    throw failure;
  }
}

/** What makes a source unfit to import (bad usage, exit 2); any other failure (locked, unreadable) is the ledger's (exit 1). */
const sourceCodes: readonly string[] = ['ledger-corrupt', 'ledger-foreign', 'ledger-newer', 'ledger-invalid'];

/** Why a source ledger cannot be imported, in a few words. */
function sourceProblem(error: {code: string; message: string}, shown: string): string {
  switch (error.code) {
    case 'ledger-corrupt':
      return `${shown} is not a run ledger (not a SQLite database, or a damaged one)`;
    case 'ledger-foreign':
      return `${shown} is a SQLite database arbor did not create, not a run ledger`;
    case 'ledger-newer':
      return `${shown} was written by a newer arbor (${/schema version \d+/.exec(error.message)?.[0] ?? 'a newer schema'}): upgrade arbor to import it`;
    case 'ledger-invalid':
      return `${shown} holds a run arbor would not record (${error.message.replace(/^invalid run record for .*?: /, '')}): nothing was imported`;
    default:
      return error.message;
  }
}

/** Whether two paths name one file (the same path, or links to one file). */
function sameFile(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    if (realpathSync(a) === realpathSync(b)) return true;
    const [x, y] = [statSync(a), statSync(b)];
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false; // the target does not exist yet
  }
}

/** `name`, else `name.2`, `name.3`, …: the first that does not exist. */
function freeName(name: string): string {
  if (!existsSync(name)) return name;
  for (let k = 2; ; k++) if (!existsSync(`${name}.${k}`)) return `${name}.${k}`;
}

/** A path for a one-line message: relative to `cwd` when inside it; quoted when it holds characters a shell or a line would not keep. */
export function displayPath(file: string, cwd = process.cwd()): string {
  const relative = path.relative(cwd, file);
  const shown = relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
  if (/^[\w@%+=:,./-]+$/.test(shown)) return shown;
  // A control character (a newline in a folder name) must not start a line of its own: JSON escapes it.
  if (/[\u0000-\u001f\u007f]/.test(shown)) return JSON.stringify(shown);
  return `'${shown.replaceAll("'", `'\\''`)}'`;
}

/** The stderr line for an import done. */
export function mergedNote(merged: MergedLedger, target: string, cwd = process.cwd()): string {
  const shown = (file: string) => displayPath(file, cwd);
  return (
    `note: imported ${merged.runs} run(s) from ${shown(merged.from)} into ${shown(target)}, marked as imported ` +
    `(listed, never a best or latest; their test runs are not this zoo's results); the file is kept as ${shown(merged.keptAs)}`
  );
}

/**
 * One stderr line per ledger found where this history no longer goes
 * (`strayLedgers`): not read, and how to import it.
 */
export function strayNotes(strays: readonly string[], target: string, cwd = process.cwd()): string[] {
  return strays.map(
    (stray) =>
      `note: ${displayPath(stray, cwd)} is another run ledger, not read into ${displayPath(target, cwd)} (its runs are not shown); ` +
      `to import them, marked as imported: arbor benchmark runs --merge ${displayPath(stray, cwd)}`,
  );
}
