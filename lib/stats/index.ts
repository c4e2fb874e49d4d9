/** Statistics, pure functions over numbers: summaries, quantiles, the speed score's intervals and sequential tests, change points. See README.md. */
export * from './describe.js';
export * from './quantiles.js';
export * from './speed.js';
export * from './steps.js';
export * from './ratio.js';
