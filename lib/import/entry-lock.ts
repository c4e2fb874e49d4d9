/**
 * The lock of an imported entry, from its files alone. `arbor benchmark lock` makes every case twice
 * (bundle-deterministic), and the bundle's generator and oracle import the task's module outside
 * any sandbox: its top-level code would run with the importing user's access. The importer shows a
 * task deterministic in the sandbox instead (inspect_task.py: each seed's problem made twice, the
 * task's answers through its validator); here only lock's other runnable rules are applied (plan,
 * seeds, points, bundle marker and fingerprint, entry points), then arbor.lock is written.
 */
import {writeLock} from '../benchmark/lock.js';
import {loadPlan} from '../benchmark/plan.js';
import {verifyBenchmark} from '../zoo/lint.js';
import {rules, runnableRuleIds} from '../zoo/rules/index.js';

/** The runnable rules that read files only (the determinism rules run the bundle). */
const fileRules = rules.filter((rule) => runnableRuleIds.has(rule.id) && rule.id !== 'bundle-deterministic' && rule.id !== 'reference-deterministic');

/** Lock the entry at `dir` (absolute): undefined when written, else the first error that refused it. */
export async function lockFromFiles(dir: string): Promise<string | undefined> {
  const report = await verifyBenchmark(dir, {root: dir, rules: fileRules});
  const first = report.findings.find((finding) => finding.severity === 'error');
  if (first) return `${first.ruleId}: ${first.message}`;
  const plan = await loadPlan(dir);
  await writeLock(plan.dir, plan);
  return undefined;
}
