// The best eval per benchmark and split: the highest score, or the lowest where the plan says direction = "minimize".
import {mkdirSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {minimizedBenchmarks, openLedger, readRuns} from '../../lib/ledger/index.js';
import {tempDir} from '../helpers/cli.js';
import {sampleRecord} from './helpers.js';

/** A ledger with three accuracy evals (scores 0.3, 0.1, 0.2) of a benchmark whose plan has `planText`. */
function history(planText: string): {dir: string; file: string} {
  const root = tempDir();
  const dir = path.join(root, 'zoo', 'approx');
  mkdirSync(dir, {recursive: true});
  writeFileSync(path.join(dir, 'plan.toml'), planText);
  const file = path.join(root, 'runs.db');
  const ledger = openLedger(file);
  try {
    for (const score of [0.3, 0.1, 0.2]) ledger.appendRun(sampleRecord({benchmark: {path: dir, name: 'approx'}, metric: 'accuracy', score, interval: null}));
  } finally {
    ledger.close();
  }
  return {dir, file};
}

describe('readRuns summary', () => {
  it('takes the highest score as the best, and the lowest under direction = "minimize"', async () => {
    for (const [plan, best] of [
      ['metric = "accuracy"\n', 0.3],
      ['metric = "accuracy"\ndirection = "minimize"\n', 0.1],
    ] as const) {
      const {dir, file} = history(plan);
      const report = await readRuns({benchmark: dir, ledger: file, cwd: dir});
      expect(report.summary).toHaveLength(1);
      expect(report.summary[0]!.runs).toBe(3);
      expect(report.summary[0]!.best!.score).toBe(best);
      expect(report.summary[0]!.latest!.score).toBe(0.2);
    }
  });

  it('names the benchmarks whose plan says direction = "minimize" (what runs --changes reads)', async () => {
    for (const [plan, want] of [
      ['metric = "accuracy"\n', []],
      ['metric = "accuracy"\ndirection = "minimize"\n', ['approx']],
    ] as const) {
      const {dir, file} = history(plan);
      const report = await readRuns({benchmark: dir, ledger: file, cwd: dir});
      expect([...(await minimizedBenchmarks(report.runs))]).toEqual(want);
    }
  });
});
