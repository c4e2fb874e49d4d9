/** `verify --probe` and `--mutants`: the adversarial probes through each entry's own eval, and the checker test (trivial answers, mutants). */
import type {VerifyResult} from '../zoo/verify.js';
import {probeBenchmark, type ProbeOptions} from './battery.js';
import {checkVerifier, type CheckerReport} from './checker.js';

export {probeBenchmark} from './battery.js';
export type {ProbeOptions, ProbeReport} from './battery.js';
export {
  probes,
  /** @public read by test/probe/template.test.ts through the built index */
  probeSource,
} from './probes.js';

/** Probe every folder verify could lint, adding the findings (errors) and outcomes to its report. */
export async function probeBenchmarks(result: VerifyResult, options: ProbeOptions = {}): Promise<VerifyResult> {
  for (const report of result.benchmarks) {
    const probed = await probeBenchmark(report.dir, options);
    report.findings.push(...probed.findings);
    report.errors += probed.findings.length;
    result.errors += probed.findings.length;
    report.probes = probed.probes;
    report.probeSeconds = probed.seconds;
  }
  return result;
}

export {checkVerifier} from './checker.js';
export type {CheckerOptions, CheckerReport} from './checker.js';
export {formatChecker} from './report.js';

/** Options of checkVerifiers. */
export interface CheckersOptions {
  /** Also run each verifier's mutants. */
  mutants?: boolean;
  /** The eval probes ran: a folder without plan.toml, or one whose eval could not run, was reported by them. */
  planReported?: boolean;
  /** Progress lines of the mutant phase, at most one a second per folder. */
  onProgress?: (line: string) => void;
}

/** Score the trivial answers (and the mutants) of every folder verify could lint; findings join its report, the reports come back by folder. */
export async function checkVerifiers(result: VerifyResult, options: CheckersOptions = {}): Promise<Map<string, CheckerReport>> {
  const reports = new Map<string, CheckerReport>();
  for (const report of result.benchmarks) {
    const checked = await checkVerifier(report.dir, {mutants: options.mutants, onProgress: options.onProgress});
    // What the eval probes already said (no plan, a plan or bundle that does not load) is said once.
    const said = new Set<string>();
    if (options.planReported) {
      said.add('probe-plan');
      if (report.findings.some((f) => f.ruleId === 'probe-harness')) said.add('probe-harness');
    }
    const findings = checked.findings.filter((f) => !said.has(f.ruleId));
    report.findings.push(...findings);
    report.errors += findings.length;
    result.errors += findings.length;
    reports.set(report.dir, {...checked, findings});
  }
  return reports;
}
