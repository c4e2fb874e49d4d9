/** Spawn the built CLI the way a user does, and capture everything it says. */
import {spawn, spawnSync, type SpawnSyncOptions} from 'node:child_process';
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

/**
 * `runCli` without blocking the test's process, so independent runs (each eval leases a CPU of its
 * own: test/helpers/lease-folder.ts) go side by side. Rejects only when the CLI cannot be started.
 */
export function runCliAsync(args: string[], options: {env?: NodeJS.ProcessEnv; cwd?: string} = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [cliPath, ...args], {
    cwd: options.cwd ?? repoRoot,
    env: {...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...options.env},
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  child.stdout.setEncoding('utf8').on('data', (text: string) => stdout.push(text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => stderr.push(text));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({code, stdout: stdout.join(''), stderr: stderr.join('')}));
  });
}

/** The uid and gid an ordinary user's run takes when the tests run as root (`nobody`). */
const ordinaryUser = 65534;

/**
 * Whether the CLI can run as an ordinary user: always for a non-root user; as root, when `nobody`
 * can read node and this checkout (a checkout under a 0700 /root cannot be read).
 */
export const canRunAsOrdinaryUser =
  process.getuid?.() !== 0 ||
  spawnSync('setpriv', [`--reuid=${ordinaryUser}`, `--regid=${ordinaryUser}`, '--clear-groups', process.execPath, cliPath, '--version'], {cwd: '/'}).status ===
    0;

/**
 * `arbor ...args` as an ordinary user, whose file permissions hold: the test's own user, or, for
 * root (as CI runs), `nobody`, given `owned` (folders the run works in) first. Root reads and
 * writes through any mode, so a test of an unreadable or unwritable file needs this.
 */
export function runCliAsOrdinaryUser(args: string[], owned: string[], options: SpawnSyncOptions = {}): CliResult {
  if (process.getuid?.() !== 0) return runCli(args, options);
  for (const dir of owned) spawnSync('chown', ['-R', `${ordinaryUser}:${ordinaryUser}`, dir]);
  const home = owned[0]!;
  const result = spawnSync('setpriv', [`--reuid=${ordinaryUser}`, `--regid=${ordinaryUser}`, '--clear-groups', process.execPath, cliPath, ...args], {
    encoding: 'utf8',
    cwd: repoRoot,
    ...options,
    env: {PATH: process.env.PATH, HOME: home, XDG_CACHE_HOME: path.join(home, '.cache'), NO_COLOR: '1', FORCE_COLOR: '0', ...options.env},
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
