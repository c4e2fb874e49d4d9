import {runnableRule} from './runnable-rule.js';

/** A benchmark with a plan has an arbor.lock (warning). */
export const lockPresent = runnableRule(
  'lock-present',
  'warning',
  'A benchmark with a `plan.toml` has an `arbor.lock` (`arbor benchmark lock <dir>` writes it)',
  (found) => found.unlocked,
);
