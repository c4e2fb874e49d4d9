import {cpSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {openLedger, recordRun, type LedgerRun} from '../../lib/ledger/index.js';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';
import {git, repoWithBenchmark, sampleRecord, sha} from './helpers.js';

/** A repository with zoo/knn (test_budget = 1), a ledger holding five runs, one of them of relu (no folder, so no known budget). */
function populated() {
  const root = tempDir();
  const knn = repoWithBenchmark(root, 'knn', 'test_budget = 1\n');
  const relu = path.join(root, 'zoo', 'relu');
  const file = path.join(root, '.arbor', 'runs.db');
  const add = (overrides: Parameters<typeof sampleRecord>[0]) => {
    const outcome = recordRun(file, sampleRecord({benchmark: {path: knn, name: 'knn'}, ...overrides}));
    if (!outcome.ok) throw new Error(outcome.warning);
    return outcome.id;
  };
  const ids = {
    first: add({time: '2026-03-01T10:00:00.000Z', score: 2.5, interval: [2.25, 2.75], solutionSha256: sha(1)}),
    second: add({
      time: '2026-03-02T10:00:00.000Z',
      score: 1.25,
      interval: null,
      solutionSha256: sha(2),
      solutionLabel: '../fast.py',
      git: {commit: 'b'.repeat(40), dirty: true},
    }),
    test1: add({time: '2026-03-03T10:00:00.000Z', split: 'test', score: 2, solutionSha256: sha(1)}),
    test2: add({time: '2026-03-04T10:00:00.000Z', split: 'test', score: 1.75, solutionSha256: sha(2)}),
    relu: add({time: '2026-03-05T10:00:00.000Z', benchmark: {path: relu, name: 'relu'}, score: 0.5, metric: 'accuracy'}),
  };
  return {root, knn, file, ids};
}

describe('arbor benchmark runs', () => {
  it('prints the summary (best and latest), the runs newest first and the test exposure against the budget', () => {
    const {root, file} = populated();
    const result = runCli(['benchmark', 'runs'], {cwd: root});
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe(`Run ledger ${file}: 5 run(s)`);
    const summary = lines.slice(lines.indexOf('Summary (best and latest eval per benchmark and split):') + 1, lines.indexOf('Runs (newest first):') - 1);
    expect(summary.map((line) => line.trim().split(/\s{2,}/))).toEqual([
      ['knn', 'dev', 'best 2.5 [2.25, 2.75] (#1)', 'latest 1.25 (#2)', '2 run(s)'],
      ['knn', 'test', 'best 2 [1.4, 1.6] (#3)', 'latest 1.75 [1.4, 1.6] (#4)', '2 run(s)'],
      ['relu', 'dev', 'best 0.5 [1.4, 1.6] (#5)', 'latest 0.5 [1.4, 1.6] (#5)', '1 run(s)'],
    ]);
    const runs = lines.slice(lines.indexOf('Runs (newest first):') + 1).filter((line) => /^\s+#\d/.test(line));
    expect(runs.map((line) => line.trim().split(/\s+/)[0])).toEqual(['#5', '#4', '#3', '#2', '#1']);
    expect(runs[3]!.trim().split(/\s{2,}/)).toEqual([
      '#2',
      '2026-03-02 10:00:00Z',
      'knn',
      'dev',
      'eval',
      '1.25',
      'ok',
      '../fast.py',
      `sha ${sha(2).slice(0, 12)}`,
      `${'b'.repeat(10)}+dirty`,
      'env 0123456789abcdef',
    ]);
    expect(result.stdout).toMatch(
      /Test exposure \(distinct solutions scored on test, and every MCP submit_test call; advisory, counted from this ledger only\):\n {2}knn +2 of budget 1 \(over budget\)\n {2}relu +0\n$/,
    );
  });

  it('lists one benchmark folder from the ledger at its repository root, filtered by split', () => {
    const {root, knn, ids} = populated();
    const result = runCli(['benchmark', 'runs', knn, '--split', 'test', '--json'], {cwd: tempDir()});
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {ledger: string; runs: LedgerRun[]; exposure: unknown[]; summary: {benchmark: string; split: string}[]};
    expect(report.ledger).toBe(path.join(root, '.arbor', 'runs.db'));
    expect(report.runs.map((run) => run.id)).toEqual([ids.test2, ids.test1]);
    expect(report.summary.map((s) => [s.benchmark, s.split])).toEqual([['knn', 'test']]);
    expect(report.exposure).toEqual([{benchmark: 'knn', count: 2, budget: 1}]);
  });

  it('gives every field of every run with --json, as the library reads them', () => {
    const {root, file} = populated();
    const result = runCli(['benchmark', 'runs', '--json'], {cwd: root});
    expect(result.code).toBe(0);
    const ledger = openLedger(file, {readonly: true});
    const report = JSON.parse(result.stdout);
    expect(report.runs).toEqual(ledger.listRuns());
    expect(report.runs[0]).toEqual(
      expect.objectContaining({
        time: '2026-03-05T10:00:00.000Z',
        kind: 'eval',
        split: 'dev',
        metric: 'accuracy',
        score: 0.5,
        interval: [1.4, 1.6],
        status: 'ok',
        git: {commit: '1'.repeat(40), dirty: false},
        environment: expect.objectContaining({fingerprint: '0123456789abcdef'}),
        seeds: {source: 'published', count: 2},
        cases: expect.any(Array),
      }),
    );
    expect(report.exists).toBe(true);
    ledger.close();
  });

  it('takes --ledger and ARBOR_LEDGER, --ledger first', () => {
    const dir = tempDir();
    const a = path.join(dir, 'a.db');
    const b = path.join(dir, 'b.db');
    recordRun(a, sampleRecord({benchmark: {path: '/zoo/alpha', name: 'alpha'}}));
    recordRun(b, sampleRecord({benchmark: {path: '/zoo/beta', name: 'beta'}}));
    expect(runCli(['benchmark', 'runs'], {cwd: dir, env: {ARBOR_LEDGER: a}}).stdout).toContain('alpha');
    const both = runCli(['benchmark', 'runs', '--ledger', 'b.db'], {cwd: dir, env: {ARBOR_LEDGER: a}});
    expect(both.stdout).toContain('beta');
    expect(both.stdout).not.toContain('alpha');
  });

  it('says so in one line, exit 0, when there is no ledger yet or it is empty', () => {
    const dir = tempDir();
    const missing = path.join(dir, '.arbor', 'runs.db');
    expect(runCli(['benchmark', 'runs'], {cwd: dir})).toEqual({code: 0, stdout: `No runs recorded in ${missing} (no ledger there yet).\n`, stderr: ''});
    openLedger(path.join(dir, 'empty.db')).close();
    expect(runCli(['benchmark', 'runs', '--ledger', 'empty.db'], {cwd: dir})).toEqual({
      code: 0,
      stdout: `No runs recorded in ${path.join(dir, 'empty.db')}.\n`,
      stderr: '',
    });
    const json = runCli(['benchmark', 'runs', '--json'], {cwd: dir});
    expect(JSON.parse(json.stdout)).toEqual({ledger: missing, exists: false, merged: [], strays: [], summary: [], runs: [], exposure: []});
  });

  it('fails with one line and exit 1 on a corrupt ledger', () => {
    const dir = tempDir();
    const file = path.join(dir, 'runs.db');
    writeFileSync(file, 'not sqlite at all '.repeat(100));
    const result = runCli(['benchmark', 'runs', '--ledger', file], {cwd: dir});
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      new RegExp(`^arbor: run ledger ${file} is corrupt \\(file is not a database\\) while opening it: move it aside to start a new one\\n$`),
    );
  });

  it('refuses an unknown split and an empty benchmark path with exit 2', () => {
    const dir = tempDir();
    const split = runCli(['benchmark', 'runs', '--split', 'train'], {cwd: dir});
    expect(split.code).toBe(2);
    expect(split.stdout).toBe('');
    expect(split.stderr).toContain('train');
    expect(runCli(['benchmark', 'runs', ''], {cwd: dir})).toEqual({
      code: 2,
      stdout: '',
      stderr: 'arbor: The benchmark path is empty, expected a benchmark folder or name\n',
    });
  });

  it('has --help', () => {
    const result = runCli(['benchmark', 'runs', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('arbor benchmark runs [benchmark]');
    expect(result.stdout).toContain('--split');
    expect(result.stdout).toContain('--ledger');
  });
});

describe('recording never dirties the repository', () => {
  it('eval, commit, eval again: the second run is recorded clean, and the .arbor folder never shows in git status', () => {
    const root = tempDir();
    const benchmark = path.join(root, 'abs');
    cpSync(path.join(fixtures, 'eval/accuracy-abs'), benchmark, {recursive: true});
    git(root, 'init', '-q');
    git(root, 'add', '.');
    git(root, 'commit', '-q', '-m', 'baseline');
    expect(runCli(['benchmark', 'eval', benchmark, 'dev', '--quiet'], {cwd: root}).code).toBe(0);
    expect(git(root, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    writeFileSync(path.join(benchmark, 'README.md'), `${readFileSync(path.join(benchmark, 'README.md'), 'utf8')}\nA note.\n`);
    git(root, 'commit', '-q', '-am', 'a note');
    expect(runCli(['benchmark', 'eval', benchmark, 'dev', '--quiet'], {cwd: root}).code).toBe(0);
    const runs = JSON.parse(runCli(['benchmark', 'runs', '--json'], {cwd: root}).stdout).runs as LedgerRun[];
    expect(runs).toHaveLength(2);
    const head = git(root, 'rev-parse', 'HEAD');
    // Newest first: the run after the commit names it, clean.
    expect(runs[0]!.git).toEqual({commit: head, dirty: false});
    expect(runs[1]!.git!.dirty).toBe(false);
    expect(git(root, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  });
});
