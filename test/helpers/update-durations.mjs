// Refresh test/helpers/durations.json from a vitest JSON report:
//   npx vitest run --reporter=json --outputFile=/tmp/vitest.json && node test/helpers/update-durations.mjs /tmp/vitest.json
// Only the order matters (test/helpers/sequencer.ts starts the slowest files first), so a report from a busy machine serves.
import {readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const [reportFile] = process.argv.slice(2);
if (!reportFile) {
  console.error('usage: node test/helpers/update-durations.mjs <vitest-json-report>');
  process.exit(2);
}
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// The report's spans leave out beforeAll hooks: a file that does its work in one (one `benchmark run` of the
// whole zoo, about two minutes) would look instant and start last. Left out of the table, it starts first.
const workInHooks = new Set(['test/zoo-entries/zoo.test.ts']);
const report = JSON.parse(readFileSync(reportFile, 'utf8'));
const durations = Object.fromEntries(
  report.testResults
    .map((file) => [path.relative(root, file.name).split(path.sep).join('/'), Math.round((file.endTime - file.startTime) / 100) / 10])
    .map(([name, seconds]) => [name.replace(/^.*?(test\/)/, '$1'), seconds])
    .filter(([name]) => !workInHooks.has(name))
    .sort((a, b) => b[1] - a[1]),
);
writeFileSync(path.join(root, 'test/helpers/durations.json'), `${JSON.stringify(durations, null, 2)}\n`);
console.log(`wrote test/helpers/durations.json: ${Object.keys(durations).length} files`);
