/** The runnable rules share one shape: report what `runnableOf` found for their part. */
import type {Rule, Severity} from '../rule.js';
import {runnableOf, type Runnable, type RunnableProblem} from '../runnable.js';

/** A rule reporting the problems `pick` takes from a folder's runnable facts. */
export function runnableRule(
  id: string,
  severity: Severity,
  description: string,
  pick: (found: Runnable) => Array<RunnableProblem | undefined> | RunnableProblem | undefined,
): Rule {
  return {
    id,
    severity,
    description,
    check(ctx) {
      const picked = pick(runnableOf(ctx));
      for (const problem of Array.isArray(picked) ? picked : [picked]) {
        if (problem) ctx.report(problem.message, {file: problem.file, place: problem.place});
      }
    },
  };
}
