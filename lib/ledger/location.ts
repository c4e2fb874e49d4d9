/** Where a benchmark's run ledger lives. */
import {readFileSync, statSync} from 'node:fs';
import path from 'node:path';

/** The environment variable naming the ledger file, overriding the default location. */
export const ledgerVariable = 'ARBOR_LEDGER';
/** The folder (at the repository root, else beside the benchmark) holding the ledger. */
export const ledgerFolder = '.arbor';
/** The database's file name inside that folder. */
export const ledgerFile = 'runs.db';

/**
 * The root of the work tree holding `dir`: the nearest ancestor with a `.git`
 * entry. A linked worktree (`.git` is a file pointing into another
 * repository's `.git/worktrees/`) resolves to its main work tree, so every
 * worktree of one repository shares one ledger; a submodule stays its own
 * root. Null outside a repository.
 */
export function repositoryRoot(dir: string): string | null {
  for (let current = path.resolve(dir); ; ) {
    const dotGit = path.join(current, '.git');
    const stats = statSync(dotGit, {throwIfNoEntry: false});
    if (stats?.isDirectory()) return current;
    if (stats?.isFile()) return mainWorkTree(dotGit) ?? current;
    const parent = path.dirname(current);
    if (parent === current) return null;
    current = parent;
  }
}

/** For a `.git` file of a linked worktree, the main work tree (`<common dir>/..`); else null. */
function mainWorkTree(dotGitFile: string): string | null {
  try {
    const match = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGitFile, 'utf8'));
    if (!match) return null;
    const gitDir = path.resolve(path.dirname(dotGitFile), match[1]!);
    const common = path.resolve(gitDir, readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim());
    return path.basename(common) === '.git' ? path.dirname(common) : null;
  } catch {
    return null;
  }
}

/**
 * The ledger file for a benchmark folder: `$ARBOR_LEDGER` when set (resolved
 * against `cwd`), else `.arbor/runs.db` at the root of the repository the
 * benchmark is in, else `<benchmark>/.arbor/runs.db`.
 */
export function ledgerPathFor(benchmarkDir: string, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  const override = env[ledgerVariable];
  if (override) return path.resolve(cwd, override);
  const dir = path.resolve(cwd, benchmarkDir);
  return path.join(repositoryRoot(dir) ?? dir, ledgerFolder, ledgerFile);
}
