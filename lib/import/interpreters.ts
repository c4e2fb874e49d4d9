/**
 * The interpreters an import may run a task with, in order: ARBOR_PYTHON, the `python3` on the PATH,
 * and Debian's `/usr/bin/python3` (the one `apt-get install python3-<module>` completes). Each is found
 * by the eval's own finder (findPython) and known by its real executable, so one reached twice (a pyenv
 * shim and its target) is tried once. A task is imported with the first that has every module it
 * imports; the entry names it (`[entry] python` in its bundle), and the eval runs it with that one.
 */
import {findPython, resolvePython} from '../sandbox/index.js';
import {HarnessError} from '../benchmark/errors.js';
import {prepareInspector, type Inspector} from './inspect.js';

/** Debian's interpreter, whose modules Debian's python3-* packages install. */
export const debianPython = '/usr/bin/python3';

/** One interpreter an import may use: its path as found (what the entry records) and its inspector, made when first needed. */
export interface Interpreter {
  python: string;
  inspector: () => Inspector | undefined;
}

/**
 * The candidates, distinct by real executable. The first one's sandbox is checked now: without one the
 * import refuses before any task, as before. A broken ARBOR_PYTHON is the import's error, as the eval's.
 */
export function interpreters(explicit: string | undefined, unsandboxed: boolean, env: NodeJS.ProcessEnv): Interpreter[] {
  const asked = explicit ?? env.ARBOR_PYTHON;
  const wanted = [...(asked ? [asked] : []), '', debianPython];
  const seen = new Set<string>();
  const found: Interpreter[] = [];
  let firstError: unknown;
  for (const name of wanted) {
    let python: string;
    let real: string;
    try {
      python = findPython({...env, ARBOR_PYTHON: name});
      real = resolvePython(python).executable;
    } catch (error) {
      if (asked && name === asked) throw error;
      firstError ??= error;
      continue;
    }
    if (seen.has(real)) continue;
    seen.add(real);
    if (found.length === 0) {
      const inspector = prepareInspector(python, unsandboxed, env);
      found.push({python, inspector: () => inspector});
    } else found.push({python, inspector: lazyInspector(python, unsandboxed, env)});
  }
  if (!found.length) throw firstError instanceof HarnessError ? firstError : new HarnessError(String(firstError), 'no-python');
  return found;
}

/** An inspector made once, on first use; a later interpreter whose sandbox cannot start is passed over (undefined). */
function lazyInspector(python: string, unsandboxed: boolean, env: NodeJS.ProcessEnv): () => Inspector | undefined {
  let made: {inspector?: Inspector} | undefined;
  return () => {
    if (!made) {
      try {
        made = {inspector: prepareInspector(python, unsandboxed, env)};
      } catch {
        made = {};
      }
    }
    return made.inspector;
  };
}
