/** The git commit and dirty flag of the repository a benchmark lives in (simple-git, loaded on first use). */

/** The state of the working tree: HEAD's commit and whether anything differs from it. */
export interface GitState {
  commit: string;
  /** Modified, staged, deleted or untracked (not ignored) files anywhere in the work tree. */
  dirty: boolean;
}

/** HEAD and the dirty flag of the repository holding `dir`; null outside a repository or before the first commit. */
export async function gitState(dir: string): Promise<GitState | null> {
  const {simpleGit} = await import('simple-git');
  const git = simpleGit({baseDir: dir});
  try {
    if (!(await git.checkIsRepo())) return null;
    const commit = (await git.revparse(['--verify', '--quiet', 'HEAD^{commit}'])).trim();
    if (!commit) return null;
    const status = await git.status(['--porcelain', '--untracked-files=normal']);
    // arbor's own files (a run ledger's .arbor/ folder, wherever it lies) are not the solution's state.
    const changed = status.files.filter((file) => !isArborState(file.path));
    return {commit, dirty: changed.length > 0};
  } catch {
    return null;
  }
}

/** Whether a path git reports (relative to the repository, `/`-separated) is arbor's own state: inside an `.arbor/` folder. */
function isArborState(file: string): boolean {
  return file.split('/').includes('.arbor');
}
