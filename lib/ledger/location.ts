/** Where a benchmark's run ledger lives. */
import {readFileSync, statSync} from 'node:fs';
import path from 'node:path';

/** The environment variable naming the ledger file, overriding the default location. */
const ledgerVariable = 'ARBOR_LEDGER';
/** The folder (at the repository root, else in the zoo) holding the ledger. */
export const ledgerFolder = '.arbor';
/** The database's file name inside that folder. */
const ledgerFile = 'runs.db';

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

/** What a folder is to the ledger: a benchmark (its zoo is its parent) or a zoo. */
export type LedgerScope = 'benchmark' | 'zoo';

/**
 * The folder whose `.arbor/` holds the history of `dir`: the root of the git
 * repository `dir` is in, else the zoo (a benchmark's parent folder, or the
 * zoo itself). Every command finds it this way, so a zoo has one ledger
 * whichever benchmark or command recorded a run.
 */
export function ledgerRoot(dir: string, scope: LedgerScope): string {
  const folder = path.resolve(dir);
  return repositoryRoot(folder) ?? (scope === 'benchmark' ? path.dirname(folder) : folder);
}

/**
 * The ledger file for a folder (a benchmark unless `scope` says zoo):
 * `$ARBOR_LEDGER` when set (resolved against `cwd`), else
 * `<ledgerRoot>/.arbor/runs.db`.
 */
export function ledgerPathFor(dir: string, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd(), scope: LedgerScope = 'benchmark'): string {
  const override = env[ledgerVariable];
  if (override) return path.resolve(cwd, override);
  return path.join(ledgerRoot(path.resolve(cwd, dir), scope), ledgerFolder, ledgerFile);
}

/** The ledger file named on purpose (`--ledger`, else `$ARBOR_LEDGER`), resolved against `cwd`; null when neither is given. */
export function namedLedger(option: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string | null {
  const named = option || env[ledgerVariable];
  return named ? path.resolve(cwd, named) : null;
}

/**
 * Ledgers an earlier arbor (or a zoo before `git init`) left where the
 * history of `dirs` no longer goes: `<folder>/.arbor/runs.db` of each folder
 * given and of each folder between it and the ledger's root. Only files that
 * exist and are not `ledger` itself.
 */
export function strayLedgers(ledger: string, dirs: readonly string[]): string[] {
  const root = path.dirname(path.dirname(path.resolve(ledger)));
  const found = new Set<string>();
  for (const dir of dirs) {
    for (let current = path.resolve(dir); ; current = path.dirname(current)) {
      const file = path.join(current, ledgerFolder, ledgerFile);
      if (file !== path.resolve(ledger) && statSync(file, {throwIfNoEntry: false})?.isFile()) found.add(file);
      if (current === root || !current.startsWith(root + path.sep) || path.dirname(current) === current) break;
    }
  }
  return [...found].sort();
}
