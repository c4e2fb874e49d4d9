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
