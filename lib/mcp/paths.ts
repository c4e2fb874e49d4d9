/** Paths as the MCP tools see them: real (links resolved), and what lies inside what. Shared by the server and its runs' processes. */
import {realpathSync} from 'node:fs';
import path from 'node:path';

/** What names files and records runs: the zoo, the workspaces folder, the environment (a run's process has these too). */
export interface NamesContext {
  /** The zoo folder (real path). */
  zoo: string;
  /** The workspaces folder (real path). */
  workspaces: string;
  env: NodeJS.ProcessEnv;
}

/** The real path when it exists (symlinks resolved, so no link leads outside), else the path resolved. */
export function realOrResolved(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    const parent = path.dirname(file);
    return parent === file ? file : path.join(realOrResolved(parent), path.basename(file));
  }
}

/** Whether `inner` is `outer` or lies under it. */
export function isInside(inner: string, outer: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
