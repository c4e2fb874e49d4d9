import {existsSync, readFileSync, readdirSync, statSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {repoRoot} from '../helpers/cli.js';
import {lib} from './helpers/zoo.js';

const zoo = path.join(repoRoot, 'zoo');
const entries = existsSync(zoo)
  ? readdirSync(zoo)
      .filter((name) => !lib.isSkippedName(name) && statSync(path.join(zoo, name)).isDirectory())
      .sort()
  : [];

describe('every real zoo entry passes verify', () => {
  it.skipIf(entries.length > 0)('the zoo has no entries yet', () => {
    expect(entries).toEqual([]);
  });
  for (const name of entries) {
    it(`zoo/${name}`, async () => {
      const report = await lib.verifyBenchmark(path.join(zoo, name));
      expect(report.findings.filter((f) => f.severity === 'error').map(lib.formatLintFinding)).toEqual([]);
    });
  }
});

// A benchmark folder is self-contained (it must work in a checkout copy), so each
// entry carries its own copy of the eval wiring; this keeps the copies identical.
// They record no "arbor that made it": in this repository they find the checkout.
describe('every real zoo entry runs the template eval.sh', () => {
  const template = Buffer.from(readFileSync(path.join(repoRoot, 'templates/eval-sh/eval.sh'), 'utf8').replace(/^made_by=\{\{made_by_sh\}\}$/m, "made_by=''"));
  for (const name of entries) {
    it(`zoo/${name}/eval.sh`, () => {
      const file = path.join(zoo, name, 'eval.sh');
      expect(readFileSync(file).equals(template)).toBe(true);
      expect(statSync(file).mode & 0o111).not.toBe(0);
    });
  }
});
