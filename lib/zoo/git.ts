/** Every git call arbor makes, in one module; each takes the repository folder. */
import {simpleGit} from 'simple-git';

/** The identity used when neither the repository nor the user configured one. */
export const fallbackIdentity = {name: 'arbor', email: 'arbor@localhost'} as const;

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
