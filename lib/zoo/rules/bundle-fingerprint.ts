import {runnableRule} from './runnable-rule.js';

/** The bundle's fingerprint is its signature's (error). */
export const bundleFingerprint = runnableRule(
  'bundle-fingerprint',
  'error',
  "The bundle's `fherma.toml` fingerprint matches its signature (`arbor bundle <dir> fingerprint --write` sets it)",
  (found) => found.fingerprint,
);
