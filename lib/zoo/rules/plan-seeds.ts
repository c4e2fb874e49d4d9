import {runnableRule} from './runnable-rule.js';

/** Dev and test seeds are disjoint (error). */
export const planSeeds = runnableRule('plan-seeds', 'error', "`plan.toml`'s dev and test seeds are disjoint", (found) => found.overlap);
