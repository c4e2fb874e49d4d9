import {defineConfig} from 'vitest/config';
import {BaseSequencer, type TestSpecification} from 'vitest/node';

/**
 * The slowest files, slowest first (seconds in a CI run). A fresh clone has no
 * vitest cache of durations, so without this the two workers can end with one
 * long file running alone; longest-first keeps both busy to the end.
 */
const slowest = [
  'test/eval/instructions.test.ts', // 215: evals under valgrind
  'test/eval/adversarial-sandbox.test.ts', // 107
  'test/eval/adversarial-faults.test.ts', // 97
  'test/eval/eval.test.ts', // 82
  'test/eval/adversarial-simple.test.ts', // 81
  'test/compare/compare.test.ts', // 61
  'test/zoo/scaffold.test.ts', // 45
  'test/eval/path-split.test.ts', // 34
  'test/probe/probe-accuracy.test.ts', // 33
];

class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = slowest.findIndex((name) => file.moduleId.endsWith(name));
      return index === -1 ? slowest.length : index;
    };
    return sorted.map((file, order) => ({file, order})).sort((a, b) => rank(a.file) - rank(b.file) || a.order - b.order).map(({file}) => file);
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/fixtures/**', 'node_modules/**'],
    testTimeout: 60_000,
    // Most tests wait on child processes (sandboxed evals, Python, servers): two files at a time
    // keep both cores busy, where vitest's default (cores - 1) runs them one by one on 2 cores.
    maxWorkers: 2,
    hookTimeout: 60_000,
    sequence: {sequencer: SlowestFirst},
  },
});
