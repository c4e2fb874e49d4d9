/** `verify --probe`: the adversarial probes, run through each entry's own eval. */
import type {VerifyResult} from '../zoo/verify.js';
import {probeBenchmark, type ProbeOptions} from './battery.js';

export {accuracySlack, probeBenchmark, probeCaseTimeout} from './battery.js';
export type {ProbeOptions, ProbeOutcome, ProbeReport} from './battery.js';
export {probes, probeSource, probeTemplatePath} from './probes.js';
export type {Probe, ProbeConfig} from './probes.js';

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

export {answerSlack, checkVerifier, killTarget} from './checker.js';
export type {AnswerOutcome, CheckerOptions, CheckerReport, MutantOutcome} from './checker.js';
export {formatChecker} from './report.js';

/** Options of checkVerifiers. */
export interface CheckersOptions {
  /** Also run each verifier's mutants. */
  mutants?: boolean;
  /** The eval probes ran and already reported a folder without plan.toml: do not report it twice. */
  planReported?: boolean;
}

/** Score the trivial answers (and the mutants) of every folder verify could lint; findings join its report, the reports come back by folder. */
export async function checkVerifiers(result: VerifyResult, options: CheckersOptions = {}): Promise<Map<string, import('./checker.js').CheckerReport>> {
  const {checkVerifier} = await import('./checker.js');
  const reports = new Map<string, import('./checker.js').CheckerReport>();
  for (const report of result.benchmarks) {
    const checked = await checkVerifier(report.dir, {mutants: options.mutants});
    const findings = options.planReported ? checked.findings.filter((f) => f.ruleId !== 'probe-plan') : checked.findings;
    report.findings.push(...findings);
    report.errors += findings.length;
    result.errors += findings.length;
    reports.set(report.dir, {...checked, findings});
  }
  return reports;
}
