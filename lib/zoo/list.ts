/**
 * `list`: index a zoo. Discovery and the cache check run here with cheap stat
 * calls; only folders whose files changed are verified, by a pool of worker
 * threads (one per core) when there are enough of them, inline otherwise.
 */
import {existsSync, readdirSync, readFileSync, realpathSync, statSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {Worker} from 'node:worker_threads';
import {UsageError} from '../errors.js';
import {cacheDir, ResultCache, signature} from './cache.js';
import type {EntryStatus} from './entry.js';
import {describeFsError, kindOf} from './text.js';
import {scannedFiles, templateTextFiles} from './templates.js';
import type {WorkerBatch, WorkerResult} from './list-worker.js';

/** One row of the index. */
export interface ListEntry {
  /** Folder name. */
  name: string;
  /** Folder path as shown (zoo path joined with the name). */
  path: string;
  /** `ok`: verify passes; `failing`: verify finds errors; `broken`: not a readable folder. */
  status: 'ok' | 'failing' | 'broken';
  errors: number;
  warnings: number;
  /** First prose line of the README, or null. */
  title: string | null;
  /** For `failing`: the first error; for `broken`: what is wrong with the folder. */
  problem?: string;
}

/** The whole index. */
export interface ListResult {
  /** The zoo folder as shown. */
  zoo: string;
  benchmarks: ListEntry[];
  /** Names skipped because they start with `_` or `.`. */
  skipped: string[];
  /** How many entries were served from the cache and how many were verified. */
  cache: {hits: number; misses: number; file: string | null};
}

/** Options of `listZoo`. */
export interface ListOptions {
  /** The zoo folder; default `./arbor-zoo`, else `./zoo`. */
  zoo?: string;
  cwd?: string;
  /** Use the result cache (default true). */
  cache?: boolean;
  /** Cache folder (default: `cacheDir()`). */
  cacheDir?: string;
  /** Worker threads; 0 verifies inline. Default: one per core when there is enough work. */
  workers?: number;
}

/** Folder names list skips: scaffolding (`_`) and hidden (`.`) entries. */
export function isSkippedName(name: string): boolean {
  return name.startsWith('_') || name.startsWith('.');
}

/** Find the zoo folder: the given one, else `./arbor-zoo`, else `./zoo`. */
export function resolveZoo(zoo: string | undefined, cwd: string): {shown: string; abs: string} {
  const candidates = zoo === undefined ? ['arbor-zoo', 'zoo'] : [zoo];
  for (const shown of candidates) {
    const abs = path.resolve(cwd, shown);
    let stats;
    try {
      stats = statSync(abs, {throwIfNoEntry: false});
    } catch (error) {
      throw new UsageError(`Cannot read zoo \`${shown}\` (${describeFsError(error)}), expected a folder of benchmarks`);
    }
    if (!stats) {
      if (zoo === undefined) continue;
      throw new UsageError(`Zoo \`${shown}\` does not exist, expected a folder of benchmarks`, 'not-found');
    }
    if (!stats.isDirectory())
      throw new UsageError(`Zoo \`${shown}\` is ${kindOf(stats).replace('not a regular file', 'not a folder')}, expected a folder of benchmarks`, 'not-a-folder');
    return {shown, abs};
  }
  throw new UsageError('No zoo found: neither `./arbor-zoo` nor `./zoo` exists; pass the zoo folder, e.g. `arbor benchmark list path/to/zoo`', 'not-found');
}

/** Index a zoo: every non-skipped subfolder, sorted, with its verify status and title. */
export async function listZoo(options: ListOptions = {}): Promise<ListResult> {
  const cwd = options.cwd ?? process.cwd();
  const zoo = resolveZoo(options.zoo, cwd);
  let dirents;
  try {
    dirents = readdirSync(zoo.abs, {withFileTypes: true});
  } catch (error) {
    throw new UsageError(`Cannot read zoo \`${zoo.shown}\` (${describeFsError(error)}), expected a readable folder`);
  }
  const skipped: string[] = [];
  const rows: ListEntry[] = [];
  const pending: {row: ListEntry; abs: string; sig: string; newest: number}[] = [];
  const useCache = options.cache !== false;
  let cache: ResultCache<EntryStatus> | undefined;
  if (useCache) {
    let real = zoo.abs;
    try {
      real = realpathSync(zoo.abs);
    } catch {
      // keep the resolved path
    }
    cache = new ResultCache<EntryStatus>(options.cacheDir ?? cacheDir(), `${real}\0${version()}\0${templateTextFiles().join(',')}`).load();
  }
  const readAt = Date.now();
  let hits = 0;

  for (const dirent of dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const name = dirent.name;
    if (isSkippedName(name)) {
      if (dirent.isDirectory() || dirent.isSymbolicLink()) skipped.push(name);
      continue;
    }
    const shown = path.join(zoo.shown, name);
    const abs = path.join(zoo.abs, name);
    const row: ListEntry = {name, path: shown, status: 'ok', errors: 0, warnings: 0, title: null};
    if (!dirent.isDirectory()) {
      if (!dirent.isSymbolicLink()) continue; // plain files in a zoo are not benchmarks
      let target;
      try {
        target = statSync(abs);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        rows.push(broken(row, code === 'ENOENT' ? 'dangling symlink' : describeFsError(error)));
        continue;
      }
      if (!target.isDirectory()) continue;
    }
    const {sig, newest} = signature(abs, ['README.md', 'PROVENANCE.md', 'eval.sh', 'eval.py', ...scannedFiles(abs)]);
    const cached = cache?.get(name, sig);
    rows.push(row);
    if (cached) {
      hits++;
      apply(row, cached);
    } else pending.push({row, abs, sig, newest});
  }

  const results = await verifyAll(
    pending.map((p) => ({abs: p.abs, shown: p.row.path})),
    options.workers,
  );
  pending.forEach((p, i) => {
    const status = results[i]!;
    apply(p.row, status);
    cache?.set(p.row.name, p.sig, status, p.newest, readAt);
  });
  if (cache) {
    cache.prune(new Set(rows.map((r) => r.name)));
    cache.save();
  }
  return {zoo: zoo.shown, benchmarks: rows, skipped, cache: {hits, misses: pending.length, file: cache?.file ?? null}};
}

function broken(row: ListEntry, problem: string): ListEntry {
  row.status = 'broken';
  row.errors = 1;
  row.problem = problem;
  return row;
}

function apply(row: ListEntry, status: EntryStatus): void {
  row.errors = status.errors;
  row.warnings = status.warnings;
  row.title = status.title;
  row.status = status.errors > 0 ? 'failing' : 'ok';
  if (status.firstError) row.problem = status.firstError;
}

let cachedVersion: string | undefined;
function version(): string {
  if (cachedVersion) return cachedVersion;
  try {
    const here = path.dirname(new URL(import.meta.url).pathname);
    for (const candidate of [path.resolve(here, '../../package.json'), path.resolve(here, '../../../package.json')])
      if (existsSync(candidate)) {
        const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as {version?: string};
        // The build time makes a rebuilt arbor (new rules) start with a fresh cache.
        const built = statSync(new URL(import.meta.url)).mtimeMs;
        return (cachedVersion = `${pkg.version ?? '0'}+${built}`);
      }
  } catch {
    // fall through
  }
  return (cachedVersion = 'unknown');
}

/** Below this many folders to verify, starting workers costs more than it saves. */
const inlineBelow = 24;
const batchSize = 16;

async function verifyAll(items: {abs: string; shown: string}[], workers?: number): Promise<EntryStatus[]> {
  if (items.length === 0) return [];
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  const count = Math.min(workers ?? cores, Math.ceil(items.length / batchSize));
  if (count <= 0 || (workers === undefined && items.length < inlineBelow)) {
    const [{inspectEntry}, {markdown}] = await Promise.all([import('./entry.js'), import('./markdown.js')]);
    return items.map((item) => inspectEntry(item.abs, item.shown, markdown));
  }
  const results: EntryStatus[] = new Array(items.length);
  let next = 0;
  const url = new URL('./list-worker.js', import.meta.url);
  const runWorker = () =>
    new Promise<void>((resolve, reject) => {
      const worker = new Worker(url);
      const send = () => {
        if (next >= items.length) {
          void worker.terminate().then(() => resolve());
          return;
        }
        const start = next;
        next = Math.min(items.length, next + batchSize);
        worker.postMessage({id: start, items: items.slice(start, next)} satisfies WorkerBatch);
      };
      worker.on('message', (message: WorkerResult) => {
        message.results.forEach((result, i) => (results[message.id + i] = result));
        send();
      });
      worker.on('error', reject);
      worker.on('exit', (code) => {
        if (code !== 0 && next < items.length) reject(new Error(`list worker exited with code ${code}`));
      });
      send();
    });
  await Promise.all(Array.from({length: count}, runWorker));
  return results;
}
