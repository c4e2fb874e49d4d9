import {availableParallelism} from 'node:os';
import {defineConfig} from 'vitest/config';
import SlowestFirst from './test/helpers/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/fixtures/**', 'node_modules/**'],
    testTimeout: 60_000,
    // The suite is CPU-bound (sandboxed evals, Python starts), but its tests also wait: on a killed
    // warm-up, a server, a timeout. One file more than there are cores keeps every core busy through
    // those waits (on 2 cores: 697 s with 2 workers, 178% of the cores used).
    maxWorkers: availableParallelism() + 1,
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
