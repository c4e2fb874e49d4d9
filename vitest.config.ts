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
    hookTimeout: 60_000,
    setupFiles: ['test/helpers/lease-folder.ts'],
    globalSetup: ['test/helpers/python.ts'],
    // The slowest files first, so the last minutes are not one long file running alone.
    sequence: {sequencer: SlowestFirst},
  },
});
