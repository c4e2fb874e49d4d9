/**
 * One history per zoo, through the CLI as a user drives it: eval, compare,
 * calibrate and run all record into the zoo's one ledger, `runs` and the
 * report read that ledger, a ledger an earlier arbor kept per benchmark is
 * named (never read by itself) and imported on request (`runs --merge`), and
 * so are the runs recorded before `git init`.
 * Every command here also prints `--json` on stdout (one JSON document) with
 * its messages on stderr, the convention `cli.test.ts` checks across commands.
 */
import {cpSync, existsSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {recordRun} from '../../lib/ledger/index.js';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';
import {git, sampleRecord} from './helpers.js';

interface RunsJson {
  ledger: string;
  exists: boolean;
  merged: {from: string; runs: number; keptAs: string}[];
  strays: string[];
  runs: {kind: string; benchmark: {name: string}; split: string; git: {commit: string; dirty: boolean} | null; importedFrom: string | null}[];
}

/** Run arbor in `cwd` with no ledger override; with `--json`, stdout must be one JSON document. */
function arbor(cwd: string, args: string[]) {
  const result = runCli(args, {cwd, env: {ARBOR_LEDGER: ''}});
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
  return {...result, json: args.includes('--json') ? (JSON.parse(result.stdout) as Record<string, unknown>) : null};
}

describe('one history per zoo', () => {
  it('records eval, compare, calibrate and run into the zoo ledger, names old ledgers, and imports them and the runs made before git init on request', () => {
    const root = tempDir();
    const zoo = path.join(root, 'my-zoo');
    for (const entry of ['abs-a', 'abs-b']) cpSync(path.join(fixtures, 'run/zoo', entry), path.join(zoo, entry), {recursive: true});
    // A ledger an earlier arbor kept inside one benchmark (one per benchmark outside a repository).
    const old = path.join(zoo, 'abs-b', '.arbor', 'runs.db');
    const recorded = recordRun(old, sampleRecord({benchmark: {path: path.join(zoo, 'abs-b'), name: 'run_abs_b'}, metric: 'accuracy', git: null}));
    expect(recorded.ok).toBe(true);

    // Nine runs of four kinds, from inside the zoo.
    const evaluated = arbor(zoo, ['benchmark', 'eval', 'abs-a', 'dev', '--json', '--quiet']);
    expect(evaluated.json).toMatchObject({name: 'run_abs_a', split: 'dev', score: 0.199});
    expect(evaluated.stderr).toContain('score: 0.199\n');
    const report = path.join(root, 'abs-b.json');
    expect(arbor(zoo, ['benchmark', 'eval', 'abs-b', 'dev', '--json-file', report, '--quiet']).stdout).toBe('score: 0.199\n');
    expect(JSON.parse(readFileSync(report, 'utf8'))).toMatchObject({name: 'run_abs_b', score: 0.199});
    arbor(zoo, ['benchmark', 'eval', 'abs-b', 'test', '--quiet']);
    const compared = arbor(zoo, ['benchmark', 'compare', 'abs-a', 'abs-a/solution.py', 'abs-a/solution.py', '--json', '--quiet']);
    expect(compared.json).toMatchObject({verdict: 'same'});
    expect(compared.stderr).toMatch(/same/);
    const calibrated = arbor(zoo, ['benchmark', 'calibrate', 'abs-b', '--runs', '2', '--json', '--quiet']);
    expect(calibrated.json).toMatchObject({runs: 2});
    // `run` with no zoo inside a zoo: this folder.
    const ran = arbor(zoo, ['benchmark', 'run', '--split', 'dev', '--split', 'test', '--json', '--quiet']);
    expect((ran.json as {results: {entry: string; split: string}[]}).results.map((r) => `${r.entry} ${r.split}`).sort()).toEqual([
      'abs-a dev',
      'abs-a test',
      'abs-b dev',
      'abs-b test',
    ]);
    expect(ran.stderr).toMatch(/4 of 4 eval\(s\) scored/);

    // One ledger, in the zoo: the ten runs, and the old ledger in abs-b imported on request (never by itself:
    // planted.test.ts), marked as imported; the old file is kept as .merged.
    const zooLedger = path.join(zoo, '.arbor', 'runs.db');
    const fromZoo = arbor(zoo, ['benchmark', 'runs', '--merge', 'abs-b/.arbor/runs.db', '--json']);
    const history = fromZoo.json as unknown as RunsJson;
    expect(history.ledger).toBe(zooLedger);
    expect(history.merged).toEqual([{from: old, runs: 1, keptAs: `${old}.merged`}]);
    expect(history.strays).toEqual([]);
    expect(fromZoo.stderr).toMatch(/^arbor: note: imported 1 run\(s\) from abs-b\/\.arbor\/runs\.db into \.arbor\/runs\.db, marked as imported .*\n$/);
    expect(existsSync(old)).toBe(false);
    // eval ×3, compare, calibrate ×2, run ×4 (recorded as evals), and the imported one.
    expect(history.runs.map((r) => r.kind).sort()).toEqual(['calibrate', 'calibrate', 'compare', ...Array(8).fill('eval')]);
    expect(history.runs.filter((r) => r.importedFrom !== null)).toEqual([expect.objectContaining({kind: 'eval', importedFrom: old})]);
    expect(existsSync(path.join(zoo, 'abs-a', '.arbor'))).toBe(false);
    const fromBenchmark = arbor(path.join(zoo, 'abs-a'), ['benchmark', 'runs', '--json']).json as unknown as RunsJson;
    expect(fromBenchmark.ledger).toBe(zooLedger);
    expect(fromBenchmark.runs).toHaveLength(11);
    const fromParent = arbor(root, ['benchmark', 'runs', 'my-zoo/abs-a', '--json']).json as unknown as RunsJson;
    expect(fromParent.ledger).toBe(zooLedger);
    expect(new Set(fromParent.runs.map((r) => r.benchmark.name))).toEqual(new Set(['run_abs_a']));
    const page = path.join(tempDir(), 'report.html');
    const reported = arbor(zoo, ['benchmark', 'report', '--out', page, '--json']);
    expect(reported.json).toMatchObject({ledger: {path: zooLedger, exists: true, runs: 11, otherRuns: 0}});
    expect(reported.stderr).toContain(`Wrote ${page}: 2 entries, 11 run(s) (ledger ${zooLedger}).`);

    // git init above the zoo: the repository's root holds the ledger now, and every earlier run is still there.
    writeFileSync(path.join(root, 'README.md'), 'zoo\n');
    git(root, 'init', '-q');
    git(root, 'add', '.');
    git(root, 'commit', '-q', '-m', 'zoo');
    const head = git(root, 'rev-parse', 'HEAD');
    arbor(zoo, ['benchmark', 'eval', 'abs-a', 'dev', '--quiet']);
    const rootLedger = path.join(root, '.arbor', 'runs.db');
    const after = arbor(zoo, ['benchmark', 'runs', '--json']);
    expect(after.json).toMatchObject({ledger: rootLedger, merged: [], strays: [zooLedger]});
    expect((after.json as unknown as RunsJson).runs).toHaveLength(1);
    expect(after.stderr).toContain(
      `is another run ledger, not read into ${rootLedger} (its runs are not shown); to import them, marked as imported: arbor benchmark runs --merge .arbor/runs.db\n`,
    );
    const gitHistory = arbor(zoo, ['benchmark', 'runs', '--merge', '.arbor/runs.db', '--json']).json as unknown as RunsJson;
    expect(gitHistory.ledger).toBe(rootLedger);
    expect(gitHistory.merged).toEqual([{from: zooLedger, runs: 11, keptAs: `${zooLedger}.merged`}]);
    expect(gitHistory.runs).toHaveLength(12);
    expect(gitHistory.runs.filter((r) => r.importedFrom === null)).toHaveLength(1);
    expect(gitHistory.runs.filter((r) => r.git !== null)).toEqual([expect.objectContaining({git: {commit: head, dirty: false}})]);
    expect(arbor(root, ['benchmark', 'report', 'my-zoo', '--out', page, '--json']).json).toMatchObject({ledger: {path: rootLedger, runs: 12}});
    expect(git(root, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  });

  it('says where it looked when no zoo is found, the same way for every zoo-taking command', () => {
    const empty = tempDir();
    for (const command of ['list', 'run', 'report']) {
      const result = runCli(['benchmark', command], {cwd: empty});
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `arbor: No zoo found: neither \`./arbor-zoo\` nor \`./zoo\` exists and this folder holds no benchmark folders; pass the zoo folder, e.g. \`arbor benchmark ${command} path/to/zoo\`\n`,
      });
    }
  });
});
