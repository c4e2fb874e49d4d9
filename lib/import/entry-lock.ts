/**
 * The lock of an imported entry, from its files alone. `arbor benchmark lock` makes every case twice
 * (bundle-deterministic), and the bundle's generator and oracle import the task's module outside
 * any sandbox: its top-level code would run with the importing user's access. The importer shows a
 * task deterministic in the sandbox instead (inspect_task.py: each seed's problem made twice, the
 * task's answers through its validator); here only lock's other runnable rules are applied (plan,
 * seeds, points, bundle marker and fingerprint, entry points), then arbor.lock is written: lock's
 * own door (lib/zoo/lock.ts), told that determinism was shown in the sandbox.
 */
import {lockBenchmark} from '../zoo/lock.js';

/** Lock the entry at `dir` (absolute): undefined when written, else the first error that refused it. */
export async function lockFromFiles(dir: string): Promise<string | undefined> {
  const outcome = await lockBenchmark(dir, {determinismShown: true});
  const first = outcome.findings?.[0];
  return first ? `${first.ruleId}: ${first.message}` : undefined;
}
