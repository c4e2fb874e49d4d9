/**
 * Loading a bundle's authored code: a JavaScript module's default export, or
 * a function of a `.py` module served by one Python process per scope
 * (python.ts). Apart from bundle.ts so that the Python host, which needs the
 * bundle's types and shapes, is loaded only when a bundle is Python, and
 * nothing imports in a circle.
 */
import {AsyncLocalStorage} from 'node:async_hooks';
import {pathToFileURL} from 'node:url';
import type {Bundle} from './bundle.js';
import {BundleError, describeThrown} from './errors.js';

/** Resources of authored code that live as long as one make or verify (a Python bundle's process). */
interface AuthoredScope {
  bundle: Bundle;
  closers: (() => Promise<void>)[];
  /** Stop the Python process (SIGSTOP) after each call, until the next: nothing of it runs between calls. */
  stopBetweenCalls?: boolean;
}

/** How a scope of authored code treats its processes. */
export interface AuthoredOptions {
  /**
   * Stop a Python bundle's process between calls (SIGSTOP; SIGCONT with the next call). An eval asks it: its
   * scope lives while cases are timed, and a process that merely waits can still run (a BLAS's worker threads
   * spin for about 0.1 s after each call; a thread authored code started runs on).
   */
  stopBetweenCalls?: boolean;
}

const scopes = new AsyncLocalStorage<AuthoredScope>();

/**
 * Run `work` as one scope of authored code: a Python entry point's process starts at most once in it and ends with it.
 * Inside a scope of the same bundle, `work` joins it: an eval holds one scope for all its makes, expected answers and
 * verifies, so one Python start (about 0.25 s with numpy, more behind a version manager's shim) serves every
 * repetition instead of two or three each.
 */
export async function withAuthored<T>(bundle: Bundle, work: () => Promise<T>, options: AuthoredOptions = {}): Promise<T> {
  if (scopes.getStore()?.bundle === bundle) return work();
  const scope: AuthoredScope = {bundle, closers: [], stopBetweenCalls: options.stopBetweenCalls};
  try {
    return await scopes.run(scope, work);
  } finally {
    for (const close of scope.closers) await close();
  }
}

/** The entry point of an authored module: a JavaScript module's default export, or a `.py` module's function (python.ts). */
export async function importAuthored(file: string, role: string): Promise<(...args: never[]) => unknown> {
  if (file.endsWith('.py')) {
    const scope = scopes.getStore();
    if (!scope) throw new BundleError(`the ${role} ${file} is Python, which runs only inside make or verify (withAuthored)`);
    const {importPython} = await import('./python.js');
    return importPython(scope, file, role);
  }
  let module: {default?: unknown};
  try {
    module = (await import(pathToFileURL(file).href)) as {default?: unknown};
  } catch (error) {
    throw new BundleError(`cannot load the ${role} ${file}: ${describeThrown(error).split('\n', 1)[0]}`);
  }
  if (typeof module.default !== 'function') {
    throw new BundleError(`the ${role} ${file} must have a default export that is a function`);
  }
  return module.default as (...args: never[]) => unknown;
}
