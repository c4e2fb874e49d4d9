import {runnableRule} from './runnable-rule.js';

/** plan.toml is valid TOML (error). */
export const planToml = runnableRule(
  'plan-toml',
  'error',
  '`plan.toml`, when present, is valid TOML (the finding points at the mistake)',
  (found) => found.syntax,
);
