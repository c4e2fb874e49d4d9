/** Temporary bundles for the failure-mode tests. */
import {cpSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {loadBundle} from '../../dist/lib/index.js';
import {fixtures, tempDir} from '../helpers/cli.js';

export const sortExact = path.join(fixtures, 'bundle/sort-exact');
export const rowsum = path.join(fixtures, 'bundle/rowsum-verify');
export const golden = path.join(fixtures, 'bundle/golden');

/** Copy a fixture bundle to a temp folder, apply file overrides, and fix its fingerprint unless told not to. */
export async function bundleCopy(
  from: string,
  files: Record<string, string> = {},
  options: {fixFingerprint?: boolean; edit?: (toml: string) => string} = {},
): Promise<string> {
  const dir = path.join(tempDir('arbor-bundle-'), 'bundle');
  cpSync(from, dir, {recursive: true});
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  const marker = path.join(dir, 'fherma.toml');
  if (options.edit) writeFileSync(marker, options.edit(readFileSync(marker, 'utf8')));
  if (options.fixFingerprint !== false) {
    const bundle = await loadBundle(dir, {checkFingerprint: false});
    writeFileSync(marker, readFileSync(marker, 'utf8').replace(/^fingerprint = .*$/m, `fingerprint = "${bundle.fingerprint}"`));
  }
  return dir;
}
