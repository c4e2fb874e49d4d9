import {mkdirSync, realpathSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {gitState, ledgerPathFor, repositoryRoot} from '../../lib/ledger/index.js';
import {tempDir} from '../helpers/cli.js';
import {git, repoWithBenchmark} from './helpers.js';

describe('ledgerPathFor', () => {
  it('puts the ledger at the root of the repository the benchmark is in', () => {
    const root = realpathSync(tempDir());
    const benchmark = repoWithBenchmark(root);
    expect(ledgerPathFor(benchmark, {})).toBe(path.join(root, '.arbor', 'runs.db'));
    expect(repositoryRoot(benchmark)).toBe(root);
  });

  it('puts it beside the benchmark outside a repository', () => {
    const benchmark = path.join(realpathSync(tempDir()), 'knn');
    mkdirSync(benchmark);
    expect(ledgerPathFor(benchmark, {})).toBe(path.join(benchmark, '.arbor', 'runs.db'));
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
