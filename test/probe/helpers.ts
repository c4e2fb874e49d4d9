/** Helpers for the `verify --probe` tests: the built library and temp copies of entries. */
import {cpSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {expect} from 'vitest';
import {fixtures, repoRoot, runCli, tempDir} from '../helpers/cli.js';

/** The built probe library (tests run after `npm run build`). */
export const probeLib = (await import(path.join(repoRoot, 'dist/lib/probe/index.js'))) as typeof import('../../lib/probe/index.js');

/** The quick speedup entry made for these tests. */
export const speedFixture = path.join(fixtures, 'probe/prefix-speed');

/**
 * A temp copy of a benchmark folder whose `files` are replaced (paths relative to it), locked
 * again as its author would after the change (else the eval scores everything 0.0 for the lock); in
 * `parent`, the test's temp folder by default.
 */
export function changedCopy(source: string, files: Record<string, string>, parent = tempDir('arbor-probe-test-')): string {
  const dest = path.join(parent, path.basename(source));
  cpSync(source, dest, {recursive: true});
  for (const [rel, text] of Object.entries(files)) writeFileSync(path.join(dest, rel), text);
  expect(runCli(['benchmark', 'lock', dest]).code).toBe(0);
  return dest;
}

/**
 * Like changedCopy, with the lock written by the library without lock's checks: an entry `lock`
 * refuses (a reference that crashes), as a hand-made lock would leave it, so what an eval of it does shows.
 */
export async function changedCopyLockedAnyway(source: string, files: Record<string, string>): Promise<string> {
  const dest = path.join(tempDir('arbor-probe-test-'), path.basename(source));
  cpSync(source, dest, {recursive: true});
  for (const [rel, text] of Object.entries(files)) writeFileSync(path.join(dest, rel), text);
  const {writeLock} = (await import(path.join(repoRoot, 'dist/lib/benchmark/lock.js'))) as typeof import('../../lib/benchmark/lock.js');
  await writeLock(dest);
  return dest;
}

/** A verifier that accepts every answer: all of a case's metric counts (accuracy) or just passed (speedup). */
export const acceptEverything = (metrics: string) => `export default function verify(point) {\n  return {passed: true, metrics: ${metrics}};\n}\n`;
