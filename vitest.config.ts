import {defineConfig} from 'vitest/config';
import SlowestFirst from './test/helpers/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/fixtures/**', 'node_modules/**'],
    testTimeout: 60_000,
    // Most tests wait on child processes (sandboxed evals, Python, servers): two files at a time
    // keep both cores busy, where vitest's default (cores - 1) runs them one by one on 2 cores.
    maxWorkers: 2,
    // The files share a worker one after another instead of a fresh process each: the suite is CPU-bound,
    // and each file re-importing the helpers (and their spawnSync probes of bwrap and python) cost it.
    isolate: false,
    hookTimeout: 60_000,
    setupFiles: ['test/helpers/lease-folder.ts'],
    globalSetup: ['test/helpers/python.ts'],
    // The slowest files first, so the last minutes are not one long file running alone.
    sequence: {sequencer: SlowestFirst},
  },
});
