/**
 * The harness floor of an entry as its newest ledger run measured it
 * (lib/eval/floor.ts; recorded beside the run's environment), so `list --json`
 * and the report state the largest speedup an eval can show without running one.
 */
import {existsSync} from 'node:fs';
import path from 'node:path';
import type {Ledger, LedgerRun} from './ledger.js';
import {ledgerPathFor} from './location.js';
import {byTime, openLedger} from './ledger.js';

/** An entry's harness floor and ceiling, and the run that measured them. */
export interface HarnessCeiling {
  /** Seconds per case that are not the solution's (the eval's clock). */
  floorSeconds: number;
  /** The largest speedup an eval of the entry could show on that machine. */
  maxSpeedup: number;
  /** The split, the ledger run that measured it, and when (a split's cases set its ceiling: dev's and test's differ). */
  split: string;
  runId: number;
  measuredAt: string;
}

const positive = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value > 0;

/**
 * The newest of `runs` (on `split`, when given) that carries a harness floor, or null. An imported
 * run never counts (runs --merge: another ledger's figures are not this machine's), and a floor
 * that is not two positive finite numbers is no floor.
 */
export function newestCeiling(runs: readonly LedgerRun[], split?: string): HarnessCeiling | null {
  let newest: HarnessCeiling | null = null;
  let newestRun: LedgerRun | undefined;
  for (const run of runs) {
    if (run.importedFrom !== null || run.metric !== 'speedup' || (split !== undefined && run.split !== split)) continue;
    if (newestRun && byTime(run, newestRun) < 0) continue;
    const floor = (run.environment as {harnessFloor?: {floorSeconds?: unknown; maxSpeedup?: unknown}}).harnessFloor;
    if (!floor || !positive(floor.floorSeconds) || !positive(floor.maxSpeedup)) continue;
    newestRun = run;
    newest = {floorSeconds: floor.floorSeconds, maxSpeedup: floor.maxSpeedup, split: run.split, runId: run.id, measuredAt: run.time};
  }
  return newest;
}

/**
 * A lookup of entries' ceilings in a zoo's ledger, opened read-only on first use (never created:
 * listing a zoo writes nothing); every entry's is null without a ledger. `close` when done.
 */
export function zooCeilings(zoo: string, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): {of(dir: string): HarnessCeiling | null; close(): void} {
  let ledger: Ledger | null | undefined;
  const open = (): Ledger | null => {
    if (ledger !== undefined) return ledger;
    const file = ledgerPathFor(zoo, env, cwd, 'zoo');
    try {
      ledger = existsSync(file) ? openLedger(file, {readonly: true}) : null;
    } catch {
      // An unreadable ledger is `runs`'s to report; the list still lists, with no ceilings.
      ledger = null;
    }
    return ledger;
  };
  return {
    of: (dir) => {
      const opened = open();
      return opened ? newestCeiling(opened.listRuns({benchmark: path.resolve(cwd, dir), withCases: false})) : null;
    },
    close: () => ledger?.close(),
  };
}
