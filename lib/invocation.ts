/**
 * How a person runs *this* arbor from a shell, as printed in the commands'
 * "Next" lines, and whether a benchmark's eval entrypoint finds an arbor by
 * itself. A printed line must work when pasted on a machine where arbor was
 * installed as the README says (`npm install`, no `npm link`): `arbor` only
 * when the `arbor` on the PATH is this one, `npx arbor` only where npx would
 * find this one without asking the registry, else `node <this CLI>`.
 */
import {accessSync, constants, existsSync, readFileSync, realpathSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {onPath} from './pyenv.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Whether `dir` is an arbor package root: its package.json is named arbor and it has a built CLI. */
/** Whether `dir` is an arbor checkout or install: its package is arbor, built. */
export function isArborRoot(dir: string): boolean {
  try {
    return existsSync(path.join(dir, 'dist/cli/index.js')) && readFileSync(path.join(dir, 'package.json'), 'utf8').includes('"name": "arbor"');
  } catch {
    return false;
  }
}

/** The absolute path of this arbor's CLI (`<package>/dist/cli/index.js`; works from `lib/` and from `dist/lib/`). */
export function arborCliPath(): string {
  for (const root of [path.resolve(here, '..'), path.resolve(here, '../..')]) if (isArborRoot(root)) return path.join(root, 'dist/cli/index.js');
  return path.resolve(here, '../cli/index.js');
}

/** A word for a POSIX shell: as is when it is plain, else in single quotes. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The real path of `file`, or undefined when it does not resolve. */
function real(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

/** Whether `file` is this arbor's CLI (through any symlinks, e.g. node_modules/.bin/arbor or an `npm link`). */
function isThisArbor(file: string | undefined): boolean {
  return file !== undefined && real(file) !== undefined && real(file) === real(arborCliPath());
}

/**
 * The folder npm takes for the project from `cwd`: the nearest ancestor with a
 * package.json or a node_modules (npm's own rule), where `npx` looks first.
 */
function npmProject(cwd: string): string | undefined {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json')) || existsSync(path.join(dir, 'node_modules'))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * The environment of the shell a printed line is pasted into. Under `npx arbor`
 * or `npm exec` (npm sets `npm_command`), npm has put every ancestor's
 * `node_modules/.bin`, its npx cache's and its node-gyp-bin in front of PATH;
 * the user's shell has none of them, so an `arbor` found only there is not one
 * a pasted `arbor` would run.
 */
function shellEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (!env.npm_command) return env;
  const injected = (folder: string) => /(^|\/)node_modules\/\.bin\/?$/.test(folder) || /\/node-gyp-bin\/?$/.test(folder);
  return {
    ...env,
    PATH: (env.PATH ?? '')
      .split(path.delimiter)
      .filter((folder) => !injected(folder))
      .join(path.delimiter),
  };
}

/** Options of `arborCommand`: where the printed line is run from, and its environment. */
export interface InvocationOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * The words that run this arbor, as they can be pasted in `cwd`: `arbor` when
 * the `arbor` on the PATH is this one; `npx arbor` when npm's project for `cwd`
 * has this arbor installed (node_modules/.bin/arbor) or is this arbor's own
 * repository; else `node /abs/path/dist/cli/index.js` (node by its absolute
 * path when the PATH's node is another one or none).
 */
export function arborCommand(options: InvocationOptions = {}): string {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  if (isThisArbor(onPath('arbor', shellEnv(env)))) return 'arbor';
  const project = npmProject(cwd);
  if (
    project !== undefined &&
    onPath('npx', env) &&
    (isThisArbor(path.join(project, 'node_modules/.bin/arbor')) || (isArborRoot(project) && isThisArbor(path.join(project, 'dist/cli/index.js'))))
  )
    return 'npx arbor';
  const node = onPath('node', env);
  const nodeWord = node !== undefined && real(node) === real(process.execPath) ? 'node' : shellWord(process.execPath);
  return `${nodeWord} ${shellWord(arborCliPath())}`;
}

/** The recorded "arbor that made it" in an eval entrypoint (`made_by=` in eval.sh, `MADE_BY = ` in eval.py), or undefined. */
function recordedArbor(entrypoint: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(entrypoint, 'utf8');
  } catch {
    return undefined;
  }
  const sh = /^made_by='((?:[^']|'\\'')*)'$/m.exec(text);
  if (sh) return sh[1]!.replaceAll(`'\\''`, "'") || undefined;
  const py = /^MADE_BY = ("(?:[^"\\]|\\.)*")$/m.exec(text);
  if (py) {
    try {
      return (JSON.parse(py[1]!) as string) || undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * Whether the eval entrypoint of `dir` finds an arbor by itself, trying what
 * templates/eval-sh/eval.sh and templates/eval-py/eval.py try, in their order:
 * `$ARBOR`; the nearest ancestor that is an arbor checkout or has
 * node_modules/.bin/arbor; the arbor recorded in the entrypoint when it is
 * there; `arbor` on the PATH.
 */
export function entrypointFindsArbor(dir: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.ARBOR) return true;
  for (let folder = path.resolve(dir); ; folder = path.dirname(folder)) {
    if (isArborRoot(folder)) return true;
    try {
      accessSync(path.join(folder, 'node_modules/.bin/arbor'), constants.X_OK);
      return true;
    } catch {
      // not here
    }
    if (path.dirname(folder) === folder) break;
  }
  const entrypoint = ['eval.sh', 'eval.py'].map((name) => path.join(dir, name)).find((file) => existsSync(file));
  const recorded = entrypoint === undefined ? undefined : recordedArbor(entrypoint);
  if (recorded !== undefined && existsSync(recorded)) return true;
  return onPath('arbor', env) !== undefined;
}
