/**
 * The interpreter a pyenv shim would run, found without running it. pyenv's
 * shim is a chain of bash scripts (`pyenv exec`, `version-name`, `hooks`,
 * `which`…) that took about 1.2 s here on every start, and every eval paid it
 * to learn which python `python3` is. The version is read the way pyenv reads
 * it (`PYENV_VERSION`, else the nearest `.python-version` from the current
 * folder up, else `$PYENV_ROOT/version`), and only a plain answer is taken:
 * one exact version whose `bin/<program>` exists. Anything else (several
 * versions, `system`, a prefix such as `3.11`, a conda environment,
 * `PYENV_DIR`) gives undefined, and the shim runs as before.
 */
import {accessSync, constants, existsSync, readFileSync, statSync} from 'node:fs';
import path from 'node:path';

/** A pyenv shim is a few hundred bytes; a larger file is not read. */
const maxShimBytes = 4096;

/** The versions a pyenv version file names (words; a `#` line is a comment), or undefined when it cannot be read. */
function versionsIn(file: string): string[] | undefined {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => !line.trimStart().startsWith('#'))
      .flatMap((line) => line.trim().split(/\s+/))
      .filter(Boolean);
  } catch {
    return undefined;
  }
}

/** The nearest `.python-version` at or above `dir`, or undefined. */
function localVersionFile(dir: string): string | undefined {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const file = path.join(at, '.python-version');
    if (existsSync(file)) return file;
    if (path.dirname(at) === at) return undefined;
  }
}

/** The first executable file named `program` in a folder of `env.PATH` (a relative folder taken from `cwd`), or undefined. */
export function onPath(program: string, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.resolve(cwd, dir, program);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // Not here: the next folder.
    }
  }
  return undefined;
}

/** The executable the pyenv shim `file` would run from `cwd` under `env`, when that is certain; else undefined. */
export function pyenvTarget(file: string, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string | undefined {
  let text: string;
  try {
    if (statSync(file).size > maxShimBytes) return undefined;
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const shim = /^exec "([^"\n]+)\/libexec\/pyenv" exec "\$program" "\$@"$/m.exec(text);
  if (!shim || env.PYENV_DIR) return undefined;
  const root = shim[1]!;
  let versions: string[] | undefined;
  if (env.PYENV_VERSION) versions = env.PYENV_VERSION.split(':').filter(Boolean);
  else {
    const local = localVersionFile(cwd);
    versions = local ? versionsIn(local) : versionsIn(path.join(root, 'version'));
  }
  if (versions?.length !== 1) return undefined;
  const version = versions[0]!;
  if (version === 'system' || !/^[\w][\w.+-]*$/.test(version)) return undefined;
  const prefix = path.join(root, 'versions', version);
  // A conda environment has hooks of its own in pyenv's `which`: leave it to the shim.
  if (existsSync(path.join(prefix, 'conda-meta'))) return undefined;
  const target = path.join(prefix, 'bin', path.basename(file));
  try {
    accessSync(target, constants.X_OK);
    return statSync(target).isFile() ? target : undefined;
  } catch {
    return undefined;
  }
}
