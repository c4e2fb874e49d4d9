import {defineConfig} from 'vitest/config';
import SlowestFirst from './test/helpers/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/fixtures/**', 'node_modules/**'],
    testTimeout: 60_000,
    // The suite is CPU-bound (sandboxed evals, Python starts): two files at a time keep both cores
    // busy, where vitest's default (cores - 1) runs them one by one on 2 cores. A third worker filled
    // the waits (192% of 2 cores used, against 178%) but took 2% off the wall time for 6% more CPU
    // time and a higher load on the timed runs: not worth it.
    maxWorkers: 2,
    // The files share a worker one after another instead of a fresh process each: the suite is CPU-bound,
    // and each file re-importing the helpers (and their spawnSync probes of bwrap and python) cost it.
    isolate: false,
    hookTimeout: 60_000,
    setupFiles: ['test/helpers/lease-folder.ts'],
    globalSetup: ['test/helpers/python.ts', 'test/helpers/lease-root.ts'],
    // The slowest files first, so the last minutes are not one long file running alone.
    sequence: {sequencer: SlowestFirst},
  },
});
