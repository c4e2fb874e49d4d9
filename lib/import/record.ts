/**
 * What an import compares an entry with before it writes: the digest of its inputs (the same digest
 * again writes nothing) and the files its user changed since the import wrote them (refused unless
 * --force: an import never overwrites a user's work silently).
 */
import {createHash} from 'node:crypto';
import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs';
import path from 'node:path';

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** Every file under `dir` (relative, sorted), Python's caches left out: they are not the task's. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      if (name === '__pycache__') return [];
      const file = path.join(dir, name);
      return statSync(file).isDirectory() ? filesUnder(file, `${prefix}${name}/`) : [`${prefix}${name}`];
    });
}

/**
 * The digest of one task's import inputs: the importer's version and options, the interpreter, the
 * license and every file of the task's folder (its module, description.txt, anything beside them).
 */
export function inputsDigest(inputs: {importer: string; options: Record<string, unknown>; python: string; license?: string; taskDir: string}): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify({importer: inputs.importer, options: inputs.options, python: inputs.python, license: sha256(inputs.license ?? '')}));
  for (const rel of filesUnder(inputs.taskDir)) hash.update(`\0${rel}\0${sha256(readFileSync(path.join(inputs.taskDir, rel)))}`);
  return hash.digest('hex');
}

/** The files of the entry at `dir` that differ from what the import wrote (`files`: hash by relative path), or are gone. */
export function editedFiles(dir: string, files: Record<string, string>): string[] {
  return Object.entries(files)
    .filter(([rel, hash]) => {
      const file = path.join(dir, rel);
      return !existsSync(file) || sha256(readFileSync(file)) !== hash;
    })
    .map(([rel]) => rel)
    .sort();
}
