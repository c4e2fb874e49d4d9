/**
 * The reference half of verify's and lock's determinism check (lib/zoo/determinism-run.ts makes the
 * bundle's cases twice; this runs the plan's reference twice): here because it runs an eval, and the
 * zoo sits below the eval (docs/architecture.md, rule b). The zoo's callers hand it in as
 * `checkReference` (lib/eval/index.ts loads this file with its first call).
 */
import path from 'node:path';
import {evalEnvironment} from '../secrets.js';
import {fix, type ReferenceCheck, type ReferenceRequest} from '../zoo/determinism.js';
import {runEval} from './pipeline.js';
import type {ReferenceDifference} from './types.js';

/**
 * The reference check: a one-repetition dev eval whose solution is the plan's reference, so the
 * reference and its copy each answer the same cases in fresh sandboxed runs, compared byte for byte
 * (EvalOptions.compareWithReference). The reference's answers must pass the verifier too.
 */
export async function checkReference({plan, problems, env, shown, onWait}: ReferenceRequest): Promise<ReferenceCheck> {
  const started = performance.now();
  const seconds = () => Math.round((performance.now() - started) / 10) / 100;
  const reference = path.relative(plan.dir, plan.reference!);
  let report;
  try {
    report = await runEval({
      benchmark: plan.dir,
      split: 'dev',
      solution: plan.reference!,
      env: evalEnvironment(env),
      planOverride: {repetitions: 1, maxSeconds: 0},
      compareWithReference: true,
      beforeLock: true,
      ...(onWait ? {onProgress: (kind: 'line' | 'status', text: string) => kind === 'line' && text.startsWith('waiting') && onWait(text)} : {}),
    });
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).replace(/^arbor: /, '');
    problems.push({
      of: 'reference',
      message: `the reference ${reference} could not be run twice on the same cases, so it is not shown to answer the same bytes twice: ${message} (run \`arbor benchmark eval ${shown} --solution ${path.join(shown, reference)}\`)`,
    });
    return {conclusive: false, seconds: seconds()};
  }
  // One problem per point: its first difference, and how many other cases differed.
  const byPoint = new Map<string, ReferenceDifference[]>();
  for (const difference of report.referenceDifferences ?? []) {
    const key = JSON.stringify(difference.point);
    byPoint.set(key, [...(byPoint.get(key) ?? []), difference]);
  }
  for (const [point, [difference, ...others]] of byPoint) {
    const seed = difference!.seed === undefined ? `case ${difference!.case}` : `seed ${difference!.seed}`;
    const how =
      difference!.offset < 0
        ? `answered \`${difference!.result}\` in only one of them`
        : `answered \`${difference!.result}\` with bytes that differ from offset ${difference!.offset}`;
    const more = others.length ? ` (and ${others.length} other case${others.length > 1 ? 's' : ''})` : '';
    problems.push({
      of: 'reference',
      message: `the reference ${reference} is not deterministic: point ${point} ${seed}: two fresh runs on the same case ${how}${more} (${fix('expected', reference.endsWith('.py'))})`,
    });
  }
  if (!report.referenceDifferences?.length && report.score === 0 && report.failure) {
    problems.push({
      of: 'reference',
      message: `the reference ${reference} fails an eval of itself (its copy as the solution, on the same cases): ${report.failure} (run \`arbor benchmark eval ${shown} --solution ${path.join(shown, reference)}\`)`,
    });
  }
  return {conclusive: true, seconds: seconds()};
}
