/** Every git call arbor makes, in one module; each takes the repository folder. */
import {simpleGit} from 'simple-git';

/** The identity used when neither the repository nor the user configured one. */
const fallbackIdentity = {name: 'arbor', email: 'arbor@localhost'} as const;

/** `git init` in `cwd`, set a local identity if none is configured, add everything and commit. */
export async function initAndCommit(cwd: string, message: string): Promise<{commit: string; identitySet: boolean}> {
  const git = simpleGit({baseDir: cwd});
  await git.init();
  let identitySet = false;
  const name = await git.getConfig('user.name');
  const email = await git.getConfig('user.email');
  if (!name.value || !email.value) {
    await git.addConfig('user.name', name.value || fallbackIdentity.name);
    await git.addConfig('user.email', email.value || fallbackIdentity.email);
    identitySet = true;
  }
  await git.add(['-A', '.']);
  await git.commit(message, undefined, {'--no-verify': null, '--no-gpg-sign': null, '--allow-empty': null});
  const commit = (await git.revparse(['HEAD'])).trim();
  return {commit, identitySet};
}

/** A revision resolved in the repository holding a folder. */
export interface Revision {
  /** The repository's top folder. */
  root: string;
  /** The full commit id. */
  commit: string;
}

/** Resolve `rev` (a commit, branch, tag, `HEAD~1`, …) in the repository holding `dir`; undefined when `dir` is in none or `rev` names no commit. */
export async function resolveRevision(dir: string, rev: string): Promise<Revision | undefined> {
  const git = simpleGit({baseDir: dir});
  try {
    if (!(await git.checkIsRepo())) return undefined;
    const root = (await git.revparse(['--show-toplevel'])).trim();
    // `--end-of-options` keeps a revision that starts with '-' from being read as an option.
    const commit = (await git.raw(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`])).trim();
    return commit ? {root, commit} : undefined;
  } catch {
    return undefined;
  }
}

/** A file as a commit holds it. */
export interface CommittedFile {
  /** Path relative to the repository's top folder (POSIX separators). */
  path: string;
  bytes: Buffer;
  executable: boolean;
}

/** The files (blobs; folders recursively) at `paths` (relative to the top folder) in a commit; paths the commit lacks are left out. */
export async function filesAtRevision(revision: Revision, paths: string[]): Promise<CommittedFile[]> {
  if (paths.length === 0) return [];
  const git = simpleGit({baseDir: revision.root});
  const listing = await git.raw(['ls-tree', '-r', '-z', '--full-tree', revision.commit, '--', ...paths]);
  const files: CommittedFile[] = [];
  for (const line of listing.split('\0')) {
    // <mode> SP <type> SP <object> TAB <path>
    const match = /^(\d+) (\w+) ([0-9a-f]+)\t([^]*)$/.exec(line);
    if (!match || match[2] !== 'blob' || match[1] === '120000') continue;
    const bytes: Buffer = await git.binaryCatFile(['blob', match[3]!]);
    files.push({path: match[4]!, bytes, executable: match[1] === '100755'});
  }
  return files;
}

/** Whether any of `paths` differs from HEAD in the working tree (modified, staged or untracked); null outside the repository holding `dir`. */
export async function pathsDirty(dir: string, paths: string[]): Promise<boolean | null> {
  const git = simpleGit({baseDir: dir});
  try {
    if (!(await git.checkIsRepo())) return null;
    const status = await git.status(['--porcelain', '--untracked-files=normal', '--', ...paths]);
    return !status.isClean();
  } catch {
    // A path outside the repository.
    return null;
  }
}
