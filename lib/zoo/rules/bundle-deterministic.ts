import path from 'node:path';
import type {Rule} from '../rule.js';
import {cachedDeterminismOf, runnableOf} from '../runnable.js';

/**
 * The bundle makes the same bytes twice (error): verify and lock make the first published seed of each
 * point twice in fresh processes and compare `cases/` and `expected/` (determinism-run.ts); list reports
 * the outcome a verify or lock cached for the bundle's fingerprint and files, and runs no make.
 */
export const bundleDeterministic: Rule = {
  id: 'bundle-deterministic',
  severity: 'error',
  description:
    "The bundle makes the same bytes twice: the first seed of each point made in two fresh processes gives identical `cases/` (generator) and `expected/` (oracle); list shows verify's cached result",
  check(ctx) {
    const found = runnableOf(ctx);
    const {plan, bundle} = found;
    if (!plan || !bundle || found.marker || found.fingerprint || found.points.length > 0) return;
    const rel = path.relative(ctx.root, bundle.dir) || '.';
    let outcome = ctx.determinism;
    if (!outcome) {
      const cached = cachedDeterminismOf(ctx, bundle, plan);
      // list's cache: the row changes when a verify or lock stores an outcome, or a bundle file changes.
      ctx.dependsOn([cached.file, ...cached.names.map((name) => path.join(rel, name)), ...cached.planNames]);
      outcome = cached.outcome;
    }
    for (const problem of outcome?.problems ?? []) if (problem.of === undefined) ctx.report(problem.message, {file: rel});
  },
};
