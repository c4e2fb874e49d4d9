/** Shared pieces of the report tests: a ledger with eval, calibrate and compare runs over the shipped zoo. */
import path from 'node:path';
import {recordRun, type RunRecord} from '../../lib/ledger/index.js';
import {repoRoot} from '../helpers/cli.js';
import {sampleRecord, sha} from '../ledger/helpers.js';

/** The shipped zoo and its entries, in name order. */
export const shippedZoo = path.join(repoRoot, 'zoo');
export const shippedEntries = ['algotune_knn', 'polymul_negacyclic', 'relu_poly', 'toeplitz_solve'];

/**
 * Write a history into the ledger `file` through the ledger library:
 * algotune_knn has three calibrate runs of the baseline on dev, five evals on
 * dev (one failed), two on test, and two compares; relu_poly has two dev evals
 * without intervals and one that errored; polymul_negacyclic and
 * toeplitz_solve have none; one run belongs to a benchmark outside the zoo.
 */
export function writeHistory(file: string): void {
  let minute = 0;
  const add = (name: string, overrides: Partial<RunRecord>) => {
    const time = new Date(Date.UTC(2026, 2, 1, 10, minute++)).toISOString();
    const outcome = recordRun(file, sampleRecord({time, benchmark: {path: path.join(shippedZoo, name), name}, ...overrides}));
    if (!outcome.ok) throw new Error(outcome.warning);
  };
  for (const score of [0.97, 1.03, 1.0]) add('algotune_knn', {kind: 'calibrate', score, interval: [score - 0.02, score + 0.02], solutionSha256: sha(9)});
  add('algotune_knn', {score: 1.01, interval: [0.98, 1.04], solutionSha256: sha(9)});
  add('algotune_knn', {score: 1.32, interval: [1.27, 1.36], solutionSha256: sha(1)});
  add('algotune_knn', {split: 'test', score: 1.29, interval: [1.22, 1.35], solutionSha256: sha(1)});
  add('algotune_knn', {score: 0, interval: null, status: 'failed', solutionSha256: sha(2)});
  add('algotune_knn', {score: 1.45, interval: [1.4, 1.5], solutionSha256: sha(3)});
  add('algotune_knn', {kind: 'compare', score: 1.45, solutionSha256: sha(3), compare: {verdict: 'better', ratio: 1.43, interval: [1.36, 1.5], baselineSha256: sha(9), baselineRun: null}});
  add('algotune_knn', {split: 'test', score: 1.41, interval: [1.35, 1.47], solutionSha256: sha(3)});
  add('algotune_knn', {kind: 'compare', split: 'test', score: 1.41, solutionSha256: sha(3), compare: {verdict: 'same', ratio: 1.02, interval: [0.97, 1.08], baselineSha256: sha(1), baselineRun: 6}});
  add('algotune_knn', {score: 1.38, interval: [1.33, 1.43], solutionSha256: sha(4)});
  add('relu_poly', {metric: 'accuracy', score: 0.633, interval: null, solutionSha256: sha(5)});
  add('relu_poly', {metric: 'accuracy', score: 0.71, interval: null, solutionSha256: sha(6)});
  add('relu_poly', {metric: 'accuracy', score: null, interval: null, status: 'error', solutionSha256: sha(7)});
  add('not_in_this_zoo', {score: 2});
}
