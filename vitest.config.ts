import {defineConfig} from 'vitest/config';
import SlowestFirst from './test/helpers/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/fixtures/**', 'node_modules/**'],
    testTimeout: 60_000,
    // Three files at a time on 2 cores: much of a file's time is waiting (a sealed turn's release
    // time, a server's start, an eval's runs frozen between repetitions), which a third file fills.
    // Measured here with test/helpers/durations.json refreshed: 800 s with 2 workers (1.30 cores busy on
    // average), 682 s with 3 (1.42), 766 s with 4 (more files waiting on the same two cores), every test
    // passing each time; vitest's default (cores - 1) runs one file at a time.
    maxWorkers: 3,
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
