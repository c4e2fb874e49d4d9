/** Where the scaffold templates live, and which of their files are text. */
import {existsSync, readdirSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The `templates/` folder of this arbor install (works from `lib/` and from `dist/lib/`). */
export function templatesRoot(): string {
  for (const candidate of [path.resolve(here, '../../templates'), path.resolve(here, '../../../templates')])
    if (existsSync(path.join(candidate, 'base'))) return candidate;
  return path.resolve(here, '../../../templates');
}

const textExtensions = new Set(['.md', '.txt', '.py', '.sh', '.toml', '.mjs', '.js', '.cjs', '.json', '.yaml', '.yml', '.cfg', '.ini']);

/** Whether a file name looks like text the scaffold fills in. */
function isTextName(name: string): boolean {
  return textExtensions.has(path.extname(name).toLowerCase());
}

/** Every file of a folder, recursively, as `/`-separated relative paths, sorted. */
function listFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, {withFileTypes: true})) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path.join(dir, entry.name), rel);
      else if (entry.isFile()) out.push(rel);
    }
  };
  walk(root, '');
  return out.sort();
}

let cached: string[] | undefined;

/** Text files of every template part (`base`, `eval-sh`, `bundle-py`, …), minus README/PROVENANCE: the other files placeholders can hide in. */
export function templateTextFiles(): string[] {
  if (cached) return cached;
  const root = templatesRoot();
  const names = new Set<string>();
  let parts: string[] = [];
  try {
    parts = readdirSync(root, {withFileTypes: true})
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch {
    parts = [];
  }
  for (const part of parts)
    for (const file of listFiles(path.join(root, part)))
      if (isTextName(file) && file !== 'README.md' && file !== 'PROVENANCE.md' && !file.includes('{{')) names.add(file);
  cached = [...names].sort();
  return cached;
}

/** The top-level text files of a folder other than README/PROVENANCE (placeholders can hide in them), from its listing (each name's lstat kind); [] when it could not be listed. */
export function textFilesOf(entries: ReadonlyMap<string, string> | undefined): string[] {
  const names: string[] = [];
  for (const [name, kind] of entries ?? [])
    if ((kind === 'file' || kind === 'symlink') && isTextName(name) && name !== 'README.md' && name !== 'PROVENANCE.md') names.push(name);
  return names.sort();
}

/** Template text files inside subfolders (e.g. `bundle/generate.mjs`): scanned when they exist. */
export function nestedTemplateFiles(): string[] {
  return templateTextFiles().filter((file) => file.includes('/'));
}

/**
 * The files other than README/PROVENANCE that verify scans for placeholders:
 * every top-level text file of the folder, plus every template text file in a
 * subfolder (for example under `bundle/`) that exists in it.
 */
export function scannedFiles(root: string, topLevel: readonly string[], list: (folder: string) => Iterable<string> | undefined = namesIn): string[] {
  const names = new Set(topLevel);
  // One listing of each folder the template files sit in (`bundle/`, `data/dev/`), not a stat per
  // file: an absent folder has none of them, and a present one says which it has.
  const listings = new Map<string, Set<string> | undefined>();
  for (const file of nestedTemplateFiles()) {
    const slash = file.lastIndexOf('/');
    const folder = file.slice(0, slash);
    if (!listings.has(folder)) {
      const names = list(path.join(root, folder));
      listings.set(folder, names && new Set(names));
    }
    if (listings.get(folder)?.has(file.slice(slash + 1))) names.add(file);
  }
  return [...names].sort();
}

/** The names in a folder (as `existsSync` would find them: a folder or a broken link among them reads as no text), or undefined when it cannot be listed. */
function namesIn(folder: string): Set<string> | undefined {
  try {
    return new Set(readdirSync(folder));
  } catch {
    return undefined;
  }
}
