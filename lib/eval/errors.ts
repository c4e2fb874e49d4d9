/** Errors of the eval pipeline: those of the benchmark folder (lib/benchmark/errors.ts), which plan.toml and arbor.lock raise too. */
export {HarnessError, StaleLockError} from '../benchmark/errors.js';
