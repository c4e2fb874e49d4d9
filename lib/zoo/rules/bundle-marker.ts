import {runnableRule} from './runnable-rule.js';

/** The plan's bundle loads (error). */
export const bundleMarker = runnableRule(
  'bundle-marker',
  'error',
  "The plan's bundle has a valid `fherma.toml` whose entry points (generate, oracle, verify) exist",
  (found) => found.marker,
);
