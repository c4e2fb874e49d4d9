/** Helpers for the zoo tests: the built library, fixture paths and temp copies. */
import {cpSync, mkdirSync} from 'node:fs';
import path from 'node:path';
import {fixtures, repoRoot, tempDir} from '../../helpers/cli.js';

/** The zoo fixtures folder. */
export const zooFixtures = path.join(fixtures, 'zoo');

/** The built zoo library (tests run after `npm run build`). */
export const lib = (await import(path.join(repoRoot, 'dist/lib/zoo/index.js'))) as typeof import('../../../lib/zoo/index.js');

/** A temp copy of a fixture folder, named `name` inside a fresh temp zoo; returns its path. */
export function copyFixture(fixture: string, name = fixture): string {
  const zoo = tempDir('arbor-zoo-');
  const dest = path.join(zoo, name);
  mkdirSync(zoo, {recursive: true});
  cpSync(path.join(zooFixtures, fixture), dest, {recursive: true});
  return dest;
}
