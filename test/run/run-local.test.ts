/**
 * `arbor benchmark run` without a queue: every entry of a small fixture zoo
 * evaluated here (real sandboxed evals, each in a process that holds neither
 * the test salt nor the queue key), a failing entry reported without
 * stopping the run, the summary table, `--json` and the ledger.
 */
import {readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {openLedger} from '../../lib/ledger/index.js';
import {runDisplay} from '../../lib/run/progress.js';
import type {RunResult} from '../../lib/run/result.js';
import type {RunItem} from '../../lib/run/targets.js';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';

const zoo = path.join(fixtures, 'run/zoo');
const crash = path.join(fixtures, 'eval/solutions/crash.py');

/** Splits a table row into its cells (two or more spaces apart). */
const cells = (line: string) => line.trim().split(/\s{2,}/);

describe('arbor benchmark run (local)', () => {
  it('evaluates every entry of a zoo, goes on past a failing one, prints the table, writes --json and the ledger, exit 1', () => {
    const dir = tempDir();
    const ledger = path.join(dir, 'runs.db');
    const json = path.join(dir, 'results.json');
    const spy = path.join(dir, 'spy.jsonl');
    // abs-a's generator writes what of the secrets its process sees to the spy file: the eval runs in a child that gets neither.
    const env = {ARBOR_LEDGER: ledger, ARBOR_RUN_SPY: spy, ARBOR_TEST_SALT: 'local-salt', ARBOR_QUEUE_KEY: 'k'.repeat(64)};
    const result = runCli(['benchmark', 'run', 'test/fixtures/run/zoo', '--solution', `abs-b=${crash}`, '--json-file', json], {env});
    expect(result.code, result.stderr).toBe(1);
    const seen = readFileSync(spy, 'utf8').trim().split('\n');
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const line of seen) expect(JSON.parse(line)).toEqual({salt: null, key: null, keyFile: null});

    // The table: one row per entry with a plan (not _draft, not notes), in name order, then why the others did not score.
    const lines = result.stdout.split('\n');
    expect(cells(lines[0]!)).toEqual(['entry', 'split', 'score', 'interval', 'status']);
    expect(lines.slice(1, 4).map(cells)).toEqual([
      ['abs-a', 'dev', '0.199', '–', 'ok'],
      ['abs-b=crash.py', 'dev', '0', '–', 'failed'],
      ['broken', 'dev', '–', '–', 'error'],
    ]);
    expect(result.stdout).toContain('abs-b=crash.py dev: failed: case 0: crashed (RuntimeError: boom) at crash.py:5: `raise RuntimeError("boom")`\n');
    expect(result.stdout).toMatch(/broken dev: error: .*plan\.toml: line 5: unknown key "repetitons"/);
    expect(result.stdout).toMatch(/\n1 of 3 eval\(s\) scored \(1 failed, 1 without a score\) in \d+\.\d s\n$/);
    expect(result.stdout).not.toContain('_draft');

    // Progress on stderr (not a terminal: plain lines), with the count, the entry and the eval's own steps.
    expect(result.stderr).toContain('skipped 1 folder(s) without a plan.toml: test/fixtures/run/zoo/notes');
    expect(result.stderr).toContain('abs-a dev: point 1/1 {"M":1000}: solution returned 2/2 case(s) in time');
    expect(result.stderr).toMatch(/\[1\/3\] abs-a dev: score 0\.199 ok · \d+:\d\d elapsed, ~\d+:\d\d left/);
    expect(result.stderr).toMatch(/\[3\/3\] broken dev: error: /);
    expect(result.stderr).not.toContain('\r');

    // --json: every result, with its ledger id and environment fingerprint.
    const document = JSON.parse(readFileSync(json, 'utf8')) as {mode: string; counts: Record<string, number>; results: RunResult[]};
    expect(document.mode).toBe('local');
    expect(document.counts).toEqual({ok: 1, failed: 1, error: 1});
    const [a, b, broken] = document.results;
    expect(a).toMatchObject({
      benchmark: 'run_abs_a',
      entry: 'abs-a',
      path: 'test/fixtures/run/zoo/abs-a',
      split: 'dev',
      solution: null,
      score: 0.199,
      ci: null,
      status: 'ok',
    });
    expect(a!.environment).toMatch(/^[0-9a-f]{16}$/);
    expect(b).toMatchObject({
      benchmark: 'run_abs_b',
      solution: crash,
      score: 0,
      status: 'failed',
      failure: 'case 0: crashed (RuntimeError: boom) at crash.py:5: `raise RuntimeError("boom")`',
    });
    expect(broken).toMatchObject({benchmark: 'broken', score: null, status: 'error', environment: null});
    expect(broken!.runId).toBeUndefined();

    // The ledger holds the two scored evals, under the ids --json names.
    const runs = openLedger(ledger, {readonly: true}).listRuns();
    expect(runs.map((run) => [run.id, run.benchmark.name, run.split, run.score, run.status]).sort()).toEqual([
      [a!.runId, 'run_abs_a', 'dev', 0.199, 'ok'],
      [b!.runId, 'run_abs_b', 'dev', 0, 'failed'],
    ]);
    expect(runs.find((run) => run.id === a!.runId)!.environment.fingerprint).toBe(a!.environment);
  });

  it('exit 0 when every named benchmark scored; never loads bullmq or ioredis', () => {
    const dir = tempDir();
    const trap = path.join(dir, 'trap.cjs');
    // Reports at exit whether the queue's libraries were loaded in this process.
    writeFileSync(
      trap,
      "process.on('exit', () => { if (Object.keys(require.cache).some((f) => /node_modules[\\\\/](bullmq|ioredis)[\\\\/]/.test(f))) process.stderr.write('QUEUE LIBRARIES LOADED\\n'); });\n",
    );
    const result = runCli(['benchmark', 'run', path.join(zoo, 'abs-a'), '--quiet'], {
      env: {ARBOR_LEDGER: path.join(dir, 'runs.db'), NODE_OPTIONS: `--require ${trap}`},
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(cells(result.stdout.split('\n')[1]!)).toEqual(['abs-a', 'dev', '0.199', '–', 'ok']);
  });

  it.each([
    [['--split', 'prod'], /^arbor: --split prod: unknown split, expected dev or test\n$/],
    [['--solution', 'nope=x.py'], /^arbor: --solution nope=x\.py: no entry named nope in this run \(entries: abs-a, abs-b, broken\)\n$/],
    [['--solution', 'abs-a'], /^arbor: --solution abs-a: expected ENTRY=FILE/],
    [['--solution', 'abs-a=missing.py'], /^arbor: --solution abs-a=missing\.py: missing\.py is not a file\n$/],
    [['--queue', 'http://localhost'], /^arbor: --queue http:\/\/localhost: unsupported scheme http, expected redis:\/\/HOST:PORT\[\/DB\]/],
    [['--queue', 'redis://127.0.0.1:1/x'], /^arbor: --queue redis:\/\/127\.0\.0\.1:1\/x: database "x" is not a number/],
    [['--queue', 'redis://127.0.0.1:1', '--unsandboxed'], /^arbor: --unsandboxed does not travel with --queue/],
    [['--json-file', '/nonexistent/out.json'], /^arbor: --json-file \/nonexistent\/out\.json: `\/nonexistent` does not exist/],
  ])('bad usage %j: one line, exit 2, nothing run', (extra, message) => {
    const result = runCli(['benchmark', 'run', 'test/fixtures/run/zoo', ...extra], {env: {ARBOR_LEDGER: path.join(tempDir(), 'runs.db')}});
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
  });

  it('a folder that is neither a benchmark nor a zoo of them: exit 2', () => {
    const missing = runCli(['benchmark', 'run', 'test/fixtures/run/no-such-zoo']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('arbor: test/fixtures/run/no-such-zoo does not exist: pass a zoo folder or benchmark folders holding plan.toml\n');
    const notes = runCli(['benchmark', 'run', 'test/fixtures/run/zoo/notes']);
    expect(notes.code).toBe(2);
    expect(notes.stderr).toBe(
      'arbor: test/fixtures/run/zoo/notes holds no plan.toml and no subfolder with one: pass a zoo or benchmark folders holding plan.toml\n',
    );
  });
});

describe('the progress display', () => {
  const target = {entry: 'knn', dir: '/zoo/knn', shown: 'zoo/knn'};
  const item: RunItem = {index: 0, target, split: 'dev'};
  const result: RunResult = {
    benchmark: 'knn',
    entry: 'knn',
    path: 'zoo/knn',
    split: 'dev',
    solution: null,
    score: 2.5,
    ci: [2.25, 2.75],
    status: 'ok',
    environment: 'f',
    seconds: 3,
  };

  it('on a terminal redraws one status line (count, clock, estimate, entry and step) and scrolls finished steps above it', () => {
    let written = '';
    let clock = 0;
    const display = runDisplay({write: (text: string) => (written += text), isTTY: true, columns: 200}, {total: 2, now: () => clock, tty: true});
    display.onEvent({type: 'start', item});
    display.onEvent({type: 'progress', item, kind: 'status', text: 'point 1/1: solution'});
    expect(written).toBe('[0/2 · 0:00] knn dev\r\x1b[K[0/2 · 0:00] knn dev: point 1/1: solution');
    written = '';
    clock = 30_000;
    display.onEvent({type: 'finish', item, result, warnings: []});
    expect(written).toBe('\r\x1b[K[1/2] knn dev: score 2.5 [2.25, 2.75] ok · 0:30 elapsed, ~0:30 left\n[1/2 · 0:30 · ~0:30 left]');
    written = '';
    display.onEvent({type: 'start', item: {...item, index: 1, split: 'test'}});
    display.onEvent({type: 'start', item: {...item, index: 2, target: {...target, entry: 'relu'}}});
    expect(written).toBe('\r\x1b[K[1/2 · 0:30 · ~0:30 left] knn test\r\x1b[K[1/2 · 0:30 · ~0:30 left] knn test (+1 more running)');
    written = '';
    display.done();
    expect(written).toBe('\r\x1b[K');
  });

  it('elsewhere prints plain lines only, and nothing at all when quiet', () => {
    let written = '';
    const display = runDisplay({write: (text: string) => (written += text)}, {total: 1, now: () => 0, tty: false});
    display.onEvent({type: 'start', item, worker: 'host:1'});
    display.onEvent({type: 'progress', item, kind: 'status', text: 'transient'});
    display.onEvent({type: 'progress', item, kind: 'line', text: 'point 1/1: done'});
    display.onEvent({
      type: 'finish',
      item,
      result: {...result, status: 'error', score: null, ci: null, failure: 'no python'},
      warnings: ['warning: not recorded'],
    });
    display.done();
    expect(written).toBe(
      'knn dev: started on host:1\nknn dev: point 1/1: done\nknn dev: warning: not recorded\n[1/1] knn dev: error: no python · 0:00 elapsed, ~0:00 left\n',
    );
    let quiet = '';
    const silent = runDisplay({write: (text: string) => (quiet += text), isTTY: true}, {total: 1, quiet: true, tty: true});
    silent.onEvent({type: 'start', item});
    silent.onEvent({type: 'finish', item, result, warnings: []});
    silent.done();
    expect(quiet).toBe('');
  });
});
