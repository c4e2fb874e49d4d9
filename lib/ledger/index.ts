/** The run ledger: where it lives, what a run record holds, test exposure. See docs/commands.md, "The run ledger". */
export * from './errors.js';
export * from './location.js';
export * from './digest.js';
export * from './git-state.js';
export * from './exposure.js';
export * from './ledger.js';
export * from './summary.js';
export * from './merge.js';
export * from './changes.js';
export * from './changes-format.js';
export * from './floor.js';
