/**
 * `list`: index a zoo. Discovery and the cache check run here with cheap stat
 * calls; only folders whose files changed are verified, by a pool of worker
 * threads (one per core) when there are enough of them, inline otherwise.
 */
import {readdirSync, realpathSync, statSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {Worker} from 'node:worker_threads';
import {UsageError} from '../errors.js';
import {arborVersion} from '../version.js';
import {cacheDir, folderKey, ResultCache, signature} from './cache.js';
import type {EntryStatus} from './entry.js';
import {describeFsError, kindOf} from './text.js';
import {nestedTemplateFiles, templateTextFiles, topLevelTextFiles} from './templates.js';
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
  /** Worker threads started to verify the misses (0: verified inline). */
  workers: number;
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
  /** Worker threads; 0 verifies inline. Default: `defaultWorkers()` (one per core) when there is enough work. */
  workers?: number;
}

/** Folder names list skips: scaffolding (`_`) and hidden (`.`) entries. */
export function isSkippedName(name: string): boolean {
  return name.startsWith('_') || name.startsWith('.');
}

/** Find the zoo folder: the given one, else `./arbor-zoo`, else `./zoo`. */
export function resolveZoo(zoo: string | undefined, cwd: string): {shown: string; abs: string} {
  if (zoo !== undefined && zoo.trim() === '') throw new UsageError('The zoo path is empty, expected a folder of benchmarks');
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
  const pending: {row: ListEntry; abs: string; key: {dir: string; files: string[]; sig: string}; newest: number}[] = [];
  const nested = nestedTemplateFiles();
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
  const verifier = new Verifier(options.workers ?? defaultWorkers(), options.workers !== undefined);
  let hits = 0;

  for (const dirent of dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const name = dirent.name;
    if (isSkippedName(name)) {
      if (!dirent.isFile()) skipped.push(name);
      continue;
    }
    const shown = path.join(zoo.shown, name);
    const abs = path.join(zoo.abs, name);
    const row: ListEntry = {name, path: shown, status: 'ok', errors: 0, warnings: 0, title: null};
    if (!dirent.isDirectory()) {
      if (dirent.isFile() || dirent.isFIFO() || dirent.isSocket()) continue; // plain files in a zoo are not benchmarks
      // A symlink, or an entry whose type the file system did not report: look at what it is.
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
    // The folder's own stat vouches for its listing (which files exist, eval.sh and eval.py
    // among them); the files' stats vouch for their content.
    const folder = folderKey(abs);
    const dir = folder?.key ?? '';
    const previous = cache?.entry(name);
    const files = previous && dir && previous.dir === dir ? previous.files : topLevelTextFiles(abs);
    const {sig, newest: newestFile} = signature(abs, ['README.md', 'PROVENANCE.md', ...files, ...nested]);
    const newest = Math.max(newestFile, folder?.newest ?? 0);
    rows.push(row);
    if (previous && previous.dir === dir && previous.sig === sig && sameFiles(previous.files, files)) {
      hits++;
      apply(row, previous.value);
    } else {
      verifier.add({abs, shown: row.path, files});
      pending.push({row, abs, key: {dir, files, sig}, newest});
    }
  }

  const results = await verifier.finish();
  pending.forEach((p, i) => {
    const status = results[i]!;
    apply(p.row, status);
    cache?.set(p.row.name, p.key, status, p.newest, readAt);
  });
  if (cache) {
    cache.prune(new Set(rows.map((r) => r.name)));
    cache.save();
  }
  return {zoo: zoo.shown, benchmarks: rows, skipped, cache: {hits, misses: pending.length, file: cache?.file ?? null}, workers: verifier.workersStarted};
}

function sameFiles(a: readonly string[], b: readonly string[]): boolean {
  return a === b || (a.length === b.length && a.every((name, i) => name === b[i]));
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
/** arbor's version plus its build time: a rebuilt arbor (new rules) starts with a fresh cache. */
function version(): string {
  if (cachedVersion) return cachedVersion;
  let built = 0;
  try {
    built = statSync(new URL(import.meta.url)).mtimeMs;
  } catch {
    // keep 0
  }
  return (cachedVersion = `${arborVersion()}+${built}`);
}

/** Below this many folders to verify, starting workers costs more than it saves. */
const inlineBelow = 24;
const batchSize = 16;
/** Old-generation cap of each worker: parse garbage is collected instead of growing the heap. */
const workerHeapMb = 192;

/** A folder to verify, with the top-level text files discovery already listed. */
type Item = {abs: string; shown: string; files?: string[]};

const cores = () => (typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);

/**
 * How many worker threads to use: one per core. Starting a worker costs about
 * as much as verifying a few dozen folders, so even on a busy machine a second
 * one pays for itself on a large zoo and costs nothing measurable on a small
 * one. `ARBOR_LIST_WORKERS` overrides it (0 = inline).
 */
export function defaultWorkers(env: NodeJS.ProcessEnv = process.env): number {
  const forced = env.ARBOR_LIST_WORKERS;
  if (forced !== undefined && /^\d+$/.test(forced)) return Number(forced);
  return Math.max(1, cores());
}

/**
 * Verifies folders as discovery finds them: once enough have queued up, a
 * worker thread starts (loading the parsers while discovery goes on) and takes
 * batches as they fill, joined by more (up to the pool size) while batches
 * wait; a small job is verified inline instead.
 */
class Verifier {
  private readonly items: Item[] = [];
  private readonly results: EntryStatus[] = [];
  private readonly queue: number[] = [];
  private readonly idle: Worker[] = [];
  private readonly running = new Set<Promise<void>>();
  private queued = 0;
  private failure: unknown;
  private done = false;

  constructor(
    private readonly workers: number,
    private readonly explicit: boolean,
  ) {}

  /** Queue a folder; returns its index in the results. */
  add(item: Item): number {
    this.items.push(item);
    if (this.running.size === 0 && this.workers > 0 && (this.explicit || this.items.length >= inlineBelow)) this.spawn();
    if (this.running.size > 0) this.flush(false);
    return this.items.length - 1;
  }

  /** Wait for every queued folder's result. */
  async finish(): Promise<EntryStatus[]> {
    this.done = true;
    if (this.running.size === 0) {
      if (this.items.length === 0) return [];
      const [{inspectEntry}, {markdown}] = await Promise.all([import('./entry.js'), import('./markdown.js')]);
      return this.items.map((item) => inspectEntry(item.abs, item.shown, markdown, item.files));
    }
    this.flush(true);
    await Promise.all(this.running);
    // A worker that died (say, out of memory on a huge README) leaves holes: verify those inline.
    const missing = this.items.map((_, i) => i).filter((i) => this.results[i] === undefined);
    if (missing.length) {
      const [{inspectEntry}, {markdown}] = await Promise.all([import('./entry.js'), import('./markdown.js')]);
      for (const i of missing) this.results[i] = inspectEntry(this.items[i]!.abs, this.items[i]!.shown, markdown, this.items[i]!.files);
    }
    return this.results;
  }

  /** Worker threads started so far. */
  get workersStarted(): number {
    return this.running.size;
  }

  /** Start one more worker, idle until it is handed a batch. */
  private spawn(): void {
    const worker = new Worker(new URL('./list-worker.js', import.meta.url), {resourceLimits: {maxOldGenerationSizeMb: workerHeapMb}});
    const finished = new Promise<void>((resolve) => {
      worker.on('message', (message: WorkerResult) => {
        message.results.forEach((result, k) => (this.results[message.id + k] = result));
        this.idle.push(worker);
        this.pump();
      });
      worker.on('error', (error) => {
        this.failure ??= error;
        resolve();
      });
      worker.on('exit', () => resolve());
    });
    this.running.add(finished);
    this.idle.push(worker);
  }

  /** Cut queued folders into batches (a last short one only when `all`). */
  private flush(all: boolean): void {
    while (this.items.length - this.queued >= batchSize || (all && this.items.length > this.queued)) {
      this.queue.push(this.queued);
      this.queued = Math.min(this.items.length, this.queued + batchSize);
    }
    this.pump();
  }

  /**
   * Hand batches to idle workers, starting another (up to the pool size) only
   * when a batch is waiting and none is idle, so a small zoo never starts more
   * workers than it has batches; stop the workers when everything is done.
   */
  private pump(): void {
    while (this.queue.length && (this.idle.length || (this.running.size < this.workers && !this.failure))) {
      if (!this.idle.length) this.spawn();
      const start = this.queue.shift()!;
      const end = Math.min(this.items.length, start + batchSize);
      this.idle.shift()!.postMessage({id: start, items: this.items.slice(start, end)} satisfies WorkerBatch);
    }
    if (this.done && this.queue.length === 0 && this.queued === this.items.length && (this.idle.length === this.running.size || this.failure))
      for (const worker of this.idle.splice(0)) void worker.terminate();
  }
}
