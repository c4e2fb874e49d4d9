/**
 * Which python3 a run (and a Python bundle's host) starts: one lookup, for the
 * eval, the importer and the doctor alike; and the pure helpers that read its
 * answer to the path probe (what a run mounts of it).
 */
import {accessSync, constants, existsSync, realpathSync, statSync} from 'node:fs';
import path from 'node:path';
import {HarnessError} from '../errors.js';
import {onPath} from '../pyenv.js';

/**
 * Find python3 without starting it (ARBOR_PYTHON overrides the PATH lookup):
 * an absolute path, or a HarnessError with the fix.
 */
export function findPython(env: NodeJS.ProcessEnv = process.env): string {
  const python = env.ARBOR_PYTHON || 'python3';
  const executable = (file: string) => {
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  };
  if (python.includes('/')) {
    if (executable(path.resolve(python))) return path.resolve(python);
    if (existsSync(python)) {
      throw new HarnessError(
        `ARBOR_PYTHON=${python} is not an executable file: set it to a python3 that has numpy (arbor doctor says which python arbor picks)`,
        'no-python',
      );
    }
  } else {
    const found = onPath(python, env);
    if (found) return found;
  }
  throw new HarnessError(
    `${python} not found: install Python 3 with numpy, or set ARBOR_PYTHON to a python3 that has numpy (arbor doctor says which python arbor picks)`,
    'no-python',
  );
}

/**
 * The interpreter's answer to the probe script: its executable, four prefixes and its path entries,
 * flattened. Read as the text of another process, so each field is checked, not cast.
 */
export function pythonPlaces(stdout: string, python: string): [string, ...string[]] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    parsed = undefined;
  }
  const strings = (list: unknown): list is string[] => Array.isArray(list) && list.every((field) => typeof field === 'string');
  if (Array.isArray(parsed) && parsed.length === 6) {
    const [executable, ...rest] = parsed;
    const prefixes = rest.slice(0, 4);
    const entries: unknown = rest[4];
    if (typeof executable === 'string' && strings(prefixes) && strings(entries)) return [executable, ...prefixes, ...entries];
  }
  throw new HarnessError(`${python} answered its path probe with something other than six path fields; set ARBOR_PYTHON to a standard python3`, 'no-python');
}

/** The nearest existing folder at or above `file` (a zip on sys.path counts as its folder). */
export function existing(file: string): string | undefined {
  try {
    const real = realpathSync(file);
    return statSync(real).isDirectory() ? real : path.dirname(real);
  } catch {
    return undefined;
  }
}

/** Drop folders inside another one of the list. */
export function outermost(folders: string[]): string[] {
  const sorted = [...new Set(folders)].sort();
  return sorted.filter((folder, index) => !sorted.slice(0, index).some((other) => folder.startsWith(`${other}/`)));
}
