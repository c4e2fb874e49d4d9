/** Where arbor keeps state outside the zoo, with sizes and how to remove each. */
import {lstatSync, readdirSync} from 'node:fs';
import path from 'node:path';
import {cacheDir, configDir, stateDir} from '../files.js';
import {defaultLeaseFolder, leaseFolderVariable} from '../sandbox/index.js';
import type {StateEntry} from './check.js';

/** Bytes under `file` (symbolic links counted as themselves, never followed); 0 when it is absent. */
function treeBytes(file: string): number {
  let stats: ReturnType<typeof lstatSync>;
  try {
    stats = lstatSync(file);
  } catch {
    return 0;
  }
  if (!stats.isDirectory()) return stats.size;
  let total = 0;
  let names: string[] = [];
  try {
    names = readdirSync(file);
  } catch {
    return total;
  }
  for (const name of names) total += treeBytes(path.join(file, name));
  return total;
}

function entry(what: string, file: string, remove: string): StateEntry {
  let exists = true;
  try {
    lstatSync(file);
  } catch {
    exists = false;
  }
  return {what, path: file, exists, bytes: exists ? treeBytes(file) : 0, remove};
}

/** Every place outside a zoo arbor writes to (a zoo's own run ledger, `.arbor/`, lives in the zoo). */
export function stateEntries(env: NodeJS.ProcessEnv): StateEntry[] {
  const cache = cacheDir(env);
  const config = configDir(env);
  const state = stateDir(env);
  const leases = path.resolve(env[leaseFolderVariable] || defaultLeaseFolder);
  return [
    entry("cache: list's verify results, what each python said about itself", cache, `rm -rf ${cache} (safe: remade on the next list or eval)`),
    entry(
      "arbor mcp's own test salt (test seeds are derived from it)",
      path.join(config, 'test-salt'),
      `rm ${path.join(config, 'test-salt')} (the next arbor mcp makes a new one: its sealed test cases change)`,
    ),
    entry(
      "arbor mcp's workspaces (one folder per zoo)",
      path.join(state, 'workspaces'),
      `rm -rf ${path.join(state, 'workspaces')} (when no arbor mcp runs: agents' checkouts are lost)`,
    ),
    entry('CPU leases of the evals on this host (lock files)', leases, `rm -rf ${leases} (when no eval runs)`),
  ];
}
