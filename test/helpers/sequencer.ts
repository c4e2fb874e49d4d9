// The order test files start in: the slowest first (by test/helpers/durations.json, refreshed with
// test/helpers/update-durations.mjs), so that the workers do not end with one long file running
// alone. A file the table does not know yet starts first: new files are often the slow ones.
import {readFileSync} from 'node:fs';
import path from 'node:path';
import {BaseSequencer, type TestSpecification} from 'vitest/node';

const durations: Record<string, number> = JSON.parse(readFileSync(path.join(import.meta.dirname, 'durations.json'), 'utf8'));

export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const seconds = (file: TestSpecification) => durations[path.relative(root, file.moduleId).split(path.sep).join('/')] ?? Number.POSITIVE_INFINITY;
    return [...files].sort((a, b) => {
      const [first, second] = [seconds(a), seconds(b)];
      return first === second ? 0 : first > second ? -1 : 1;
    });
  }
}
