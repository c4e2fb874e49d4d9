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
import {cacheDir, folderKey, ResultCache, type StatResult, signature, statOf} from './cache.js';
import type {EntryStatus, Inspected} from './entry.js';
import {describeFsError, kindOf} from './text.js';
import {templateTextFiles} from './templates.js';
import type {WorkerBatch, WorkerResult} from './list-worker.js';
import type {ValidatorStrength} from './rules/weak-validator.js';

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
  /** An imported entry's validator strength, measured at its import (rules/weak-validator.ts): the wrong answers tried and those accepted. */
  validator?: ValidatorStrength;
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
  /** Worker threads; 0 verifies inline. Default: `defaultWorkers()` (one per core besides the main thread's, from three cores) when there is enough work. */
  workers?: number;
}

/** Folder names list skips: scaffolding (`_`) and hidden (`.`) entries. */
export function isSkippedName(name: string): boolean {
  return name.startsWith('_') || name.startsWith('.');
}

/** Whether `dir` holds at least one benchmark folder (a visible subfolder with a plan.toml or an eval.sh). */
function holdsBenchmarks(dir: string): boolean {
  let dirents;
  try {
    dirents = readdirSync(dir, {withFileTypes: true});
  } catch {
    return false;
  }
  return dirents.some(
    (d) =>
      d.isDirectory() &&
      !isSkippedName(d.name) &&
      ['plan.toml', 'eval.sh'].some((file) => statSync(path.join(dir, d.name, file), {throwIfNoEntry: false})?.isFile()),
  );
}

/**
 * The zoo folder a command works on: the one named, else `./arbor-zoo`, else
 * `./zoo`, else the working directory itself when it holds benchmark folders
 * (run inside a zoo). Every zoo-taking command finds its default this way and
 * gives the same hint when there is none. `command` names the command in
 * that hint.
 */
export function resolveZoo(zoo: string | undefined, cwd: string, command = 'list'): {shown: string; abs: string} {
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
      throw new UsageError(
        `Zoo \`${shown}\` is ${kindOf(stats).replace('not a regular file', 'not a folder')}, expected a folder of benchmarks`,
        'not-a-folder',
      );
    return {shown, abs};
  }
  if (holdsBenchmarks(cwd)) return {shown: '.', abs: path.resolve(cwd)};
  throw new UsageError(
    `No zoo found: neither \`./arbor-zoo\` nor \`./zoo\` exists and this folder holds no benchmark folders; pass the zoo folder, e.g. \`arbor benchmark ${command} path/to/zoo\``,
    'not-found',
  );
}

/**
 * The zoo a folder is in, for the ledger's history (`readRuns`' `zoo`): `resolveZoo`'s default, or
 * the folder itself when it holds benchmark folders; undefined when there is none (no error: the
 * history is then a benchmark's or the folder's).
 */
export function zooAround(cwd: string): string | undefined {
  try {
    return resolveZoo(undefined, cwd).abs;
  } catch {
    return holdsBenchmarks(cwd) ? path.resolve(cwd) : undefined;
  }
}

/** What the driver posts: the start, batches of rows, then the summary or the error. */
export type DriverMessage =
  | {type: 'start'; info: ListStart}
  | {type: 'rows'; rows: ListEntry[]}
  | {type: 'end'; summary: ListSummary}
  | {type: 'error'; message: string; code: string; exitCode: number}
  | {type: 'crash'; stack: string};

/** What `listZooStream` knows before the first row: the zoo, the skipped names, the rows to come. */
export interface ListStart {
  zoo: string;
  skipped: string[];
  /** How many rows will follow. */
  total: number;
  /** The longest row name (for aligning a table that is printed as it streams). */
  nameWidth: number;
}

/** The counts `listZooStream` ends with. */
export interface ListSummary {
  zoo: string;
  skipped: string[];
  total: number;
  ok: number;
  failing: number;
  broken: number;
  cache: ListResult['cache'];
  workers: number;
}

/** Where `listZooStream` sends rows: `start` once, then `entry` per row in name order. */
export interface ListSink {
  start?(info: ListStart): void;
  entry(entry: ListEntry): void;
}

/** Folders verified but not yet emitted past which discovery waits for the verifier. */
const maxOutstanding = 256;

/**
 * Index a zoo, sending each row to `sink` as soon as it and every row before it are decided:
 * cached rows at once, others when their verify result comes back. Memory does not grow with
 * the zoo beyond its names and the cache: discovery waits while too many rows are undecided.
 */
export async function listZooStream(options: ListOptions, sink: ListSink): Promise<ListSummary> {
  const cwd = options.cwd ?? process.cwd();
  const zoo = resolveZoo(options.zoo, cwd);
  const {skipped, candidates, brokenLinks} = discoverEntries(zoo);
  let nameWidth = 0;
  for (const name of candidates) if (name.length > nameWidth) nameWidth = name.length;
  sink.start?.({zoo: zoo.shown, skipped, total: candidates.length, nameWidth});

  const cache = options.cache === false ? undefined : openCache(zoo.abs, options.cacheDir);
  const readAt = Date.now();
  const verifier = new Verifier(options.workers ?? defaultWorkers(), options.workers !== undefined);
  // Files outside the folders (a bundle's determinism cache file) are stat'ed once per run.
  const outside = new Map<string, StatResult>();
  const stat = (file: string): StatResult => {
    if (file.startsWith(zoo.abs) && file[zoo.abs.length] === path.sep) return statOf(file);
    if (!outside.has(file)) outside.set(file, statOf(file));
    return outside.get(file);
  };
  const summary: ListSummary = {
    zoo: zoo.shown,
    skipped,
    total: candidates.length,
    ok: 0,
    failing: 0,
    broken: 0,
    cache: {hits: 0, misses: 0, file: cache?.file ?? null},
    workers: 0,
  };
  // Rows in name order, each emitted once it and all before it are decided.
  // A slot is emptied once emitted, so a long zoo's rows can be collected as the list goes.
  const queue: ({row: ListEntry; decided: boolean} | undefined)[] = [];
  let head = 0;
  const drain = () => {
    for (let slot = queue[head]; slot?.decided; slot = queue[head]) {
      const {row} = slot;
      queue[head++] = undefined;
      summary[row.status]++;
      sink.entry(row);
    }
    if (head > 4096 && head * 2 > queue.length) {
      queue.splice(0, head);
      head = 0;
    }
  };

  for (let k = 0; k < candidates.length; k++) {
    const name = candidates[k]!;
    const problem = brokenLinks.get(name);
    const shown = path.join(zoo.shown, name);
    const abs = path.join(zoo.abs, name);
    const row: ListEntry = {name, path: shown, status: 'ok', errors: 0, warnings: 0, title: null};
    const slot = {row, decided: true};
    queue.push(slot);
    if (problem !== undefined) {
      broken(row, problem);
    } else {
      // The folder's own stat vouches for its listing (which files exist, eval.sh and eval.py
      // among them, and that the files it lacked are still missing); the stats of the files it
      // signed vouch for their content.
      const folder = folderKey(abs);
      const dir = folder?.key ?? '';
      const previous = cache?.entry(name);
      const listed = previous !== undefined && dir !== '' && previous.dir === dir;
      if (listed && previous.sig === signature(abs, previous.signed, stat).sig) {
        summary.cache.hits++;
        cache!.keep(name);
        apply(row, previous.value);
      } else {
        summary.cache.misses++;
        slot.decided = false;
        await verifier.add({abs, shown, ...(listed ? {files: previous.files} : {})}, (inspected) => {
          apply(row, inspected.status);
          if (cache) {
            const {files, signed, sig} = inspected;
            cache.set(name, {dir, files, sig, signed}, inspected.status, Math.max(inspected.newest, folder?.newest ?? 0), readAt);
          }
          slot.decided = true;
          drain();
        });
      }
    }
    drain();
    // Let worker results in, and wait while too many rows are undecided; a few misses among
    // many cached rows are verified inline rather than holding the rows after them back.
    if (k % 64 === 63) {
      if (queue.length - head > maxOutstanding) await verifier.flushInline();
      await verifier.breathe(maxOutstanding);
    }
  }
  await verifier.finish();
  drain();
  summary.workers = verifier.workersStarted;
  if (cache) {
    cache.save();
  }
  return summary;
}

/** A zoo's entry folders in name order (symlinks looked at now), the names skipped, and why a broken symlink among them is broken. */
function discoverEntries(zoo: {shown: string; abs: string}): {skipped: string[]; candidates: string[]; brokenLinks: Map<string, string>} {
  let dirents;
  try {
    dirents = readdirSync(zoo.abs, {withFileTypes: true});
  } catch (error) {
    throw new UsageError(`Cannot read zoo \`${zoo.shown}\` (${describeFsError(error)}), expected a readable folder`);
  }
  // A symlink (or an entry of unreported type) is looked at now, so the count and the widest name
  // are known before the first row goes out.
  const skipped: string[] = [];
  const candidates: string[] = [];
  /** Why a symlink among them is broken. */
  const brokenLinks = new Map<string, string>();
  for (const dirent of dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const name = dirent.name;
    if (isSkippedName(name)) {
      if (!dirent.isFile()) skipped.push(name);
      continue;
    }
    if (dirent.isDirectory()) candidates.push(name);
    else if (dirent.isFile() || dirent.isFIFO() || dirent.isSocket())
      continue; // plain files in a zoo are not benchmarks
    else {
      try {
        if (statSync(path.join(zoo.abs, name)).isDirectory()) candidates.push(name);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        candidates.push(name);
        brokenLinks.set(name, code === 'ENOENT' ? 'dangling symlink' : describeFsError(error));
      }
    }
  }
  return {skipped, candidates, brokenLinks};
}

/** The zoo's result cache, keyed on its real path, arbor's version and the template files verify reads. */
function openCache(abs: string, folder: string | undefined): ResultCache<EntryStatus> {
  let real = abs;
  try {
    real = realpathSync(abs);
  } catch {
    // keep the resolved path
  }
  return new ResultCache<EntryStatus>(folder ?? cacheDir(), `${real}\0${version()}\0${templateTextFiles().join(',')}`).load();
}

/** Index a zoo: every non-skipped subfolder, sorted, with its verify status and title. */
export async function listZoo(options: ListOptions = {}): Promise<ListResult> {
  const benchmarks: ListEntry[] = [];
  const summary = await listZooStream(options, {entry: (row) => benchmarks.push(row)});
  return {zoo: summary.zoo, benchmarks, skipped: summary.skipped, cache: summary.cache, workers: summary.workers};
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
  if (status.validator) row.validator = status.validator;
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

/**
 * Young-generation size of list's driver thread (MB). Verifying inline leaves short-lived garbage
 * (file bytes, texts, parse trees, stats); at 4 MB the scavenger took about a fifth of a cold
 * inline list's CPU, and 16 MB cut that list's CPU by about a tenth for 15 MB more peak memory.
 * The pool's workers keep 4 MB: 16 made no difference there that the noise let us see.
 * `ARBOR_LIST_YOUNG_MB` overrides it.
 */
export function listYoungMb(env: NodeJS.ProcessEnv = process.env): number {
  return /^[1-9]\d*$/.test(env.ARBOR_LIST_YOUNG_MB ?? '') ? Number(env.ARBOR_LIST_YOUNG_MB) : 16;
}

/** Below this many folders to verify, starting workers costs more than it saves. */
const inlineBelow = 24;
const batchSize = 16;
/** Old-generation cap of each worker (MB): parse garbage is collected instead of growing the heap. */
const workerHeapMb = 32;

/** A folder to verify, with the top-level text files discovery already listed. */
type Item = {abs: string; shown: string; files?: string[]};

const cores = () => (typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);

/**
 * How many worker threads to use: one per core besides the main thread's (which stats and
 * reads the cache meanwhile) when that makes two or more, else none. A lone worker only moves the
 * verifying off the driver thread, which then mostly waits: on two cores a cold list of 10,000
 * folders took 1.18x the CPU and 1.17x the wall time inline did. Starting a worker costs about
 * as much as verifying a few dozen folders, and each holds its own parser heap, so the pool stays
 * small. `ARBOR_LIST_WORKERS` overrides it (0 = inline).
 * @public read by test/zoo/list.test.ts through the built file
 */
export function defaultWorkers(env: NodeJS.ProcessEnv = process.env, available: number = cores()): number {
  const forced = env.ARBOR_LIST_WORKERS;
  if (forced !== undefined && /^\d+$/.test(forced)) return Number(forced);
  return available - 1 >= 2 ? available - 1 : 0;
}

/** Old-generation cap of each worker: parse garbage is collected instead of growing the heap. */
const workerLimits = {maxOldGenerationSizeMb: workerHeapMb, maxYoungGenerationSizeMb: 4};

type Done = (inspected: Inspected) => void;
type Inline = (item: Item) => Inspected;

/**
 * Verifies folders as discovery finds them: once enough have queued up, a
 * worker thread starts (loading the parsers while discovery goes on) and takes
 * batches as they fill, joined by more (up to the pool size) while batches
 * wait; a small job, or a pool of 0, is verified inline instead. Each folder's
 * result goes to its callback as soon as it is known; nothing is kept after.
 */
class Verifier {
  /** Folders queued and not yet handed to a worker (or verified inline). */
  private waiting: {item: Item; done: Done}[] = [];
  /** Batches in flight, by worker. */
  private readonly inFlight = new Map<Worker, {item: Item; done: Done}[]>();
  /** Batches of workers that died. */
  private orphans: {item: Item; done: Done}[] = [];
  private readonly idle: Worker[] = [];
  private readonly running = new Set<Promise<void>>();
  private started = 0;
  private outstanding = 0;
  private failure: unknown;
  private done = false;
  private inline: Inline | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly workers: number,
    private readonly explicit: boolean,
  ) {}

  /** Queue a folder; `done` gets its result. Inline (a pool of 0) it is verified here and now. */
  async add(item: Item, done: Done): Promise<void> {
    if (this.workers === 0) {
      done((await this.inlineVerifier())(item));
      return;
    }
    this.waiting.push({item, done});
    this.outstanding++;
    if (this.running.size === 0 && (this.explicit || this.outstanding >= inlineBelow)) this.spawn();
    if (this.running.size > 0) this.pump(false);
  }

  /** Yield to the event loop (worker results come in), and wait while more than `limit` folders are undecided. */
  async breathe(limit: number): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (this.outstanding > limit && this.running.size > 0 && !this.failure) await new Promise<void>((resolve) => (this.wake = resolve));
  }

  /** Verify the queued folders inline when no worker was started (a few misses among many cached rows). */
  async flushInline(): Promise<void> {
    if (this.running.size > 0 || this.started > 0 || this.waiting.length === 0) return;
    const verify = await this.inlineVerifier();
    const left = this.waiting;
    this.waiting = [];
    this.outstanding -= left.length;
    for (const {item, done} of left) done(verify(item));
  }

  /** Wait for every queued folder's result. */
  async finish(): Promise<void> {
    this.done = true;
    if (this.running.size > 0) {
      this.pump(true);
      await Promise.all(this.running);
    }
    // A small job, or the batches of a worker that died (say, out of memory on a huge README): inline.
    const left = [...this.waiting, ...this.orphans, ...[...this.inFlight.values()].flat()];
    this.waiting = [];
    this.orphans = [];
    this.inFlight.clear();
    if (left.length) {
      const verify = await this.inlineVerifier();
      for (const {item, done} of left) done(verify(item));
    }
    this.outstanding = 0;
  }

  /** Worker threads started so far. */
  get workersStarted(): number {
    return this.started;
  }

  private async inlineVerifier(): Promise<Inline> {
    if (!this.inline) {
      const [{inspectEntry, listRun}, {markdown}] = await Promise.all([import('./entry.js'), import('./markdown.js')]);
      const run = listRun();
      this.inline = (item) => inspectEntry(item.abs, item.shown, markdown, item.files, run);
    }
    return this.inline;
  }

  /** Start one more worker, idle until it is handed a batch. */
  private spawn(): void {
    const worker = new Worker(new URL('./list-worker.js', import.meta.url), {resourceLimits: workerLimits});
    this.started++;
    const finished = new Promise<void>((resolve) => {
      worker.on('message', (message: WorkerResult) => {
        const batch = this.inFlight.get(worker) ?? [];
        this.inFlight.delete(worker);
        message.results.forEach((result, k) => batch[k]!.done(result));
        this.outstanding -= batch.length;
        this.idle.push(worker);
        this.pump(this.done);
        this.wake?.();
      });
      worker.on('error', (error) => {
        this.failure ??= error;
        this.wake?.();
        resolve();
      });
      worker.on('exit', () => {
        // A worker that died (say, out of memory on a huge README) leaves its batch: verified inline at the end.
        const lost = this.inFlight.get(worker);
        if (lost) {
          this.inFlight.delete(worker);
          this.orphans.push(...lost);
        }
        const k = this.idle.indexOf(worker);
        if (k !== -1) this.idle.splice(k, 1);
        this.running.delete(finished);
        this.pump(this.done);
        this.wake?.();
        resolve();
      });
    });
    this.running.add(finished);
    this.idle.push(worker);
  }

  /**
   * Hand full batches (a last short one only when `all`) to idle workers, starting another (up
   * to the pool size) only when a batch is waiting and none is idle, so a small zoo never starts
   * more workers than it has batches; stop the workers when everything is done.
   */
  private pump(all: boolean): void {
    while (this.waiting.length >= batchSize || (all && this.waiting.length > 0)) {
      if (!this.idle.length) {
        if (this.started >= this.workers || this.failure) break;
        this.spawn();
      }
      const batch = this.waiting.splice(0, batchSize);
      const worker = this.idle.shift()!;
      this.inFlight.set(worker, batch);
      worker.postMessage({id: 0, items: batch.map((b) => b.item)} satisfies WorkerBatch);
    }
    if (this.done && this.waiting.length === 0 && this.inFlight.size === 0) for (const worker of this.idle.splice(0)) void worker.terminate();
  }
}
