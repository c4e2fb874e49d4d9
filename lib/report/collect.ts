/** Gather what the report shows: the zoo's entries and their verify status, and the run ledger's history. */
import {existsSync, readdirSync} from 'node:fs';
import path from 'node:path';
import {UsageError} from '../errors.js';
import {openLedger, type LedgerRun} from '../ledger/ledger.js';
import {ledgerPathFor, namedLedger, strayLedgers} from '../ledger/location.js';
import {benchmarkInfo} from '../ledger/summary.js';
import {testExposure} from '../ledger/exposure.js';
import {isSkippedName, resolveZoo} from '../zoo/list.js';
import {describeFsError} from '../zoo/text.js';
import {verifyBenchmarks} from '../zoo/verify.js';
import {arborVersion} from '../version.js';
import {buildReport, ledgerShown, type EntrySource, type ReportModel} from './model.js';

/** Options of `collectReport`. */
export interface CollectOptions {
  /** The zoo folder (default: `resolveZoo`'s: ./arbor-zoo, ./zoo, or the working directory when it is a zoo). */
  zoo?: string;
  /** The ledger file, overriding `ARBOR_LEDGER` and the default location (the zoo's repository root). */
  ledger?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** The report's time (default now). */
  now?: Date;
  /**
   * Told of the ledger files found where the zoo's history no longer goes
   * (`strayLedgers`): never read, their runs not shown (`arbor benchmark runs
   * --merge FILE` imports one, marked as imported).
   */
  onStrays?: (strays: string[], ledger: string) => void;
}

/**
 * The report's model for a zoo. A missing ledger is an empty history; a
 * missing zoo is a UsageError; a corrupt or foreign ledger throws LedgerError.
 */
export async function collectReport(options: CollectOptions = {}): Promise<ReportModel> {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const zoo = resolveZoo(options.zoo, cwd, 'report');
  const folders = zooEntries(zoo.abs, zoo.shown);
  const verify = await verifyBenchmarks(
    folders.map((folder) => path.join(zoo.shown, folder)),
    {cwd},
  );
  const chosen = namedLedger(options.ledger, env, cwd);
  const file = chosen ?? ledgerPathFor(zoo.abs, {}, cwd, 'zoo');
  // As in `runs`: a ledger an earlier arbor kept per benchmark, or the zoo kept before `git init`, is named, never read.
  const strays = chosen ? [] : strayLedgers(file, [zoo.abs, ...folders.map((folder) => path.join(zoo.abs, folder))]);
  if (strays.length > 0) options.onStrays?.(strays, file);
  const exists = existsSync(file);
  const ledger = exists ? openLedger(file, {readonly: true}) : null;
  try {
    const runs: LedgerRun[] = ledger ? ledger.listRuns({withCases: false}) : [];
    const entries: EntrySource[] = [];
    for (const folder of folders) {
      const shown = path.join(zoo.shown, folder);
      const info = await benchmarkInfo(path.join(zoo.abs, folder));
      const report = verify.benchmarks.find((b) => b.dir === shown);
      const unusable = verify.unusable.find((u) => u.dir === shown);
      entries.push({
        folder,
        name: info.name,
        verify: report ?? {problem: unusable?.problem ?? `Benchmark folder \`${shown}\` could not be verified`},
        exposure: {count: ledger ? testExposure(ledger, info.name) : 0, budget: info.testBudget},
        minimize: info.minimize,
        metric: info.metric,
      });
    }
    return buildReport({
      zoo: zoo.shown,
      name: path.basename(zoo.abs),
      generated: (options.now ?? new Date()).toISOString(),
      arborVersion: arborVersion(),
      ledger: {path: ledger?.path ?? file, exists, shown: ledgerShown(path.resolve(cwd, ledger?.path ?? file), zoo.abs)},
      entries,
      runs,
    });
  } finally {
    ledger?.close();
  }
}

/** The zoo's entry folders in name order, as `list` finds them: no files, no `_` or `.` names. */
function zooEntries(abs: string, shown: string): string[] {
  let dirents;
  try {
    dirents = readdirSync(abs, {withFileTypes: true});
  } catch (error) {
    throw new UsageError(`Cannot read zoo \`${shown}\` (${describeFsError(error)}), expected a readable folder`);
  }
  return dirents
    .filter((d) => !isSkippedName(d.name) && !d.isFile() && !d.isFIFO() && !d.isSocket())
    .map((d) => d.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
