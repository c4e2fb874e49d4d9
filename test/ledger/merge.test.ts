import {spawn} from 'node:child_process';
import {existsSync, mkdirSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {createRequire} from 'node:module';
import {describe, expect, it} from 'vitest';
import {mergeLedgers, mergedNotes, openLedger, recordRun} from '../../lib/ledger/index.js';
import {repoRoot, tempDir} from '../helpers/cli.js';
import {sampleRecord, sha} from './helpers.js';

function ledgerWith(file: string, scores: number[], name = 'knn'): number[] {
  return scores.map((score) => {
    const outcome = recordRun(file, sampleRecord({benchmark: {path: `/zoo/${name}`, name}, score, interval: [score - 0.1, score + 0.1]}));
    if (!outcome.ok) throw new Error(outcome.warning);
    return outcome.id;
  });
}

function scores(file: string): {name: string; score: number | null; baselineRun: number | null}[] {
  const ledger = openLedger(file, {readonly: true});
  try {
    return ledger.listRuns().reverse().map((run) => ({name: run.benchmark.name, score: run.score, baselineRun: run.compare?.baselineRun ?? null}));
  } finally {
    ledger.close();
  }
}

describe('mergeLedgers', () => {
  it("appends each stray's runs oldest first with new ids, follows a compare's baseline run, keeps the old file as .merged", () => {
    const dir = tempDir();
    const target = path.join(dir, '.arbor', 'runs.db');
    ledgerWith(target, [1, 2]);
    const knn = path.join(dir, 'knn', '.arbor', 'runs.db');
    const [first] = ledgerWith(knn, [3, 4]);
    const compare = recordRun(
      knn,
      sampleRecord({kind: 'compare', score: 5, compare: {verdict: 'better', ratio: 2, interval: [1.9, 2.1], baselineSha256: sha(2), baselineRun: first!}}),
    );
    expect(compare.ok).toBe(true);
    const sumsq = path.join(dir, 'sumsq', '.arbor', 'runs.db');
    ledgerWith(sumsq, [6], 'sumsq');

    const merged = mergeLedgers(target, [knn, sumsq]);
    expect(merged).toEqual([
      {from: knn, runs: 3, keptAs: `${knn}.merged`},
      {from: sumsq, runs: 1, keptAs: `${sumsq}.merged`},
    ]);
    const rows = scores(target);
    expect(rows.map((r) => r.score)).toEqual([1, 2, 3, 4, 5, 6]);
    // The compare's baseline was the stray's run #1, now the target's #3.
    expect(rows[4]!.baselineRun).toBe(3);
    expect(existsSync(knn)).toBe(false);
    expect(existsSync(`${knn}.merged`)).toBe(true);
    expect(scores(`${knn}.merged`).map((r) => r.score)).toEqual([3, 4, 5]);
    expect(mergedNotes(merged, target, dir)).toEqual([
      'note: merged 3 run(s) from knn/.arbor/runs.db into .arbor/runs.db (the old file is kept as knn/.arbor/runs.db.merged)',
      'note: merged 1 run(s) from sumsq/.arbor/runs.db into .arbor/runs.db (the old file is kept as sumsq/.arbor/runs.db.merged)',
    ]);
    // Nothing is left to merge: a second call finds the strays gone.
    expect(mergeLedgers(target, [knn, sumsq])).toEqual([]);
    expect(scores(target)).toHaveLength(6);
  });

  it('leaves a ledger it cannot merge as it was, says why, and merges the others', () => {
    const dir = tempDir();
    const target = path.join(dir, '.arbor', 'runs.db');
    const foreign = path.join(dir, 'other', '.arbor', 'runs.db');
    mkdirSync(path.dirname(foreign), {recursive: true});
    const Driver = createRequire(import.meta.url)('better-sqlite3');
    const db = new Driver(foreign);
    db.exec('CREATE TABLE notes (text TEXT)');
    db.close();
    const good = path.join(dir, 'knn', '.arbor', 'runs.db');
    ledgerWith(good, [1]);
    const merged = mergeLedgers(target, [foreign, good]);
    expect(merged[0]).toMatchObject({from: foreign, runs: 0, problem: expect.stringMatching(/arbor did not create \(tables: notes\)/)});
    expect(merged[1]).toEqual({from: good, runs: 1, keptAs: `${good}.merged`});
    expect(existsSync(foreign)).toBe(true);
    expect(mergedNotes(merged, target, dir)[0]).toMatch(/^warning: the ledger other\/\.arbor\/runs\.db was not merged into \.arbor\/runs\.db, and its runs are not shown: /);
  });

  it('never throws when the target cannot be written: every stray comes back with the reason', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'file'), 'x');
    const stray = path.join(dir, 'knn', '.arbor', 'runs.db');
    ledgerWith(stray, [1]);
    const [outcome] = mergeLedgers(path.join(dir, 'file', '.arbor', 'runs.db'), [stray]);
    expect(outcome).toMatchObject({from: stray, runs: 0, problem: expect.stringMatching(/file\/\.arbor\/runs\.db cannot be used while opening or creating it: ENOTDIR/)});
    expect(existsSync(stray)).toBe(true);
  });

  it('merges a stray once when two processes merge it at the same time', async () => {
    const dir = tempDir();
    const target = path.join(dir, '.arbor', 'runs.db');
    const stray = path.join(dir, 'knn', '.arbor', 'runs.db');
    ledgerWith(stray, Array.from({length: 50}, (_, k) => k + 1));
    const script = `import {mergeLedgers} from ${JSON.stringify(path.join(repoRoot, 'dist/lib/ledger/merge.js'))};
      process.stdout.write(JSON.stringify(mergeLedgers(process.argv[1], [process.argv[2]])));`;
    const run = () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', script, target, stray], {stdio: ['ignore', 'pipe', 'inherit']});
        let out = '';
        child.stdout.on('data', (chunk) => (out += chunk));
        child.on('error', reject);
        child.on('close', () => resolve(out));
      });
    const outcomes = (await Promise.all([run(), run()])).map((out) => JSON.parse(out) as unknown[]);
    expect(outcomes.flat()).toHaveLength(1);
    expect(scores(target)).toHaveLength(50);
  });
});
