/**
 * A ledger file planted in a zoo entry is not history: `runs`, `runs --json`
 * and `report` never read it by themselves (they name it on stderr with the
 * command that imports it), and `runs --merge` imports it only on request,
 * its runs marked imported: listed, never a best or a latest, and its test
 * runs are not this zoo's results. Everything through the CLI.
 */
import {cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {recordRun, schemaVersion, type LedgerRun, type RunRecord, type SplitSummary} from '../../lib/ledger/index.js';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';
import {sampleRecord, sha} from './helpers.js';

interface RunsJson {
  ledger: string;
  merged: {from: string; runs: number; keptAs: string}[];
  strays: string[];
  summary: SplitSummary[];
  runs: LedgerRun[];
  exposure: {benchmark: string; count: number; budget: number | null}[];
}

interface ReportJson {
  ledger: {path: string; runs: number};
  entries: {
    folder: string;
    splits: {split: string; best: {id: number; score: number} | null; latest: {id: number} | null}[];
    history: {id: number; score: number; importedFrom?: string}[];
  }[];
}

/**
 * A zoo (no repository: its ledger is `<zoo>/.arbor/runs.db`) whose honest
 * history of abs-a has a dev best of 0.633 (#2) and one test run of 0.633
 * (#3), and an agent's planted `abs-a/.arbor/runs.db` with a dev eval of 999
 * and a test eval of 0.999, dated later than any honest run, recorded for a
 * folder whose plan says lower is better and a test budget of 1000.
 */
function plantedZoo() {
  const root = tempDir();
  const zoo = path.join(root, 'zoo');
  for (const entry of ['abs-a', 'abs-b']) cpSync(path.join(fixtures, 'run/zoo', entry), path.join(zoo, entry), {recursive: true});
  const entry = path.join(zoo, 'abs-a');
  const record = (file: string, overrides: Partial<RunRecord>) => {
    const outcome = recordRun(file, sampleRecord({benchmark: {path: entry, name: 'run_abs_a'}, metric: 'accuracy', git: null, interval: null, ...overrides}));
    if (!outcome.ok) throw new Error(outcome.warning);
  };
  const ledger = path.join(zoo, '.arbor', 'runs.db');
  record(ledger, {time: '2026-03-01T10:00:00.000Z', score: 0.6, solutionSha256: sha(1)});
  record(ledger, {time: '2026-03-02T10:00:00.000Z', score: 0.633, solutionSha256: sha(1)});
  record(ledger, {time: '2026-03-03T10:00:00.000Z', split: 'test', score: 0.633, solutionSha256: sha(1)});
  const planted = path.join(entry, '.arbor', 'runs.db');
  const elsewhere = path.join(root, 'elsewhere');
  mkdirSync(elsewhere);
  writeFileSync(path.join(elsewhere, 'plan.toml'), 'name = "run_abs_a"\ndirection = "minimize"\ntest_budget = 1000\n');
  const forged = {benchmark: {path: elsewhere, name: 'run_abs_a'}, solutionSha256: sha(9)};
  record(planted, {...forged, time: '2099-01-01T00:00:00.000Z', score: 999, solutionLabel: 'solution.py'});
  record(planted, {...forged, time: '2099-01-02T00:00:00.000Z', split: 'test', score: 0.999});
  return {zoo, ledger, planted, plantedBytes: readFileSync(planted), plantedFolder: readdirSync(path.dirname(planted)).sort()};
}

/** arbor in `cwd` with no ledger override. */
function arbor(cwd: string, ...args: string[]) {
  return runCli(args, {cwd, env: {ARBOR_LEDGER: ''}});
}

const note =
  'arbor: note: abs-a/.arbor/runs.db is another run ledger, not read into .arbor/runs.db (its runs are not shown); to import them, marked as imported: arbor benchmark runs --merge abs-a/.arbor/runs.db\n';

describe('a ledger planted in a zoo entry', () => {
  it('is never read by runs, runs --json or report: they name it on stderr, and the honest best stays', () => {
    const {zoo, ledger, planted, plantedBytes, plantedFolder} = plantedZoo();

    const text = arbor(zoo, 'benchmark', 'runs');
    expect(text.code).toBe(0);
    expect(text.stderr).toBe(note);
    expect(text.stdout).toContain(`Run ledger ${ledger}: 3 run(s)`);
    expect(text.stdout).toMatch(/run_abs_a +dev +best 0\.633 \(#2\) +latest 0\.633 \(#2\) +2 run\(s\)\n/);
    expect(text.stdout).toMatch(/run_abs_a +test +best 0\.633 \(#3\) +latest 0\.633 \(#3\) +1 run\(s\)\n/);
    expect(text.stdout).not.toMatch(/999/);

    const json = arbor(zoo, 'benchmark', 'runs', '--json');
    expect(json.code).toBe(0);
    expect(json.stderr).toBe(note);
    const history = JSON.parse(json.stdout) as RunsJson;
    expect(history.merged).toEqual([]);
    expect(history.strays).toEqual([planted]);
    expect(history.runs.map((run) => [run.id, run.score, run.importedFrom])).toEqual([
      [3, 0.633, null],
      [2, 0.633, null],
      [1, 0.6, null],
    ]);
    expect(history.summary.map((s) => [s.split, s.best?.id, s.latest?.id, s.runs, s.imported])).toEqual([
      ['dev', 2, 2, 2, 0],
      ['test', 3, 3, 1, 0],
    ]);
    expect(history.exposure).toEqual([{benchmark: 'run_abs_a', count: 1, budget: 5}]);

    // From inside the entry the same history, the same note (paths relative to there).
    const inside = arbor(path.join(zoo, 'abs-a'), 'benchmark', 'runs', '--json');
    expect(JSON.parse(inside.stdout).runs).toHaveLength(3);
    expect(inside.stderr).toContain('arbor benchmark runs --merge .arbor/runs.db\n');

    const page = path.join(tempDir(), 'report.html');
    const reported = arbor(zoo, 'benchmark', 'report', '--out', page, '--json');
    expect(reported.code).toBe(0);
    expect(reported.stderr).toBe(`${note}Wrote ${page}: 2 entries, 3 run(s) (ledger ${ledger}).\n`);
    const model = JSON.parse(reported.stdout) as ReportJson;
    const entry = model.entries.find((e) => e.folder === 'abs-a')!;
    expect(entry.splits.map((s) => [s.split, s.best?.score, s.latest?.id])).toEqual([
      ['dev', 0.633, 2],
      ['test', 0.633, 3],
    ]);
    expect(entry.history.map((point) => point.score)).not.toContain(999);

    // The planted file is as it was: not renamed, not migrated, no -wal or -shm beside it.
    expect(readFileSync(planted)).toEqual(plantedBytes);
    expect(readdirSync(path.dirname(planted)).sort()).toEqual(plantedFolder);
  });

  it('is imported by runs --merge, its runs marked: listed, never the best or latest, its test run not a result of this zoo', () => {
    const {zoo, ledger, planted} = plantedZoo();

    const merged = arbor(zoo, 'benchmark', 'runs', '--merge', 'abs-a/.arbor/runs.db', '--json');
    expect(merged.code).toBe(0);
    expect(merged.stderr).toBe(
      "arbor: note: imported 2 run(s) from abs-a/.arbor/runs.db into .arbor/runs.db, marked as imported (listed, never a best or latest; their test runs are not this zoo's results); the file is kept as abs-a/.arbor/runs.db.merged\n",
    );
    const history = JSON.parse(merged.stdout) as RunsJson;
    expect(history.merged).toEqual([{from: planted, runs: 2, keptAs: `${planted}.merged`}]);
    expect(history.strays).toEqual([]);
    expect(history.runs.map((run) => [run.id, run.split, run.score, run.importedFrom])).toEqual([
      [5, 'test', 0.999, planted],
      [4, 'dev', 999, planted],
      [3, 'test', 0.633, null],
      [2, 'dev', 0.633, null],
      [1, 'dev', 0.6, null],
    ]);
    // Later and higher, yet neither the best nor the latest: those stay the runs measured here, and the plan
    // (higher is better, the budget) is the one where this ledger's newest run was made, not the imported run's.
    expect(history.summary.map((s) => [s.split, s.best?.id, s.latest?.id, s.runs, s.imported])).toEqual([
      ['dev', 2, 2, 3, 1],
      ['test', 3, 3, 2, 1],
    ]);
    // The budget counts the solution the other ledger scored on test: the conservative side.
    expect(history.exposure).toEqual([{benchmark: 'run_abs_a', count: 2, budget: 5}]);

    // The text listing marks the imported runs and says what that means; nothing is left to note.
    const text = arbor(zoo, 'benchmark', 'runs');
    expect(text.stderr).toBe('');
    const rows = text.stdout.split('\n').filter((line) => /^\s+#\d/.test(line));
    expect(
      rows.map((line) =>
        line
          .trim()
          .split(/\s{2,}/)
          .at(-1),
      ),
    ).toEqual([
      'imported from abs-a/.arbor/runs.db',
      'imported from abs-a/.arbor/runs.db',
      'env 0123456789abcdef',
      'env 0123456789abcdef',
      'env 0123456789abcdef',
    ]);
    expect(text.stdout).toMatch(/run_abs_a +dev +best 0\.633 \(#2\) +latest 0\.633 \(#2\) +3 run\(s\), 1 imported\n/);
    expect(text.stdout).toContain('never a best or a latest');

    // The report shows the imported points as imported, and its scores are the ones measured here.
    const page = path.join(tempDir(), 'report.html');
    const model = JSON.parse(arbor(zoo, 'benchmark', 'report', '--out', page, '--json').stdout) as ReportJson;
    const entry = model.entries.find((e) => e.folder === 'abs-a')!;
    expect(entry.splits.map((s) => [s.split, s.best?.id, s.latest?.id])).toEqual([
      ['dev', 2, 2],
      ['test', 3, 3],
    ]);
    expect(entry.history.map((point) => [point.id, point.importedFrom ?? null])).toEqual([
      [1, null],
      [2, null],
      [3, null],
      [4, planted],
      [5, planted],
    ]);
    expect(model.ledger).toMatchObject({path: ledger, runs: 5});
  });

  it('refuses a bad --merge with one line and exit 2, and changes neither file', () => {
    const {zoo, ledger, planted} = plantedZoo();
    const notLedger = path.join(zoo, 'abs-a', 'notes.txt');
    writeFileSync(notLedger, 'these are my notes, not a database. '.repeat(40));
    const foreign = path.join(zoo, 'other.db');
    const newer = path.join(zoo, 'newer.db');
    const Driver = createRequire(import.meta.url)('better-sqlite3');
    const db = new Driver(foreign);
    db.exec('CREATE TABLE notes (text TEXT)');
    db.close();
    cpSync(planted, newer);
    const bump = new Driver(newer);
    bump.pragma(`user_version = ${schemaVersion + 1}`);
    bump.close();
    const files = [ledger, planted, notLedger, foreign, newer];
    const before = files.map((file) => readFileSync(file));
    const cases: [string[], string][] = [
      [['--merge', 'abs-a/missing.db'], 'there is no file abs-a/missing.db: name the run ledger to import (an .arbor/runs.db)'],
      [['--merge', 'abs-a'], 'abs-a is not a file: name the run ledger to import (an .arbor/runs.db)'],
      [['--merge', 'abs-a/notes.txt'], 'abs-a/notes.txt is not a run ledger (not a SQLite database, or a damaged one)'],
      [['--merge', 'other.db'], 'other.db is a SQLite database arbor did not create, not a run ledger'],
      [['--merge', 'newer.db'], `newer.db was written by a newer arbor (schema version ${schemaVersion + 1}): upgrade arbor to import it`],
      [['--merge', '.arbor/runs.db'], '.arbor/runs.db is the ledger it would be imported into: name another ledger'],
      [['--merge', ledger, '--json'], '.arbor/runs.db is the ledger it would be imported into: name another ledger'],
      [['--merge', ''], 'the file name is empty, expected the run ledger to import (an .arbor/runs.db)'],
    ];
    for (const [args, why] of cases) {
      expect(arbor(zoo, 'benchmark', 'runs', ...args), args.join(' ')).toEqual({code: 2, stdout: '', stderr: `arbor: --merge: ${why}\n`});
    }
    expect(files.map((file) => readFileSync(file))).toEqual(before);
    // The history is as it was, the planted file still only named.
    const after = arbor(zoo, 'benchmark', 'runs', '--json');
    expect((JSON.parse(after.stdout) as RunsJson).runs).toHaveLength(3);
    expect(after.stderr).toBe(note);
  });

  it('documents --merge in --help', () => {
    const help = runCli(['benchmark', 'runs', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--merge');
    expect(help.stdout).toMatch(/marked as imported/);
    expect(help.stdout).toMatch(/Nothing is ever merged\s+without this option/);
  });
});
