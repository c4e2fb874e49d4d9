/**
 * `scaffold`: write a new benchmark folder from `templates/<style>/`. Every
 * template file is copied (modes kept), `{{name}}` is replaced in text files,
 * line endings become LF. The folder is built in a temporary sibling and
 * renamed into place, so an interrupted scaffold leaves nothing half-made.
 */
import {chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {UsageError} from '../errors.js';
import {checkBenchmarkName} from './names.js';
import {findPlaceholders} from './rules/placeholder.js';
import {listFiles, templatesRoot} from './templates.js';
import {describeFsError} from './text.js';
import {refuseUnlessEmptyFolder} from './copy.js';

/** Options of `scaffoldBenchmark`. */
export interface ScaffoldOptions {
  cwd?: string;
  /** Template style: a folder under `templates/` (default `zoo`). */
  style?: string;
  /** Allow a name starting with `_` (scaffolding, skipped by list). */
  allowUnderscore?: boolean;
  /** Templates folder (default: the one shipped with arbor). */
  templates?: string;
}

/** What scaffold wrote. */
export interface ScaffoldResult {
  dir: string;
  name: string;
  style: string;
  files: string[];
  /** Placeholders left to fill in: file and line. */
  placeholders: {file: string; line: number; text: string}[];
}

/** The styles available under the templates folder. */
export function templateStyles(templates = templatesRoot()): string[] {
  try {
    return readdirSync(templates, {withFileTypes: true})
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/** Write a new benchmark folder at `dir`. */
export function scaffoldBenchmark(dir: string, options: ScaffoldOptions = {}): ScaffoldResult {
  const cwd = options.cwd ?? process.cwd();
  const style = options.style ?? 'zoo';
  const templates = options.templates ?? templatesRoot();
  if (dir.trim() === '') throw new UsageError('The benchmark folder path is empty, expected e.g. `zoo/my_task`', 'bad-name');
  const target = path.resolve(cwd, dir);
  const name = path.basename(target);
  if (/(^|[\\/])\.\.([\\/]|$)/.test(dir)) throw new UsageError(`Invalid benchmark folder \`${dir}\`: it contains \`..\`; expected a path inside the zoo`, 'bad-name');
  checkBenchmarkName(name, {allowUnderscore: options.allowUnderscore});
  const source = path.join(templates, style);
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(style) || !existsSync(source))
    throw new UsageError(`Unknown style \`${style}\`, expected one of: ${templateStyles(templates).join(', ') || '(none installed)'}`, 'bad-style');

  refuseUnlessEmptyFolder(target, dir, 'scaffold');

  const parent = path.dirname(target);
  const files = listFiles(source);
  const placeholders: ScaffoldResult['placeholders'] = [];
  let temp: string | undefined;
  try {
    mkdirSync(parent, {recursive: true});
    temp = mkdtempSync(path.join(parent, `.${name}.scaffold-`));
    for (const rel of files) {
      const from = path.join(source, rel);
      const to = path.join(temp, rel.replaceAll('{{name}}', name));
      mkdirSync(path.dirname(to), {recursive: true});
      const bytes = readFileSync(from);
      const text = asText(bytes);
      if (text === undefined) writeFileSync(to, bytes);
      else {
        const filled = text.replace(/\r\n?/g, '\n').replaceAll('{{name}}', name);
        writeFileSync(to, filled);
        for (const found of findPlaceholders(filled))
          placeholders.push({file: rel, line: filled.slice(0, found.offset).split('\n').length, text: found.text});
      }
      chmodSync(to, statSync(from).mode & 0o777);
    }
    chmodSync(temp, 0o755);
    renameSync(temp, target);
  } catch (error) {
    if (temp) rmSync(temp, {recursive: true, force: true});
    throw new UsageError(`Could not write \`${dir}\` (${describeFsError(error)}); nothing was changed`, 'write-failed', {cause: error});
  }
  return {dir, name, style, files: files.map((f) => f.replaceAll('{{name}}', name)), placeholders};
}

const strict = new TextDecoder('utf-8', {fatal: true});

/** The text of `bytes` if they are UTF-8 without NUL bytes, else undefined (binary). */
function asText(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}
