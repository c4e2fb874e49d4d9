/**
 * Which python3 a run (and a Python bundle's host) starts: one lookup, for the
 * eval, the importer and the doctor alike.
 */
import {accessSync, constants, existsSync, statSync} from 'node:fs';
import path from 'node:path';
import {HarnessError} from '../benchmark/errors.js';
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
