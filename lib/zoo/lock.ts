/**
 * `arbor benchmark lock`: write (or check) a benchmark's arbor.lock, refusing a
 * folder that verify's runnable rules refuse (a plan that does not parse, a point
 * the bundle lacks, a wrong fingerprint, …): a lock vouches that the eval it
 * protects can run, its bundle's cases and expected results the same bytes when made twice, and a speedup
 * plan's reference the same answers when run twice on the same cases.
 */
import path from 'node:path';
import {computeLock, lockDifference, readLock, writeLock} from '../benchmark/lock.js';
import {loadPlan} from '../benchmark/plan.js';
import {freshDeterminism} from './determinism-run.js';
import type {ReferenceChecker} from './determinism.js';
import {type Finding, verifyBenchmark} from './lint.js';
import {rules, runnableRuleIds} from './rules/index.js';

/** What locking (or checking) one folder came to. */
export interface LockOutcome {
  dir: string;
  /** Protected files hashed (0 when refused). */
  files: number;
  status: 'written' | 'ok' | 'missing' | 'differs' | 'refused';
  difference?: string;
  /** Why the lock was refused: verify's runnable findings. */
  findings?: Finding[];
}

const refusingRules = rules.filter((rule) => runnableRuleIds.has(rule.id));
/** The refusing rules that read files only: the two determinism rules run the bundle's code. */
const fileRules = refusingRules.filter((rule) => rule.id !== 'bundle-deterministic' && rule.id !== 'reference-deterministic');

/** Write `<dir>/arbor.lock`, or with `check` compare it; a folder with runnable errors is refused and nothing is written. */
export async function lockBenchmark(
  dir: string,
  options: {
    check?: boolean;
    cwd?: string;
    reference?: boolean;
    /** What runs the reference twice (lib/eval's `checkReference`, handed in from above the eval); without it the reference is left out. */
    checkReference?: ReferenceChecker;
    /** Determinism was shown elsewhere, in a sandbox (the AlgoTune importer's inspection): no bundle code runs here, the file rules alone refuse. */
    determinismShown?: boolean;
  } = {},
): Promise<LockOutcome> {
  const abs = path.resolve(options.cwd ?? process.cwd(), dir);
  // A folder without plan.toml is a usage error, as before (loadPlan says so).
  // Before it vouches for the bundle, lock makes its cases twice (bundle-deterministic) and runs a speedup plan's
  // reference twice on the same cases (reference-deterministic; `reference: false` leaves that out); --check only compares hashes.
  const determinism =
    options.check || options.determinismShown
      ? undefined
      : await freshDeterminism(abs, dir, {reference: options.reference, ...(options.checkReference ? {checkReference: options.checkReference} : {})});
  const report = await verifyBenchmark(dir, {root: abs, rules: options.determinismShown ? fileRules : refusingRules, ...(determinism ? {determinism} : {})});
  const findings = report.findings.filter((finding) => finding.severity === 'error');
  if (findings.length > 0 && !options.check) return {dir, files: 0, status: 'refused', findings};
  const plan = await loadPlan(abs);
  if (!options.check) {
    const lock = await writeLock(plan.dir, plan);
    return {dir, files: Object.keys(lock.files).length, status: 'written'};
  }
  const [locked, now] = await Promise.all([readLock(plan.dir), computeLock(plan.dir, plan)]);
  const difference = locked ? lockDifference(locked, now) : undefined;
  return {dir, files: Object.keys(now.files).length, status: !locked ? 'missing' : difference ? 'differs' : 'ok', ...(difference ? {difference} : {})};
}
