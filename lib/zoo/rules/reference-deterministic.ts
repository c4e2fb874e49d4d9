import path from 'node:path';
import type {Rule} from '../rule.js';
import {cachedDeterminismOf, runnableOf} from '../runnable.js';

/**
 * The plan's reference answers the same bytes twice (error): verify and lock run it as the solution
 * of a one-repetition dev eval, so it and its copy answer the same cases in two fresh sandboxed runs,
 * and compare the answers byte for byte (determinism-run.ts); its answers must pass the verifier too.
 * A pass is reused for the same bytes; list reports what a verify or lock cached, and runs nothing.
 */
export const referenceDeterministic: Rule = {
  id: 'reference-deterministic',
  severity: 'error',
  description:
    "A speedup plan's reference answers the same bytes twice: run in two fresh sandboxed runs on the same fresh dev cases, its answers agree byte for byte and pass the verifier; list shows verify's cached result",
  check(ctx) {
    const found = runnableOf(ctx);
    const {plan, bundle} = found;
    if (!plan || !bundle || found.marker || found.fingerprint || found.points.length > 0) return;
    let outcome = ctx.determinism;
    if (!outcome) {
      const cached = cachedDeterminismOf(ctx, bundle, plan);
      const rel = path.relative(ctx.root, bundle.dir) || '.';
      ctx.dependsOn([cached.file, ...cached.names.map((name) => path.join(rel, name)), ...cached.planNames]);
      outcome = cached.outcome;
    }
    const file = plan.reference ? path.relative(ctx.root, plan.reference) : 'plan.toml';
    for (const problem of outcome?.problems ?? []) if (problem.of === 'reference') ctx.report(problem.message, {file});
  },
};
