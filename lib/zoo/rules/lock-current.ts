import {runnableRule} from './runnable-rule.js';

/** arbor.lock matches the protected files (error). */
export const lockCurrent = runnableRule(
  'lock-current',
  'error',
  '`arbor.lock`, when present, matches the protected files (plan, bundle, reference, eval entrypoints, data)',
  (found) => found.stale,
);
