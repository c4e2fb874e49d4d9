/** arbor's library API. The CLI is a thin shell around these modules. */
export * from './errors.js';
export * from './zoo/index.js';
export * from './bundle/index.js';
export * from './eval/index.js';
export * from './probe/index.js';
export * from './gate/index.js';
export * from './environment.js';
export * from './ledger/index.js';
export * from './report/index.js';
export * from './run/index.js';
// Both the eval (its --json-file report) and the report folder have a writeReport: the library's is the report folder's, as before.
export {writeReport} from './report/index.js';
