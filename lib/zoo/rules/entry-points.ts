import {runnableRule} from './runnable-rule.js';

/** What the eval starts from exists (error). */
export const entryPoints = runnableRule(
  'entry-points',
  'error',
  "The baseline solution `plan.toml` names exists (and a path split's dev folder)",
  (found) => found.entries,
);
