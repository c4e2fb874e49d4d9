import {runnableRule} from './runnable-rule.js';

/** plan.toml passes the eval's own checks (error). */
export const planValid = runnableRule(
  'plan-valid',
  'error',
  '`plan.toml` passes the checks every eval makes: known keys (with a suggestion for a misspelt one), a known metric, existing bundle and reference, valid splits',
  (found) => found.invalid,
);
