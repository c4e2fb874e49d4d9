import {mkdirSync, realpathSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {gitState, ledgerPathFor, ledgerRoot, repositoryRoot, strayLedgers} from '../../lib/ledger/index.js';
import {tempDir} from '../helpers/cli.js';
import {git, repoWithBenchmark} from './helpers.js';

describe('ledgerPathFor', () => {
  it('puts the ledger at the root of the repository the benchmark is in', () => {
    const root = realpathSync(tempDir());
    const benchmark = repoWithBenchmark(root);
    expect(ledgerPathFor(benchmark, {})).toBe(path.join(root, '.arbor', 'runs.db'));
    expect(repositoryRoot(benchmark)).toBe(root);
  });

  it("puts it in the zoo outside a repository: a benchmark's parent folder, or the zoo named", () => {
    const zoo = realpathSync(tempDir());
    const benchmark = path.join(zoo, 'knn');
    mkdirSync(benchmark);
    expect(ledgerPathFor(benchmark, {})).toBe(path.join(zoo, '.arbor', 'runs.db'));
    expect(ledgerPathFor(zoo, {}, '/', 'zoo')).toBe(path.join(zoo, '.arbor', 'runs.db'));
    expect(ledgerRoot(benchmark, 'benchmark')).toBe(zoo);
  });

  it('finds the ledgers left where the history no longer goes: in the folders given and up to the root, not the ledger itself', () => {
    const root = realpathSync(tempDir());
    const ledger = path.join(root, '.arbor', 'runs.db');
    const zoo = path.join(root, 'zoo');
    const stray = (dir: string) => {
      mkdirSync(path.join(dir, '.arbor'), {recursive: true});
      writeFileSync(path.join(dir, '.arbor', 'runs.db'), '');
      return path.join(dir, '.arbor', 'runs.db');
    };
    stray(root);
    const inZoo = stray(zoo);
    const inBenchmark = stray(path.join(zoo, 'knn'));
    stray(path.join(root, 'elsewhere'));
    mkdirSync(path.join(zoo, 'sumsq', '.arbor'), {recursive: true}); // a folder without a database
    expect(strayLedgers(ledger, [path.join(zoo, 'knn'), path.join(zoo, 'sumsq')])).toEqual([inZoo, inBenchmark]);
    expect(strayLedgers(ledger, [])).toEqual([]);
  });

  it('takes ARBOR_LEDGER first, resolved against the working directory', () => {
    const root = realpathSync(tempDir());
    const benchmark = repoWithBenchmark(root);
    expect(ledgerPathFor(benchmark, {ARBOR_LEDGER: 'runs/my.db'}, '/work/x')).toBe('/work/x/runs/my.db');
    expect(ledgerPathFor(benchmark, {ARBOR_LEDGER: '/abs/l.db'})).toBe('/abs/l.db');
    expect(ledgerPathFor(benchmark, {ARBOR_LEDGER: ''})).toBe(path.join(root, '.arbor', 'runs.db'));
  });

  it('shares one ledger between the worktrees of a repository', () => {
    const root = realpathSync(tempDir());
    const main = path.join(root, 'main');
    mkdirSync(main);
    repoWithBenchmark(main);
    git(main, 'worktree', 'add', '-q', path.join(root, 'wt'), '-b', 'candidate');
    expect(ledgerPathFor(path.join(root, 'wt', 'zoo', 'knn'), {})).toBe(path.join(main, '.arbor', 'runs.db'));
  });
});

describe('gitState', () => {
  it('is null outside a repository and before the first commit', async () => {
    const dir = tempDir();
    expect(await gitState(dir)).toBeNull();
    git(dir, 'init', '-q');
    expect(await gitState(dir)).toBeNull();
  });

  it('gives HEAD and whether the work tree differs from it (modified or untracked)', async () => {
    const root = tempDir();
    const benchmark = repoWithBenchmark(root);
    const head = git(root, 'rev-parse', 'HEAD');
    expect(await gitState(benchmark)).toEqual({commit: head, dirty: false});
    writeFileSync(path.join(benchmark, 'solution.py'), 'changed\n');
    expect(await gitState(benchmark)).toEqual({commit: head, dirty: true});
    git(root, 'checkout', '-q', '--', '.');
    writeFileSync(path.join(root, 'new.txt'), 'untracked\n');
    expect(await gitState(root)).toEqual({commit: head, dirty: true});
  });

  it("leaves arbor's own files out of the dirty flag: an .arbor folder anywhere, even one a user's .gitignore does not cover", async () => {
    const root = tempDir();
    const benchmark = repoWithBenchmark(root);
    const head = git(root, 'rev-parse', 'HEAD');
    for (const folder of [path.join(root, '.arbor'), path.join(benchmark, '.arbor')]) {
      mkdirSync(folder, {recursive: true});
      writeFileSync(path.join(folder, 'runs.db'), 'not source\n');
    }
    expect(await gitState(benchmark)).toEqual({commit: head, dirty: false});
    writeFileSync(path.join(benchmark, 'solution.py'), 'changed\n');
    expect(await gitState(benchmark)).toEqual({commit: head, dirty: true});
  });
});
