import {describe, expect, it} from 'vitest';
import {runDifferential, havePython} from './differential.js';
import {generatePackages} from './generate-packages.js';
import {tempDir} from '../helpers/cli.js';

const python = havePython();
if (!python) console.warn('SKIPPED: python3 is not available, so the gate differential test against the reference did not run.');

const count = Number(process.env.GATE_DIFF_COUNT ?? 300);
const seed = Number(process.env.GATE_DIFF_SEED ?? 20261129);

describe.skipIf(!python)('arbor benchmark gate vs the reference (differential)', () => {
  it(`matches the reference byte for byte on ${count} generated packages (seed ${seed})`, () => {
    const root = tempDir('arbor-gate-diff-');
    const {compared, differences, classes} = runDifferential(root, generatePackages(seed, count), 25);
    if (differences.length > 0) {
      const shown = differences
        .slice(0, 5)
        .map(
          (d) =>
            `${d.name} (${d.dir}):\n  reference rc=${d.reference.rc} stderr=${JSON.stringify(d.reference.stderr)} stdout=${JSON.stringify(d.reference.stdout.slice(0, 300))}\n  port      rc=${d.port.rc} stderr=${JSON.stringify(d.port.stderr)} stdout=${JSON.stringify(d.port.stdout.slice(0, 300))}`,
        );
      console.error(`${differences.length} differences out of ${compared}:\n${shown.join('\n')}`);
    }
    if (process.env.GATE_DIFF_STATS)
      console.log(
        [...classes]
          .sort((a, b) => b[1] - a[1])
          .map(([k, v]) => `${v}\t${k}`)
          .join('\n'),
      );
    console.log(`gate differential: compared ${compared} packages, ${differences.length} differences`);
    expect(differences.map((d) => d.name)).toEqual([]);
  }, 600_000);
});
