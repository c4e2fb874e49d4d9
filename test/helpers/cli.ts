/** Spawn the built CLI the way a user does, and capture everything it says. */
import {spawnSync, type SpawnSyncOptions} from 'node:child_process';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {onTestFinished} from 'vitest';

/** The repository root. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The built CLI entry point (tests run after `npm run build`). */
export const cliPath = path.join(repoRoot, 'dist/cli/index.js');
/** The fixtures folder. */
export const fixtures = path.join(repoRoot, 'test/fixtures');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run `arbor ...args` and return exit code, stdout and stderr. */
export function runCli(args: string[], options: SpawnSyncOptions = {}): CliResult {
  const result = spawnSync(process.execPath, [cliPath, ...args], {
    encoding: 'utf8',
    cwd: repoRoot,
    ...options,
    env: {...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...options.env},
  });
  if (result.error) throw result.error;
  return {code: result.status, stdout: String(result.stdout), stderr: String(result.stderr)};
}

/** A fresh temporary directory, removed when the current test finishes. */
export function tempDir(prefix = 'arbor-test-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  onTestFinished(() => rmSync(dir, {recursive: true, force: true}));
  return dir;
}
