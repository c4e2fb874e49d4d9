import {spawn} from 'node:child_process';
import {existsSync, mkdirSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {createRequire} from 'node:module';
import {describe, expect, it} from 'vitest';
import {importLedger, lineagesOf, mergedNote, openLedger, recordRun, strayNotes, summarizeRuns} from '../../lib/ledger/index.js';
import {repoRoot, tempDir} from '../helpers/cli.js';
import {sampleRecord, sha} from './helpers.js';

function ledgerWith(file: string, scores: number[], name = 'knn'): number[] {
  return scores.map((score) => {
    const outcome = recordRun(file, sampleRecord({benchmark: {path: `/zoo/${name}`, name}, score, interval: [score - 0.1, score + 0.1]}));
    if (!outcome.ok) throw new Error(outcome.warning);
    return outcome.id;
  });
}

function scores(file: string): {name: string; score: number | null; baselineRun: number | null; importedFrom: string | null}[] {
  const ledger = openLedger(file, {readonly: true});
  try {
    return ledger
      .listRuns()
      .reverse()
      .map((run) => ({name: run.benchmark.name, score: run.score, baselineRun: run.compare?.baselineRun ?? null, importedFrom: run.importedFrom}));
  } finally {
    ledger.close();
  }
}

describe('importLedger', () => {
  it("appends the runs oldest first with new ids, marked imported, follows a compare's baseline run, keeps the old file as .merged", () => {
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

    const merged = importLedger(target, knn);
    expect(merged).toEqual({from: knn, runs: 3, keptAs: `${knn}.merged`});
    const rows = scores(target);
    expect(rows.map((r) => [r.score, r.importedFrom])).toEqual([
      [1, null],
      [2, null],
      [3, knn],
      [4, knn],
      [5, knn],
    ]);
    // The compare's baseline was the stray's run #1, now the target's #3.
    expect(rows[4]!.baselineRun).toBe(3);
    // The file is kept, whole, and no longer where a ledger is looked for; no -wal or -shm is left behind.
    expect(existsSync(knn)).toBe(false);
    expect(['-wal', '-shm'].filter((suffix) => existsSync(knn + suffix))).toEqual([]);
    expect(scores(`${knn}.merged`).map((r) => [r.score, r.importedFrom])).toEqual([
      [3, null],
      [4, null],
      [5, null],
    ]);
    expect(mergedNote(merged, target, dir)).toBe(
      "note: imported 3 run(s) from knn/.arbor/runs.db into .arbor/runs.db, marked as imported (listed, never a best or latest; their test runs are not this zoo's results); the file is kept as knn/.arbor/runs.db.merged",
    );
    // A second import of the same name finds it gone, and a file arbor renamed is not taken again.
    expect(() => importLedger(target, knn)).toThrow(/^--merge: there is no file /);
    expect(() => importLedger(target, `${knn}.merged`)).toThrow(/already merged or imported/);
    expect(scores(target)).toHaveLength(5);
  });

  it('never replaces an earlier .merged file: the next free name is taken', () => {
    const dir = tempDir();
    const target = path.join(dir, '.arbor', 'runs.db');
    const knn = path.join(dir, 'knn', '.arbor', 'runs.db');
    ledgerWith(knn, [1]);
    writeFileSync(`${knn}.merged`, 'an earlier one\n');
    expect(importLedger(target, knn)).toEqual({from: knn, runs: 1, keptAs: `${knn}.merged.2`});
    expect(existsSync(`${knn}.merged`)).toBe(true);
  });

  it('an imported run is never the best or the latest, and never in a series', () => {
    const dir = tempDir();
    const target = path.join(dir, '.arbor', 'runs.db');
    ledgerWith(target, [1, 1, 1]);
    const stray = path.join(dir, 'knn', '.arbor', 'runs.db');
    ledgerWith(stray, [999, 999, 999]);
    importLedger(target, stray);
    const ledger = openLedger(target, {readonly: true});
    const runs = ledger.listRuns();
    ledger.close();
    const [summary] = summarizeRuns(runs);
    expect(summary).toMatchObject({runs: 6, imported: 3, best: {id: 3, score: 1}, latest: {id: 3, score: 1}});
    expect(lineagesOf(runs).map((lineage) => lineage.runs.map((run) => run.id))).toEqual([
      [1, 2, 3],
      [1, 2, 3],
    ]);
  });

  it('refuses a source that is not a ledger it can import, and writes neither file', () => {
    const dir = tempDir();
    const target = path.join(dir, '.arbor', 'runs.db');
    const foreign = path.join(dir, 'other', '.arbor', 'runs.db');
    mkdirSync(path.dirname(foreign), {recursive: true});
    const Driver = createRequire(import.meta.url)('better-sqlite3');
    const db = new Driver(foreign);
    db.exec('CREATE TABLE notes (text TEXT)');
    db.close();
    expect(() => importLedger(target, foreign, {cwd: dir})).toThrow(
      '--merge: other/.arbor/runs.db is a SQLite database arbor did not create, not a run ledger',
    );
    expect(existsSync(foreign)).toBe(true);
    expect(existsSync(target)).toBe(false);
    expect(() => importLedger(target, target)).toThrow(/^--merge: there is no file /);
    ledgerWith(target, [1]);
    expect(() => importLedger(target, target, {cwd: dir})).toThrow('--merge: .arbor/runs.db is the ledger it would be imported into: name another ledger');
    expect(scores(target)).toHaveLength(1);
  });

  it('refuses a ledger holding a run arbor would not record, importing none of its runs', () => {
    const dir = tempDir();
    const target = path.join(dir, '.arbor', 'runs.db');
    ledgerWith(target, [1]);
    const stray = path.join(dir, 'knn', '.arbor', 'runs.db');
    ledgerWith(stray, [2, 3]);
    const Driver = createRequire(import.meta.url)('better-sqlite3');
    const db = new Driver(stray);
    db.exec("UPDATE runs SET kind = 'forged' WHERE id = 2");
    db.close();
    expect(() => importLedger(target, stray, {cwd: dir})).toThrow(
      /^--merge: knn\/\.arbor\/runs\.db holds a run arbor would not record \(kind "forged", expected one of eval, compare, calibrate\): nothing was imported$/,
    );
    expect(scores(target)).toHaveLength(1);
    expect(existsSync(stray)).toBe(true);
  });

  it('throws a LedgerError when the target cannot be written, and leaves the source where it was', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'file'), 'x');
    const stray = path.join(dir, 'knn', '.arbor', 'runs.db');
    ledgerWith(stray, [1]);
    expect(() => importLedger(path.join(dir, 'file', '.arbor', 'runs.db'), stray)).toThrow(
      /file\/\.arbor\/runs\.db cannot be used while opening or creating it: ENOTDIR/,
    );
    expect(existsSync(stray)).toBe(true);
  });

  it('names a stray ledger with the command that imports it, on one line even when its path holds a newline', () => {
    const dir = tempDir();
    expect(strayNotes([path.join(dir, 'knn', '.arbor', 'runs.db')], path.join(dir, '.arbor', 'runs.db'), dir)).toEqual([
      'note: knn/.arbor/runs.db is another run ledger, not read into .arbor/runs.db (its runs are not shown); to import them, marked as imported: arbor benchmark runs --merge knn/.arbor/runs.db',
    ]);
    const [odd] = strayNotes([path.join(dir, 'a b\nnote: fake', '.arbor', 'runs.db')], path.join(dir, '.arbor', 'runs.db'), dir);
    expect(odd).not.toContain('\n');
    expect(odd).toContain('--merge "a b\\nnote: fake/.arbor/runs.db"');
    expect(strayNotes([path.join(dir, "it's", '.arbor', 'runs.db')], path.join(dir, '.arbor', 'runs.db'), dir)[0]).toMatch(
      /--merge 'it'\\''s\/\.arbor\/runs\.db'$/,
    );
  });

  it('imports a ledger once when two processes import it at the same time', async () => {
    const dir = tempDir();
    const target = path.join(dir, '.arbor', 'runs.db');
    const stray = path.join(dir, 'knn', '.arbor', 'runs.db');
    ledgerWith(
      stray,
      Array.from({length: 50}, (_, k) => k + 1),
    );
    const script = `import {importLedger} from ${JSON.stringify(path.join(repoRoot, 'dist/lib/ledger/merge.js'))};
      try { process.stdout.write(JSON.stringify(importLedger(process.argv[1], process.argv[2]))); } catch (error) { process.stdout.write(JSON.stringify({error: error.message})); }`;
    const run = () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', script, target, stray], {stdio: ['ignore', 'pipe', 'inherit']});
        let out = '';
        child.stdout.on('data', (chunk) => (out += chunk));
        child.on('error', reject);
        child.on('close', () => resolve(out));
      });
    const outcomes = (await Promise.all([run(), run()])).map((out) => JSON.parse(out) as {runs?: number; error?: string});
    expect(outcomes.filter((outcome) => outcome.runs === 50)).toHaveLength(1);
    // The other finds the file gone, or (under load, while the first still reads it) locked: either way it imports nothing.
    expect(outcomes.filter((outcome) => outcome.error)).toEqual([
      {error: expect.stringMatching(/^--merge: there is no file .*(any more)?|stayed locked by another process while reading it to import it/)},
    ]);
    expect(scores(target)).toHaveLength(50);
  });
});
