/** Shared pieces of the report tests: a ledger with eval, calibrate and compare runs over the shipped zoo. */
import {appendFileSync, cpSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {recordRun, type RunRecord} from '../../lib/ledger/index.js';
import {repoRoot} from '../helpers/cli.js';
import {sampleRecord, sha} from '../ledger/helpers.js';

/** The shipped zoo and its entries, in name order (read from the folder, so a new entry needs no edit here). */
export const shippedZoo = path.join(repoRoot, 'zoo');
export const shippedEntries = readdirSync(shippedZoo, {withFileTypes: true})
  .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !e.name.startsWith('_'))
  .map((e) => e.name)
  .sort();

/**
 * Write a history into the ledger `file` through the ledger library, as the
 * issue described it: algotune_knn has three calibrate runs of the baseline
 * (`solution.py`) on dev, a baseline eval, a blocked solution (`../knn_blocked.py`)
 * on dev and test, an edit of solution.py that failed (score 0, another digest
 * under the same name), a 39x solution (`../fast.py`) on dev and test, the
 * baseline evaluated again after it, and two compares (one against a reused
 * ledger run). relu_poly's runs come from before labels were recorded (null
 * labels, two commits) and one errored; polymul_negacyclic and toeplitz_solve
 * have none; one run belongs to a benchmark outside the zoo.
 */
export function writeHistory(file: string): void {
  let minute = 0;
  const add = (name: string, overrides: Partial<RunRecord>) => {
    const time = new Date(Date.UTC(2026, 2, 1, 10, minute++)).toISOString();
    const outcome = recordRun(file, sampleRecord({time, benchmark: {path: path.join(shippedZoo, name), name}, ...overrides}));
    if (!outcome.ok) throw new Error(outcome.warning);
  };
  const baseline = {solutionSha256: sha(9), solutionLabel: 'solution.py'};
  const blocked = {solutionSha256: sha(1), solutionLabel: '../knn_blocked.py'};
  const fast = {solutionSha256: sha(3), solutionLabel: '../fast.py'};
  for (const score of [0.97, 1.03, 1.0]) add('algotune_knn', {kind: 'calibrate', score, interval: [score - 0.02, score + 0.02], ...baseline}); // #1-3
  add('algotune_knn', {score: 1.01, interval: [0.98, 1.04], ...baseline}); // #4
  add('algotune_knn', {score: 1.32, interval: [1.27, 1.36], ...blocked}); // #5
  add('algotune_knn', {split: 'test', score: 1.29, interval: [1.22, 1.35], ...blocked}); // #6
  add('algotune_knn', {
    score: 0,
    interval: null,
    status: 'failed',
    solutionSha256: sha(2),
    solutionLabel: 'solution.py',
    git: {commit: '1'.repeat(40), dirty: true},
  }); // #7
  add('algotune_knn', {score: 39.2, interval: [37.5, 41], ...fast}); // #8
  add('algotune_knn', {
    kind: 'compare',
    score: 39.2,
    ...fast,
    compare: {verdict: 'better', ratio: 38.8, interval: [36.1, 41.5], baselineSha256: sha(9), baselineRun: null, baselineLabel: 'solution.py'},
  }); // #9
  add('algotune_knn', {split: 'test', score: 38.1, interval: [36.2, 40.1], ...fast}); // #10
  add('algotune_knn', {
    kind: 'compare',
    split: 'test',
    score: 38.1,
    ...fast,
    compare: {verdict: 'better', ratio: 29.5, interval: [27.9, 31.2], baselineSha256: sha(1), baselineRun: 6, baselineLabel: 'ledger run #6'},
  }); // #11
  add('algotune_knn', {score: 0.99, interval: [0.96, 1.02], ...baseline}); // #12
  add('relu_poly', {metric: 'accuracy', score: 0.633, interval: null, solutionSha256: sha(5)}); // #13
  add('relu_poly', {metric: 'accuracy', score: 0.71, interval: null, solutionSha256: sha(6), git: {commit: 'abcdef0123'.repeat(4), dirty: false}}); // #14
  add('relu_poly', {metric: 'accuracy', score: null, interval: null, status: 'error', solutionSha256: sha(7)}); // #15
  add('not_in_this_zoo', {score: 2});
}

/** The names the report gives algotune_knn's solutions in `writeHistory`, in order of first run. */
export const knnSolutions = ['solution.py · 99999999', '../knn_blocked.py', 'solution.py · 22222222', '../fast.py'];

/** The entries of `writeNineEntryZoo`, in name order, and the three it breaks. */
export const nineEntries = [
  'algotune_knn',
  'banded_solve',
  'fft_convolve2d',
  'int8_quantize',
  'modmatmul',
  'ntt_forward',
  'poly_approx_depth',
  'polymul_negacyclic',
  'relu_poly',
];
export const nineFailing = ['banded_solve', 'int8_quantize', 'ntt_forward'];

/**
 * A zoo of nine shipped entries copied into `zoo`, three of them failing
 * verify: banded_solve without its README.md, int8_quantize with a plan.toml
 * that is not TOML, ntt_forward with an empty README.md and no PROVENANCE.md
 * (two errors, so its full text is longer than its first finding).
 */
export function writeNineEntryZoo(zoo: string): void {
  for (const entry of nineEntries) cpSync(path.join(shippedZoo, entry), path.join(zoo, entry), {recursive: true});
  rmSync(path.join(zoo, 'banded_solve', 'README.md'));
  appendFileSync(path.join(zoo, 'int8_quantize', 'plan.toml'), 'metric = \n');
  writeFileSync(path.join(zoo, 'ntt_forward', 'README.md'), '');
  rmSync(path.join(zoo, 'ntt_forward', 'PROVENANCE.md'));
}
