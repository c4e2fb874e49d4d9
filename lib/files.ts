/** File utilities every folder of the library shares (the bundle's tensors, the ledger, the report, compare's package, the lock). */
import {closeSync, openSync, renameSync, rmSync, writeSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Largest single write call: 1 MiB, as the tensor codec writes (see IO_CHUNK in lib/bundle/codec.ts for the measurement).
const IO_CHUNK = 1 << 20;
let tempCounter = 0;

/** Write bytes to `file` through a temp file and a rename, so readers see the old file or the whole new one. */
export function writeFileAtomic(file: string, data: Uint8Array | string): void {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${tempCounter++}.tmp`);
  const fd = openSync(temp, 'w');
  try {
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, Math.min(IO_CHUNK, bytes.length - done));
    closeSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, {force: true});
    throw error;
  }
  try {
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, {force: true});
    throw error;
  }
}

/** arbor's cache folder (list's verify results, what a python said about itself): $ARBOR_CACHE_DIR, else $XDG_CACHE_HOME/arbor, else ~/.cache/arbor. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ARBOR_CACHE_DIR) return env.ARBOR_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return path.join(env.XDG_CACHE_HOME, 'arbor');
  return path.join(os.homedir(), '.cache', 'arbor');
}

/** arbor's config folder (what a server keeps for itself, e.g. `arbor mcp`'s own test salt): $XDG_CONFIG_HOME/arbor, else ~/.config/arbor. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.XDG_CONFIG_HOME) return path.join(env.XDG_CONFIG_HOME, 'arbor');
  return path.join(os.homedir(), '.config', 'arbor');
}

/** arbor's state folder (`arbor mcp`'s default workspaces): $XDG_STATE_HOME/arbor (an absolute one), else ~/.local/state/arbor. */
export function stateDir(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  const state = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(home, '.local', 'state');
  return path.join(state, 'arbor');
}
