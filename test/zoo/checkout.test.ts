import {spawnSync} from 'node:child_process';
import {cpSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {repoRoot, runCli, tempDir} from '../helpers/cli.js';
import {zooFixtures} from './helpers/zoo.js';

/** An environment with no git identity anywhere (no global or system config). */
function bareGitEnv(): NodeJS.ProcessEnv {
  const home = tempDir('arbor-home-');
  return {HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: path.join(home, 'none')};
}

const git = (cwd: string, ...args: string[]) => spawnSync('git', args, {cwd, encoding: 'utf8'}).stdout.trim();

describe('arbor benchmark checkout', () => {
  it('copies without junk or run history, keeps modes, inits git and commits the baseline with a local identity', () => {
    const work = tempDir();
    const bench = path.join(work, 'zoo', 'sorting');
    cpSync(path.join(zooFixtures, 'minimal-ok'), bench, {recursive: true});
    mkdirSync(path.join(bench, '__pycache__'));
    writeFileSync(path.join(bench, '__pycache__', 'solution.cpython-311.pyc'), 'x');
    mkdirSync(path.join(bench, 'node_modules'));
    writeFileSync(path.join(bench, 'stray.pyc'), 'x');
    // The author's run history: never the agent's to read.
    mkdirSync(path.join(bench, '.arbor'));
    writeFileSync(path.join(bench, '.arbor', 'runs.db'), "the author's runs");
    const result = runCli(['benchmark', 'checkout', 'zoo/sorting', 'out/sorting'], {cwd: work, env: bareGitEnv()});
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Checked out zoo\/sorting to out\/sorting: 4 files, baseline commit [0-9a-f]{12} \(no git identity was configured/);
    const dest = path.join(work, 'out', 'sorting');
    expect(readdirSync(dest).sort()).toEqual(['.git', 'PROVENANCE.md', 'README.md', 'eval.sh', 'solution.py']);
    expect(statSync(path.join(dest, 'eval.sh')).mode & 0o111).not.toBe(0);
    expect(statSync(dest).mode & 0o777).toBe(statSync(bench).mode & 0o777);
    expect(git(dest, 'log', '--format=%s|%an')).toBe('baseline: sorting|arbor');
    expect(git(dest, 'status', '--porcelain')).toBe('');
    expect(readdirSync(path.join(work, 'out'))).toEqual(['sorting']);
    // The workspace's ledger is its own, and empty.
    expect(runCli(['benchmark', 'runs', '.'], {cwd: dest}).stdout).toMatch(/no runs/i);
  });

  it('prints a "Next:" line that works as printed, with arbor neither linked nor on the PATH', () => {
    const work = tempDir();
    // No `arbor` on this PATH, and the destination is outside any arbor checkout.
    const PATH = [...(process.env.PATH ?? '').split(':').filter((dir) => dir && !existsSync(path.join(dir, 'arbor'))), path.dirname(process.execPath)].join(
      ':',
    );
    const env = {...bareGitEnv(), PATH, ARBOR: ''};
    const result = runCli(['benchmark', 'checkout', path.join(repoRoot, 'zoo/relu_poly'), 'my knn'], {cwd: work, env});
    expect(result.code, result.stderr).toBe(0);
    const next = /^Next: (.*)$/m.exec(result.stdout)![1]!;
    expect(next).toBe(`cd 'my knn' && ARBOR=${path.join(repoRoot, 'dist/cli/index.js')} bash eval.sh dev`);
    const run = spawnSync('bash', ['-c', next], {cwd: work, env: {...process.env, PATH, ARBOR: ''}, encoding: 'utf8'});
    expect(run.stdout, run.stderr).toMatch(/^score: \S+\n$/);
    expect(run.status).toBe(0);
    // With arbor on the PATH, eval.sh finds it by itself: the plain command.
    const bin = tempDir('arbor-bin-');
    symlinkSync(path.join(repoRoot, 'dist/cli/index.js'), path.join(bin, 'arbor'));
    const linked = runCli(['benchmark', 'checkout', path.join(repoRoot, 'zoo/relu_poly'), 'b'], {cwd: work, env: {...env, PATH: `${bin}:${env.PATH}`}});
    expect(linked.stdout).toMatch(/^Next: cd b && bash eval\.sh dev$/m);
  });

  it('finds a benchmark by name in ./zoo', () => {
    const work = tempDir();
    cpSync(path.join(zooFixtures, 'minimal-ok'), path.join(work, 'zoo', 'sorting'), {recursive: true});
    const result = runCli(['benchmark', 'checkout', 'sorting', 'dest', '--json'], {cwd: work, env: bareGitEnv()});
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      benchmark: 'sorting',
      dest: 'dest',
      files: 4,
      identitySet: true,
      commit: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
  });

  it('refuses a non-empty destination with exit 1 and touches nothing', () => {
    const work = tempDir();
    mkdirSync(path.join(work, 'dest'));
    writeFileSync(path.join(work, 'dest', 'keep.txt'), 'mine');
    const result = runCli(['benchmark', 'checkout', path.join(zooFixtures, 'minimal-ok'), 'dest'], {cwd: work});
    expect(result).toEqual({code: 1, stdout: '', stderr: 'arbor: Refusing to check out into `dest`: the folder is not empty (nothing was changed)\n'});
    expect(readdirSync(path.join(work, 'dest'))).toEqual(['keep.txt']);
    expect(readdirSync(work)).toEqual(['dest']);
  });

  it('exits 2 with one line for a missing benchmark or a file given as benchmark', () => {
    const work = tempDir();
    const missing = runCli(['benchmark', 'checkout', 'nope', 'dest'], {cwd: work});
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('arbor: Benchmark `nope` does not exist, expected a benchmark folder (a path, or a name in ./arbor-zoo or ./zoo)\n');
    writeFileSync(path.join(work, 'file'), 'x');
    const file = runCli(['benchmark', 'checkout', 'file', 'dest'], {cwd: work});
    expect(file.code).toBe(2);
    expect(file.stderr).toBe('arbor: Benchmark `file` is a file, expected a benchmark folder\n');
    expect(existsSync(path.join(work, 'dest'))).toBe(false);
  });

  it('says so in one line when git is not on the PATH, and leaves nothing behind', () => {
    const work = tempDir();
    const result = runCli(['benchmark', 'checkout', path.join(zooFixtures, 'minimal-ok'), 'dest'], {cwd: work, env: {PATH: '/nonexistent'}});
    expect(result).toEqual({code: 2, stdout: '', stderr: 'arbor: git is not installed or not on the PATH; install git and try again\n'});
    expect(readdirSync(work)).toEqual([]);
  });

  it("leaves a path split's test data out: says so, its lock passes on dev, eval test says in one line that the data is sealed", () => {
    const work = tempDir();
    const source = path.join(repoRoot, 'zoo/shortest_path');
    const result = runCli(['benchmark', 'checkout', source, 'sp'], {cwd: work, env: bareGitEnv()});
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^The test data \(data\/test, \d+ files\) was left out: it is sealed; evaluate test with --data DIR or ARBOR_TEST_DATA naming a copy of it\.$/m,
    );
    const dest = path.join(work, 'sp');
    // Only the placeholder where the test data was; the dev data as it is in the benchmark.
    expect(readdirSync(path.join(dest, 'data/test'))).toEqual(['SEALED']);
    expect(readdirSync(path.join(dest, 'data/test/SEALED')).sort()).toEqual(['README.md', 'manifest.json']);
    expect(readdirSync(path.join(dest, 'data/dev')).sort()).toEqual(readdirSync(path.join(source, 'data/dev')).sort());
    expect(git(dest, 'status', '--porcelain')).toBe('');
    // The checkout's lock is the benchmark's less the test files: dev evals pass its check; test files added make it stale.
    expect(runCli(['benchmark', 'lock', '--check', dest]).code).toBe(0);
    const locked = Object.keys(JSON.parse(readFileSync(path.join(dest, 'arbor.lock'), 'utf8')).files);
    const own = Object.keys(JSON.parse(readFileSync(path.join(source, 'arbor.lock'), 'utf8')).files);
    expect(locked.filter((file) => !file.startsWith('data/test/'))).toEqual(own.filter((file) => !file.startsWith('data/test/')));
    const evaluated = runCli(['benchmark', 'eval', dest, 'test']);
    expect(evaluated.code).not.toBe(0);
    expect(evaluated.stderr.trim().split('\n')).toHaveLength(1);
    expect(evaluated.stderr).toMatch(
      /^arbor: the test data of shortest_path \(data\/test\) is sealed: it is not in this checkout; evaluate the test split with --data DIR or ARBOR_TEST_DATA=DIR naming a copy of it, or submit the solution to the sealed test split \(arbor mcp: submit_test\)\n$/,
    );
    mkdirSync(path.join(dest, 'data/test/grid88'));
    writeFileSync(path.join(dest, 'data/test/grid88/manifest.json'), '{}');
    expect(runCli(['benchmark', 'lock', '--check', dest]).code).toBe(1);
    // --json says the same.
    const json = runCli(['benchmark', 'checkout', source, 'sp2', '--json'], {cwd: work, env: bareGitEnv()});
    expect(JSON.parse(json.stdout).sealedTestData).toEqual({folder: 'data/test', files: expect.any(Number)});
  });
});
