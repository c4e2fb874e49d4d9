import {spawn} from 'node:child_process';
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {createRequire} from 'node:module';
import {describe, expect, it} from 'vitest';
import {LedgerError, ledgerGitignore, openLedger, recordRun, schemaVersion, summarizeRuns, type LedgerRun} from '../../lib/ledger/index.js';
import {tempDir} from '../helpers/cli.js';
import {solutionLabel} from '../../lib/eval/record.js';
import {git, repoWithBenchmark, sampleRecord, sha} from './helpers.js';

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof import('better-sqlite3');

function freshLedger() {
  const file = path.join(tempDir(), 'runs.db');
  const ledger = openLedger(file);
  return {file, ledger};
}

function errorOf(action: () => unknown): LedgerError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(LedgerError);
    return error as LedgerError;
  }
  throw new Error('expected a LedgerError, nothing was thrown');
}

describe('appending and reading runs', () => {
  it('gives back every field of a record, with its id and time', () => {
    const {ledger} = freshLedger();
    const record = sampleRecord({time: '2026-01-02T03:04:05.678Z', git: {commit: 'c'.repeat(40), dirty: true}});
    const id = ledger.appendRun(record);
    expect(ledger.getRun(id)).toEqual({...record, id, solutionLabel: null, labelKind: null, importedFrom: null, compare: null});
    expect(ledger.getRun(id + 1)).toBeNull();
    ledger.close();
  });

  it('stamps the current time when the record has none', () => {
    const {ledger} = freshLedger();
    const before = new Date().toISOString();
    const run = ledger.getRun(ledger.appendRun(sampleRecord()))!;
    expect(run.time >= before && run.time <= new Date().toISOString()).toBe(true);
    expect(run.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('keeps a compare outcome, a null score of a harness error and a missing git state', () => {
    const {ledger} = freshLedger();
    const compare = {verdict: 'better' as const, ratio: 1.25, interval: [1.1, 1.4] as [number, number], baselineSha256: sha(9), baselineRun: 3};
    const a = ledger.appendRun(sampleRecord({kind: 'compare', compare}));
    const b = ledger.appendRun(sampleRecord({status: 'error', score: null, interval: null, git: null, solutionSha256: null}));
    expect(ledger.getRun(a)!.compare).toEqual({...compare, baselineLabel: null});
    expect(ledger.getRun(b)).toMatchObject({status: 'error', score: null, interval: null, git: null, solutionSha256: null, compare: null});
  });

  it('lists newest first, filtered by benchmark name or path, split and kind', () => {
    const {ledger} = freshLedger();
    const knnDev = ledger.appendRun(sampleRecord());
    const other = ledger.appendRun(sampleRecord({benchmark: {path: '/zoo/relu', name: 'relu'}}));
    const knnTest = ledger.appendRun(sampleRecord({split: 'test'}));
    const knnCompare = ledger.appendRun(
      sampleRecord({kind: 'compare', compare: {verdict: 'same', ratio: 1, interval: null, baselineSha256: null, baselineRun: null}}),
    );
    const ids = (runs: LedgerRun[]) => runs.map((run) => run.id);
    expect(ids(ledger.listRuns())).toEqual([knnCompare, knnTest, other, knnDev]);
    expect(ids(ledger.listRuns({benchmark: 'knn'}))).toEqual([knnCompare, knnTest, knnDev]);
    expect(ids(ledger.listRuns({benchmark: '/zoo/knn'}))).toEqual([knnCompare, knnTest, knnDev]);
    expect(ids(ledger.listRuns({benchmark: 'knn', split: 'dev'}))).toEqual([knnCompare, knnDev]);
    expect(ids(ledger.listRuns({kind: 'eval', split: 'dev'}))).toEqual([other, knnDev]);
    expect(ids(ledger.listRuns({limit: 2}))).toEqual([knnCompare, knnTest]);
    const light = ledger.listRuns({withCases: false});
    expect(light.map((run) => run.cases)).toEqual([[], [], [], []]);
    expect(light).toEqual(ledger.listRuns().map((run) => ({...run, cases: []})));
    expect(ledger.listRuns({benchmark: 'nothing'})).toEqual([]);
  });

  it.each([
    ['a NaN score', {score: Number.NaN}, /score NaN/],
    ['an infinite score', {score: Number.POSITIVE_INFINITY}, /score Infinity/],
    ['a null score on a scored run', {score: null}, /score is null but status is ok/],
    ['a reversed interval', {interval: [2, 1] as [number, number]}, /interval \[2,1\]/],
    ['an uppercase digest', {solutionSha256: 'A'.repeat(64)}, /solutionSha256/],
    ['an unknown kind', {kind: 'bench' as 'eval'}, /kind "bench"/],
    ['a relative benchmark path', {benchmark: {path: 'zoo/knn', name: 'knn'}}, /absolute path/],
    ['no fingerprint', {environment: {} as {fingerprint: string}}, /fingerprint/],
    ['a fractional seed count', {seeds: {source: 'published' as const, count: 1.5}}, /seeds.count/],
  ])('refuses %s with ledger-invalid and stores nothing', (_, overrides, message) => {
    const {ledger} = freshLedger();
    const error = errorOf(() => ledger.appendRun(sampleRecord(overrides)));
    expect(error.code).toBe('ledger-invalid');
    expect(error.message).toMatch(message);
    expect(ledger.listRuns()).toEqual([]);
  });
});

/** The runs table as arbor's schema 1 created it (frozen: what older ledgers on disk hold). */
const schemaOne = `CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT, time TEXT NOT NULL, kind TEXT NOT NULL, benchmark_path TEXT NOT NULL, benchmark_name TEXT NOT NULL,
    split TEXT NOT NULL, solution_sha256 TEXT, git_commit TEXT, git_dirty INTEGER, environment TEXT NOT NULL, env_fingerprint TEXT NOT NULL,
    metric TEXT NOT NULL, score REAL, ci_lo REAL, ci_hi REAL, status TEXT NOT NULL, seeds_source TEXT NOT NULL, seeds_count INTEGER NOT NULL,
    cases TEXT NOT NULL, verdict TEXT, ratio REAL, ratio_lo REAL, ratio_hi REAL, baseline_sha256 TEXT, baseline_run INTEGER
  ) STRICT;
  CREATE INDEX runs_by_benchmark ON runs (benchmark_name, split, id);
  PRAGMA user_version = 1;`;

/** A ledger file as schema 1 wrote it: an eval and a compare. */
function schemaOneLedger(): string {
  const file = path.join(tempDir(), 'runs.db');
  const db = new Database(file);
  db.exec(schemaOne);
  const insert =
    db.prepare(`INSERT INTO runs (time, kind, benchmark_path, benchmark_name, split, solution_sha256, git_commit, git_dirty, environment, env_fingerprint,
    metric, score, ci_lo, ci_hi, status, seeds_source, seeds_count, cases, verdict, ratio, ratio_lo, ratio_hi, baseline_sha256, baseline_run)
    VALUES (@time, @kind, '/zoo/knn', 'knn', 'dev', @sha, NULL, NULL, '{"fingerprint":"f"}', 'f', 'speedup', 1.5, NULL, NULL, 'ok', 'published', 2, '[{"i":0}]',
    @verdict, @ratio, NULL, NULL, @baseline, NULL)`);
  insert.run({time: '2026-01-01T00:00:00.000Z', kind: 'eval', sha: sha(1), verdict: null, ratio: null, baseline: null});
  insert.run({time: '2026-01-01T00:01:00.000Z', kind: 'compare', sha: sha(2), verdict: 'better', ratio: 1.5, baseline: sha(1)});
  db.close();
  return file;
}

describe('schema 2: solution labels', () => {
  it("keeps a run's solution label and a compare's baseline label; unknown ones read back as null", () => {
    const {ledger} = freshLedger();
    const compare = {verdict: 'better' as const, ratio: 39, interval: null, baselineSha256: sha(9), baselineRun: null, baselineLabel: 'solution.py'};
    const a = ledger.appendRun(sampleRecord({kind: 'compare', solutionLabel: '../fast.py', compare}));
    const b = ledger.appendRun(sampleRecord({solutionLabel: null}));
    expect(ledger.getRun(a)).toMatchObject({solutionLabel: '../fast.py', compare});
    expect(ledger.getRun(b)).toMatchObject({solutionLabel: null, compare: null});
    expect(ledger.listRuns({withCases: false}).map((run) => [run.solutionLabel, run.compare?.baselineLabel ?? null])).toEqual([
      [null, null],
      ['../fast.py', 'solution.py'],
    ]);
  });

  it('refuses a label that is not a non-empty string', () => {
    const {ledger} = freshLedger();
    expect(errorOf(() => ledger.appendRun(sampleRecord({solutionLabel: ''}))).message).toMatch(/solutionLabel ""/);
    const compare = {verdict: 'same' as const, ratio: 1, interval: null, baselineSha256: null, baselineRun: null, baselineLabel: 3 as unknown as string};
    expect(errorOf(() => ledger.appendRun(sampleRecord({kind: 'compare', compare}))).code).toBe('ledger-invalid');
  });

  it('reads a schema 1 ledger read-only without migrating it: every run, labels null', () => {
    const file = schemaOneLedger();
    const ledger = openLedger(file, {readonly: true});
    const runs = ledger.listRuns();
    expect(runs.map((run) => [run.id, run.kind, run.solutionLabel, run.compare?.baselineLabel])).toEqual([
      [2, 'compare', null, null],
      [1, 'eval', null, undefined],
    ]);
    expect(runs[0]!.compare).toEqual({verdict: 'better', ratio: 1.5, interval: null, baselineSha256: sha(1), baselineRun: null, baselineLabel: null});
    expect(ledger.listRuns({withCases: false}).map((run) => run.cases)).toEqual([[], []]);
    expect(ledger.getRun(1)).toMatchObject({solutionSha256: sha(1), solutionLabel: null, cases: [{i: 0}]});
    expect(ledger.testExposure('knn')).toBe(0);
    ledger.close();
    const db = new Database(file, {readonly: true});
    expect(db.pragma('user_version', {simple: true})).toBe(1);
    db.close();
  });

  it('migrates a schema 1 ledger in place when opened for writing: old runs kept with null labels, new ones labelled', () => {
    const file = schemaOneLedger();
    const outcome = recordRun(file, sampleRecord({solutionLabel: 'solution.py'}));
    expect(outcome).toMatchObject({ok: true, id: 3});
    const db = new Database(file, {readonly: true});
    expect(db.pragma('user_version', {simple: true})).toBe(schemaVersion);
    db.close();
    const ledger = openLedger(file, {readonly: true});
    expect(ledger.listRuns().map((run) => [run.id, run.solutionLabel])).toEqual([
      [3, 'solution.py'],
      [2, null],
      [1, null],
    ]);
    ledger.close();
  });

  it('names a solution by its path from the benchmark folder, absolute when that climbs far', () => {
    const cwd = '/work/repo';
    expect(solutionLabel('zoo/knn', 'zoo/knn/solution.py', cwd)).toBe('solution.py');
    expect(solutionLabel('zoo/knn', 'zoo/fast.py', cwd)).toBe('../fast.py');
    expect(solutionLabel('/work/repo/zoo/knn', 'fast.py', cwd)).toBe('../../fast.py');
    expect(solutionLabel('zoo/knn', '/tmp/workspace/solution.py', cwd)).toBe('/tmp/workspace/solution.py');
    expect(solutionLabel('zoo/knn', 'zoo/knn/variants/', cwd)).toBe('variants');
  });
});

describe('schema 3: imported runs', () => {
  /** A schema 2 ledger as it was on disk: the schema 1 table with the two label columns. */
  function schemaTwoLedger(): string {
    const file = schemaOneLedger();
    const db = new Database(file);
    db.exec(`ALTER TABLE runs ADD COLUMN solution_label TEXT; ALTER TABLE runs ADD COLUMN baseline_label TEXT; PRAGMA user_version = 2;`);
    db.close();
    return file;
  }

  it('reads a schema 2 ledger read-only as it is (every run its own), and migrates it on the next write', () => {
    const file = schemaTwoLedger();
    const readonly = openLedger(file, {readonly: true});
    expect(readonly.listRuns().map((run) => [run.id, run.importedFrom])).toEqual([
      [2, null],
      [1, null],
    ]);
    readonly.close();
    expect(recordRun(file, sampleRecord())).toMatchObject({ok: true, id: 3});
    const db = new Database(file, {readonly: true});
    expect(db.pragma('user_version', {simple: true})).toBe(schemaVersion);
    expect((db.prepare('PRAGMA table_info(runs)').all() as {name: string}[]).map((column) => column.name)).toContain('imported_from');
    db.close();
    const ledger = openLedger(file, {readonly: true});
    expect(ledger.listRuns().map((run) => run.importedFrom)).toEqual([null, null, null]);
    ledger.close();
  });

  it('never marks a recorded run imported, whatever the record says; importRuns marks every run it appends', () => {
    const {ledger} = freshLedger();
    const id = ledger.appendRun({...sampleRecord(), importedFrom: '/elsewhere/runs.db'} as never);
    expect(ledger.getRun(id)!.importedFrom).toBeNull();
    const other = ledger.getRun(id)!;
    expect(ledger.importRuns('/elsewhere/runs.db', () => [other])).toBe(1);
    expect(ledger.listRuns().map((run) => run.importedFrom)).toEqual(['/elsewhere/runs.db', null]);
    // A failure inside the transaction appends nothing.
    expect(() =>
      ledger.importRuns(
        '/elsewhere/runs.db',
        () => [other],
        () => {
          throw new Error('rename failed');
        },
      ),
    ).toThrow(/rename failed/);
    expect(ledger.listRuns()).toHaveLength(2);
    expect(ledger.importRuns('/elsewhere/runs.db', () => null)).toBeNull();
  });
});

describe('schema 4: how a label was made', () => {
  /** A schema 3 ledger as it was on disk, with the labels arbor gave before kinds: the entry's file, a throwaway, a commit. */
  function schemaThreeLedger(): string {
    const file = schemaOneLedger();
    const db = new Database(file);
    db.exec(`ALTER TABLE runs ADD COLUMN solution_label TEXT; ALTER TABLE runs ADD COLUMN baseline_label TEXT;
      ALTER TABLE runs ADD COLUMN imported_from TEXT; PRAGMA user_version = 3;`);
    db.exec(`UPDATE runs SET solution_label = '../wrongkey.py', score = 9 WHERE id = 1; UPDATE runs SET solution_label = 'solution.py' WHERE id = 2;`);
    db.close();
    return file;
  }

  it('reads a schema 3 ledger read-only with its labels and no kinds, migrates it on the next write, and keeps the old labels', () => {
    const file = schemaThreeLedger();
    const readonly = openLedger(file, {readonly: true});
    expect(readonly.listRuns().map((run) => [run.id, run.solutionLabel, run.labelKind])).toEqual([
      [2, 'solution.py', null],
      [1, '../wrongkey.py', null],
    ]);
    readonly.close();
    expect(recordRun(file, sampleRecord({solutionLabel: 'blocked v2', labelKind: 'given'}))).toMatchObject({ok: true, id: 3});
    const ledger = openLedger(file, {readonly: true});
    expect(ledger.listRuns().map((run) => [run.id, run.solutionLabel, run.labelKind])).toEqual([
      [3, 'blocked v2', 'given'],
      [2, 'solution.py', null],
      [1, '../wrongkey.py', null],
    ]);
    ledger.close();
  });

  it('refuses a kind it does not know', () => {
    const {ledger} = freshLedger();
    expect(errorOf(() => ledger.appendRun(sampleRecord({labelKind: 'trusted' as never}))).message).toMatch(
      /labelKind "trusted", expected one of given, commit, entry, file or null/,
    );
    ledger.close();
  });

  it("crowns only a run whose label says what it was: a given label, a commit, the entry's own file; an older run by its label", () => {
    const run = (id: number, score: number, solutionLabel: string | null, labelKind: LedgerRun['labelKind']) =>
      ({...sampleRecord({score}), id, time: `2026-01-01T00:0${id}:00.000Z`, solutionLabel, labelKind, importedFrom: null, compare: null}) as LedgerRun;
    const best = (...runs: LedgerRun[]) => summarizeRuns(runs)[0]!.best?.id ?? null;
    // A throwaway file, now and before kinds were recorded, is never the best, however high it scored.
    expect(best(run(1, 1, 'solution.py@3fa2c1', 'entry'), run(2, 9, '../wrongkey.py@07b1e9', 'file'))).toBe(1);
    expect(best(run(1, 1, 'solution.py', null), run(2, 9, '../wrongkey.py', null), run(3, 8, '/tmp/try.py', null))).toBe(1);
    expect(best(run(1, 1, 'solution.py@3fa2c1', 'entry'), run(2, 2, 'blocked v2', 'given'), run(3, 3, 'commit 1a2b3c4d5e6f (HEAD~1)', 'commit'))).toBe(3);
    // Before kinds, a commit, a path inside the entry and an unknown label count.
    expect(best(run(1, 1, 'commit 1a2b3c4d5e6f', null), run(2, 2, 'variants', null), run(3, 3, null, null))).toBe(3);
    // Only throwaways: no best, the latest still the newest.
    expect(summarizeRuns([run(1, 9, '../a.py@000000', 'file')])[0]).toMatchObject({best: null, latest: {id: 1}});
  });
});

describe('salted test seeds', () => {
  it('drops seed keys from the cases of a run on derived seeds, and keeps other fields', () => {
    const {file, ledger} = freshLedger();
    const secret = 281474976710597;
    const cases = [{i: 0, seed: secret, passed: true, detail: {seeds: [secret], note: 'x'}}];
    const id = ledger.appendRun(sampleRecord({split: 'test', seeds: {source: 'derived', count: 1}, cases}));
    expect(ledger.getRun(id)!.cases).toEqual([{i: 0, passed: true, detail: {note: 'x'}}]);
    expect(ledger.getRun(id)!.seeds).toEqual({source: 'derived', count: 1});
    ledger.close();
    for (const suffix of ['', '-wal']) {
      if (existsSync(file + suffix)) expect(readFileSync(file + suffix).includes(String(secret))).toBe(false);
    }
  });

  it('keeps the seeds of a published split (they are in plan.toml anyway)', () => {
    const {ledger} = freshLedger();
    const id = ledger.appendRun(sampleRecord({cases: [{i: 0, seed: 3}]}));
    expect(ledger.getRun(id)!.cases).toEqual([{i: 0, seed: 3}]);
  });
});

describe('test exposure', () => {
  it('counts distinct solutions scored on test, per benchmark, with compare baselines and without harness errors', () => {
    const {ledger} = freshLedger();
    expect(ledger.testExposure('knn')).toBe(0);
    ledger.appendRun(sampleRecord({split: 'test', solutionSha256: sha(1)}));
    ledger.appendRun(sampleRecord({split: 'test', solutionSha256: sha(1)}));
    ledger.appendRun(sampleRecord({split: 'dev', solutionSha256: sha(2)}));
    expect(ledger.testExposure('knn')).toBe(1);
    ledger.appendRun(sampleRecord({split: 'test', solutionSha256: sha(3), status: 'failed', score: 0}));
    ledger.appendRun(sampleRecord({split: 'test', solutionSha256: sha(4), status: 'error', score: null}));
    expect(ledger.testExposure('knn')).toBe(2);
    const compare = {verdict: 'worse' as const, ratio: 0.8, interval: null, baselineSha256: sha(5), baselineRun: null};
    ledger.appendRun(sampleRecord({kind: 'compare', split: 'test', solutionSha256: sha(1), compare}));
    expect(ledger.testExposure('knn')).toBe(3);
    expect(ledger.testExposure('/zoo/knn')).toBe(3);
    ledger.appendRun(sampleRecord({benchmark: {path: '/zoo/relu', name: 'relu'}, split: 'test', solutionSha256: sha(6)}));
    expect(ledger.testExposure('relu')).toBe(1);
    expect(ledger.testExposure('knn')).toBe(3);
  });
});

describe('the database file', () => {
  it('is in WAL mode with the current schema version', () => {
    const {file, ledger} = freshLedger();
    ledger.close();
    const db = new Database(file, {readonly: true});
    expect(db.pragma('journal_mode', {simple: true})).toBe('wal');
    expect(db.pragma('user_version', {simple: true})).toBe(schemaVersion);
    db.close();
  });

  it("makes the .arbor folder with its own .gitignore, brings up to date the one an earlier arbor wrote, and leaves a user's alone", () => {
    const root = tempDir();
    openLedger(path.join(root, '.arbor', 'runs.db')).close();
    expect(readFileSync(path.join(root, '.arbor', '.gitignore'), 'utf8')).toBe(ledgerGitignore);
    expect(ledgerGitignore.split('\n')).toContain('*');
    const earlier = path.join(root, 'earlier', '.arbor');
    mkdirSync(earlier, {recursive: true});
    writeFileSync(path.join(earlier, '.gitignore'), '# Written by arbor: the run ledger is a local SQLite database, not source.\nruns.db\nruns.db-*\n');
    openLedger(path.join(earlier, 'runs.db')).close();
    expect(readFileSync(path.join(earlier, '.gitignore'), 'utf8')).toBe(ledgerGitignore);
    const other = path.join(root, 'other', '.arbor');
    mkdirSync(other, {recursive: true});
    writeFileSync(path.join(other, '.gitignore'), 'mine\n');
    openLedger(path.join(other, 'runs.db')).close();
    expect(readFileSync(path.join(other, '.gitignore'), 'utf8')).toBe('mine\n');
    openLedger(path.join(root, 'elsewhere', 'ledger.sqlite')).close();
    expect(existsSync(path.join(root, 'elsewhere', '.gitignore'))).toBe(false);
  });

  it('keeps a repository clean: the whole .arbor folder is ignored, its .gitignore too, and the user .gitignore is untouched', () => {
    const root = tempDir();
    const benchmark = repoWithBenchmark(root);
    writeFileSync(path.join(root, '.gitignore'), 'node_modules/\n');
    git(root, 'add', '.gitignore');
    git(root, 'commit', '-q', '-m', 'ignore');
    const outcome = recordRun(path.join(root, '.arbor', 'runs.db'), sampleRecord({benchmark: {path: benchmark, name: 'knn'}}));
    expect(outcome.ok).toBe(true);
    expect(existsSync(path.join(root, '.arbor', 'runs.db'))).toBe(true);
    expect(git(root, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(readFileSync(path.join(root, '.gitignore'), 'utf8')).toBe('node_modules/\n');
  });

  it('refuses a ledger written by a newer arbor', () => {
    const {file, ledger} = freshLedger();
    ledger.close();
    const db = new Database(file);
    db.pragma(`user_version = ${schemaVersion + 1}`);
    db.close();
    expect(errorOf(() => openLedger(file)).code).toBe('ledger-newer');
    expect(errorOf(() => openLedger(file, {readonly: true})).code).toBe('ledger-newer');
  });

  it('refuses a SQLite database that arbor did not create', () => {
    const file = path.join(tempDir(), 'other.db');
    const db = new Database(file);
    db.exec('CREATE TABLE notes (text TEXT)');
    db.close();
    const error = errorOf(() => openLedger(file));
    expect(error.code).toBe('ledger-foreign');
    expect(error.message).toContain('notes');
  });

  it('reports a file that is not a database as corrupt, with its path', () => {
    const file = path.join(tempDir(), 'runs.db');
    writeFileSync(file, 'this is not a database, just text that is long enough to fill a header page. '.repeat(20));
    for (const readonly of [false, true]) {
      const error = errorOf(() => openLedger(file, {readonly}));
      expect(error.code).toBe('ledger-corrupt');
      expect(error.file).toBe(file);
      expect(error.message).toContain(file);
    }
  });

  it('reads an empty SQLite file read-only as an empty ledger', () => {
    const file = path.join(tempDir(), 'runs.db');
    writeFileSync(file, '');
    const ledger = openLedger(file, {readonly: true});
    expect(ledger.listRuns()).toEqual([]);
    expect(ledger.testExposure('knn')).toBe(0);
    ledger.close();
  });

  it('does not create anything when opened read-only', () => {
    const file = path.join(tempDir(), '.arbor', 'runs.db');
    expect(errorOf(() => openLedger(file, {readonly: true})).code).toBe('ledger-unwritable');
    expect(existsSync(path.dirname(file))).toBe(false);
  });
});

describe('recordRun', () => {
  it('appends, closes, and returns the id and the test exposure so far', () => {
    const file = path.join(tempDir(), 'runs.db');
    expect(recordRun(file, sampleRecord())).toEqual({ok: true, path: file, id: 1, testExposure: null});
    expect(recordRun(file, sampleRecord({split: 'test', solutionSha256: sha(1)}))).toEqual({ok: true, path: file, id: 2, testExposure: 1});
    expect(recordRun(file, sampleRecord({split: 'test', solutionSha256: sha(2)}))).toMatchObject({id: 3, testExposure: 2});
  });

  it('turns a corrupt ledger into a warning line instead of throwing, and leaves the file as it was', () => {
    const file = path.join(tempDir(), 'runs.db');
    const garbage = 'garbage '.repeat(200);
    writeFileSync(file, garbage);
    const outcome = recordRun(file, sampleRecord());
    expect(outcome).toEqual({ok: false, path: file, warning: expect.stringMatching(/^warning: the run was not recorded: run ledger .* is corrupt/)});
    expect(outcome.ok || outcome.warning.includes('\n')).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe(garbage);
  });

  it('turns a ledger that cannot be created into a warning (its folder is a file)', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'blocker'), '');
    const outcome = recordRun(path.join(dir, 'blocker', '.arbor', 'runs.db'), sampleRecord());
    expect(outcome).toMatchObject({ok: false, warning: expect.stringContaining('cannot be used')});
  });

  it('maps a write SQLite refuses (a read-only connection) to ledger-unwritable', () => {
    const file = path.join(tempDir(), 'runs.db');
    recordRun(file, sampleRecord());
    const ledger = openLedger(file, {readonly: true});
    const error = errorOf(() => ledger.appendRun(sampleRecord()));
    expect(error.code).toBe('ledger-unwritable');
    expect(error.message).toContain('readonly');
    ledger.close();
  });

  it('gives up with a warning when another connection holds the write lock past the busy timeout', () => {
    const file = path.join(tempDir(), 'runs.db');
    recordRun(file, sampleRecord());
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    try {
      const ledger = openLedger(file, {busyTimeout: 50});
      expect(errorOf(() => ledger.appendRun(sampleRecord())).code).toBe('ledger-busy');
      ledger.close();
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(openLedger(file).listRuns()).toHaveLength(1);
  });
});

describe('two processes at once', () => {
  it('both land every row when two processes create and append to one new ledger at the same time', async () => {
    const file = path.join(tempDir(), '.arbor', 'runs.db');
    const count = 40;
    const child = path.join(import.meta.dirname, 'append-child.mjs');
    const writers = ['alpha', 'beta'].map((name) => {
      const proc = spawn(process.execPath, [child, file, name, String(count)], {stdio: ['pipe', 'pipe', 'pipe']});
      let out = '';
      let err = '';
      proc.stdout.on('data', (chunk: Buffer) => (out += chunk));
      proc.stderr.on('data', (chunk: Buffer) => (err += chunk));
      const ready = new Promise<void>((resolve) => proc.stdout.on('data', () => out.includes('ready') && resolve()));
      const exited = new Promise<{code: number | null; out: string; err: string}>((resolve) => proc.on('close', (code) => resolve({code, out, err})));
      return {proc, ready, exited};
    });
    // Both have opened (and created or migrated) the ledger before either appends; then both go at once.
    await Promise.all(writers.map((w) => w.ready));
    for (const w of writers) w.proc.stdin.write('go\n');
    const results = await Promise.all(writers.map((w) => w.exited));
    for (const result of results) expect(result).toEqual({code: 0, out: 'ready\ndone\n', err: ''});
    const ledger = openLedger(file, {readonly: true});
    const runs = ledger.listRuns();
    expect(runs).toHaveLength(2 * count);
    expect(new Set(runs.map((run) => run.id)).size).toBe(2 * count);
    for (const name of ['alpha', 'beta']) {
      const mine = ledger.listRuns({benchmark: name}).map((run) => run.cases[0]!.n);
      expect(mine.sort((a, b) => Number(a) - Number(b))).toEqual([...Array(count).keys()]);
    }
    ledger.close();
  });
});
