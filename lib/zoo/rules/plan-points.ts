import {runnableRule} from './runnable-rule.js';

/** Every point of the plan fits the bundle's signature (error). */
export const planPoints = runnableRule(
  'plan-points',
  'error',
  "Every point of `plan.toml` gives exactly the bundle's point parameters, each within its range",
  (found) => found.points,
);
