/**
 * The library's public API (`import {…} from 'arbor'`), pinned: the built package entry exports
 * exactly the names below, and docs/library.md's table documents exactly those. A name added to
 * lib/index.ts, or reaching it through a re-export of a whole folder, fails here until it is
 * documented and listed; one dropped fails too (a caller may use it).
 */
import {readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import * as arbor from '../dist/lib/index.js';
import {repoRoot} from './helpers/cli.js';

/** Every value the package's entry exports, sorted (types are erased from the build; they come with these). */
const pinned = [
  'ArborError',
  'BundleError',
  'ELEMENT_TYPES',
  'ExitCode',
  'GateError',
  'HarnessError',
  'JobRefusedError',
  'LedgerError',
  'RefusedError',
  'ReportError',
  'RunInterruptedError',
  'StaleLockError',
  'Stream',
  'TENSOR_ARRAYS',
  'TensorLengthError',
  'UsageError',
  'bundleInfo',
  'calibrate',
  'canonicalSignature',
  'checkReference',
  'checkVerifier',
  'checkVerifiers',
  'checkoutBenchmark',
  'collectReport',
  'compareFiles',
  'countNaN',
  'describeEnvironment',
  'elementValue',
  'encodeJob',
  'exposureWarning',
  'findChanges',
  'findWorkerEntry',
  'gitState',
  'isArborError',
  'ledgerPathFor',
  'lintRules',
  'listZoo',
  'listZooStream',
  'loadBundle',
  'loadChartLibrary',
  'loadPlan',
  'makeWorkDir',
  'materializeJob',
  'openLedger',
  'parseGateArgs',
  'parsePoint',
  'parseSeedList',
  'parseSeeds',
  'planItems',
  'probeBenchmark',
  'probeBenchmarks',
  'probes',
  'readTensor',
  'recordRun',
  'renderReport',
  'resolveQueueKey',
  'resolveTargets',
  'resolveZoo',
  'runEval',
  'runGate',
  'runLocal',
  'runQueue',
  'scaffoldBenchmark',
  'signatureFingerprint',
  'solutionDigest',
  'startWorker',
  'tensorBytes',
  'verifyBenchmark',
  'verifyBenchmarks',
  'verifyWorkDir',
  'writeExpected',
  'writeReport',
  'writeTensor',
];

/** The names docs/library.md's table "What `arbor` exports" gives: every `identifier` in its second column. */
function documented(text: string): string[] {
  const section = /^### What `arbor` exports\n([\s\S]*?)(?=^#|(?![\s\S]))/m.exec(text)?.[1] ?? '';
  const rows = section.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| from |'));
  const cells = rows.map((row) => row.split(' | ')[1] ?? '');
  return [...new Set(cells.flatMap((cell) => [...cell.matchAll(/`([A-Za-z_$][\w$]*)`/g)].map(([, name]) => name!)))].sort();
}

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe("the library's public API", () => {
  it('the built entry exports exactly the pinned names', () => {
    expect(Object.keys(arbor).sort(byCodeUnit)).toEqual(pinned);
  });

  it('docs/library.md documents exactly the pinned names', () => {
    const doc = readFileSync(path.join(repoRoot, 'docs/library.md'), 'utf8');
    expect(documented(doc).sort(byCodeUnit)).toEqual(pinned);
  });

  it('lib/index.ts names its values one by one: no folder re-exported whole', () => {
    const index = readFileSync(path.join(repoRoot, 'lib/index.ts'), 'utf8');
    expect(index).not.toMatch(/^export \*/m);
  });

  it('reads the doc table: names in the second column only, each once, code spans with other text left out', () => {
    const text = [
      '### What `arbor` exports',
      '',
      '| from | exports |',
      '| --- | --- |',
      '| `lib/a.ts` | `one`, `Two` (with `x: 1`), `one` |',
      '| `lib/b` (`verify --probe`) | `three` (codes `ledger-busy`) |',
      '',
      '## Next',
      '| `lib/c` | `four` |',
    ].join('\n');
    expect(documented(text)).toEqual(['Two', 'one', 'three']);
  });
});
