/**
 * The test salt of `arbor mcp`: ARBOR_TEST_SALT when the environment sets it,
 * else the server's own, made once (32 random bytes, hex) in arbor's config
 * folder (`$XDG_CONFIG_HOME/arbor/test-salt`, else `~/.config/arbor/test-salt`,
 * mode 0600 in a 0700 folder) and reused by every later server of this user:
 * so sealed test seeds are never the plan's published ones. The file lies
 * outside every zoo and workspace (no tool accepts its path), and eval
 * processes never get the salt: the server derives the seeds and hands them over.
 */
import {randomBytes} from 'node:crypto';
import {chmodSync, closeSync, mkdirSync, openSync, readFileSync, statSync, writeSync} from 'node:fs';
import path from 'node:path';
import {UsageError} from '../errors.js';
import {saltVariable} from '../eval/index.js';
import {configDir} from '../files.js';

/** Where the server's own salt lives. */
function saltFile(env: NodeJS.ProcessEnv): string {
  return path.join(configDir(env), 'test-salt');
}

/** The salt the server uses and where it came from: the environment, or its file (`made` when this call wrote it). */
export function serverSalt(env: NodeJS.ProcessEnv): {salt: string; source: 'environment'} | {salt: string; source: 'file'; file: string; made: boolean} {
  const given = env[saltVariable];
  if (given) return {salt: given, source: 'environment'};
  const file = saltFile(env);
  let made = false;
  try {
    mkdirSync(path.dirname(file), {recursive: true, mode: 0o700});
    let fd: number | undefined;
    try {
      fd = openSync(file, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (fd !== undefined) {
      try {
        writeSync(fd, `${randomBytes(32).toString('hex')}\n`);
      } finally {
        closeSync(fd);
      }
      chmodSync(file, 0o600);
      made = true;
    }
  } catch (error) {
    throw new UsageError(
      `cannot make the test salt ${file} (${(error as Error).message}): set ${saltVariable}, or make ${path.dirname(file)} writable`,
      'salt',
    );
  }
  const mode = statSync(file).mode & 0o777;
  if (mode & 0o077)
    throw new UsageError(`the test salt ${file} is readable by others (mode ${mode.toString(8)}): chmod 600 it, or delete it for a new salt`, 'salt');
  const salt = readFileSync(file, 'utf8').trim();
  if (salt.length < 16)
    throw new UsageError(`the test salt ${file} is ${salt ? 'too short' : 'empty'}: delete it for a new salt, or set ${saltVariable}`, 'salt');
  return {salt, source: 'file', file, made};
}
