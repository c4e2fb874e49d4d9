/**
 * Bring ledgers left where a zoo's history no longer goes (one per benchmark,
 * from an earlier arbor, or the zoo's own before `git init`) into the zoo's
 * ledger, so no recorded run disappears from `runs` and the report.
 */
import {existsSync, renameSync} from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import {ledgerFailure} from './errors.js';
import {openLedger} from './ledger.js';

/** One ledger merged: where it was, how many runs it held, where the file now is; or why it was left alone. */
export interface MergedLedger {
  from: string;
  runs: number;
  keptAs: string;
  /** Set when the ledger could not be merged (it is left as it was, and the history is read without it). */
  problem?: string;
}

/** The suffix a merged ledger's file gets: kept, never deleted, and no longer found as a ledger. */
export const mergedSuffix = '.merged';

/**
 * Append every run of each `stray` ledger to `target` (oldest first, with new
 * ids; a compare's `baseline_run` follows its run to the new id) and rename
 * the stray to `runs.db.merged`. Each stray goes in one transaction on the
 * target, and is renamed before that transaction commits: a second process
 * merging at the same time waits for the target's write lock, then finds the
 * stray gone, so no run is merged twice. A stray that cannot be merged
 * (corrupt, not arbor's, newer) is left as it was and comes back with its
 * `problem`: it never stops the history from being read. So does every
 * stray when the target cannot be written (a read-only zoo). Never throws.
 */
export function mergeLedgers(target: string, strays: readonly string[]): MergedLedger[] {
  const merged: MergedLedger[] = [];
  if (strays.length === 0) return merged;
  const Driver = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  let db: BetterSqlite3.Database;
  try {
    openLedger(target).close(); // create and migrate the target first
    db = new Driver(target, {timeout: 10_000});
  } catch (error) {
    const problem = ledgerFailure(error, path.resolve(target), 'opening it to merge other ledgers into it').message;
    return strays.map((stray) => ({from: stray, runs: 0, keptAs: stray, problem}));
  }
  try {
    for (const stray of strays) {
      try {
        const outcome = mergeOne(Driver, db, target, stray);
        if (outcome) merged.push(outcome);
      } catch (error) {
        merged.push({from: stray, runs: 0, keptAs: stray, problem: (error as Error).message});
      }
    }
  } finally {
    db.close();
  }
  return merged;
}

function mergeOne(Driver: typeof BetterSqlite3, db: BetterSqlite3.Database, target: string, stray: string): MergedLedger | null {
  const keptAs = stray + mergedSuffix;
  try {
    return db
      .transaction(() => {
        if (!existsSync(stray)) return null;
        // Validate the stray as a ledger (version, foreign tables) and fold its WAL into the file, so the rename moves every run.
        openLedger(stray).close();
        const source = new Driver(stray, {timeout: 10_000});
        let rows: Record<string, unknown>[];
        try {
          source.pragma('wal_checkpoint(TRUNCATE)');
          source.pragma('journal_mode = DELETE');
          rows = source.prepare('SELECT * FROM runs ORDER BY id').all() as Record<string, unknown>[];
        } finally {
          source.close();
        }
        const columns = new Set((db.prepare('PRAGMA table_info(runs)').all() as {name: string}[]).map((c) => c.name));
        const ids = new Map<number, number>();
        for (const row of rows) {
          const values = Object.fromEntries(Object.entries(row).filter(([name]) => name !== 'id' && columns.has(name)));
          if (typeof values.baseline_run === 'number') values.baseline_run = ids.get(values.baseline_run) ?? null;
          const names = Object.keys(values);
          const result = db.prepare(`INSERT INTO runs (${names.join(', ')}) VALUES (${names.map((n) => `@${n}`).join(', ')})`).run(values);
          ids.set(row.id as number, Number(result.lastInsertRowid));
        }
        renameSync(stray, keptAs);
        return {from: stray, runs: rows.length, keptAs};
      })
      .immediate();
  } catch (error) {
    // The transaction rolled back; put the stray back if it had been renamed.
    if (!existsSync(stray) && existsSync(keptAs)) renameSync(keptAs, stray);
    throw ledgerFailure(error, stray, `merging it into ${path.resolve(target)}`);
  }
}

/** One line per ledger merged or left alone, for stderr. */
export function mergedNotes(merged: readonly MergedLedger[], target: string, cwd = process.cwd()): string[] {
  const shown = (file: string) => path.relative(cwd, file) || '.';
  return merged.map((m) =>
    m.problem === undefined
      ? `note: merged ${m.runs} run(s) from ${shown(m.from)} into ${shown(target)} (the old file is kept as ${shown(m.keptAs)})`
      : `warning: the ledger ${shown(m.from)} was not merged into ${shown(target)}, and its runs are not shown: ${m.problem}`,
  );
}
