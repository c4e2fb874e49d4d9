/**
 * An eval job: what a queue worker needs to evaluate one (entry, split,
 * solution) on a machine that shares no disk with the submitter. It names the
 * entry (its folder's name) and the split, carries the submitter's arbor.lock
 * of that entry, and the solution as evaluated: the editable files and the
 * `--solution` file, each with its SHA-256. It never carries a protected file
 * (plan, bundle, eval entrypoint, reference, data): the worker evaluates the
 * entry of its own zoo, and only when that entry's files match the worker's
 * own arbor.lock and that lock is the one the job names. It never carries a
 * secret: a test split's salted seeds are derived on the worker.
 *
 * Every job is signed with the queue key (auth.ts) by the submitter; the
 * worker checks the MAC before it reads anything else of the job.
 */
import {createHash} from 'node:crypto';
import {mkdir, readdir, readFile, stat, writeFile} from 'node:fs/promises';
import path from 'node:path';
import {ArborError, ExitCode, RefusedError} from '../errors.js';
import {computeLock, lockDifference, lockIgnoredNames, readLock, type Lock} from '../benchmark/lock.js';
import {StaleLockError} from '../eval/errors.js';
import {loadPlan, type Plan, type Split} from '../benchmark/plan.js';
import type {RunItem} from './targets.js';

/** The `format` every job carries, and the version this arbor reads and writes. */
export const jobFormat = 'arbor-eval-job';
export const jobVersion = 2;

/** One editable file of a job. */
export interface JobFile {
  /** Relative to the benchmark folder, `/`-separated; an editable path of the plan or a file below one. */
  path: string;
  /** SHA-256 (hex) of the content. */
  sha256: string;
  /** The content, base64. */
  content: string;
  /** Whether the file is executable. */
  executable?: boolean;
}

/** The data of an eval job on the queue (its MAC travels beside these fields). */
export interface EvalJob {
  format: typeof jobFormat;
  version: typeof jobVersion;
  /** The entry's folder name: the worker evaluates the entry of that name in its own zoo. */
  entry: string;
  /** The split to score; for test, the worker's ARBOR_TEST_SALT decides the seeds. */
  split: Split;
  /** The submitter's arbor.lock of the entry (its protected files match it): the worker's own lock must be the same. */
  lock: Lock;
  /** The editable files as the submitter has them: the solution evaluated. */
  files: JobFile[];
  /** Another solution file in place of the plan's (`--solution ENTRY=FILE`). */
  solution?: {name: string; sha256: string; content: string};
}

/** A job the worker will not run: malformed, for an entry it does not have or has in another version, or files that do not match their hashes (exit 1). */
export class JobRefusedError extends ArborError {
  constructor(message: string) {
    super(`refused the job: ${message}`, 'job-refused', ExitCode.findings);
  }
}

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');

/**
 * Build the job of one run item from the entry's folder as it is now. The
 * entry needs an arbor.lock its protected files match (a RefusedError
 * otherwise): that lock is what a worker compares with its own.
 */
export async function encodeJob(item: RunItem): Promise<EvalJob> {
  const dir = item.target.dir;
  const plan = await loadPlan(dir);
  const lock = await readLock(dir);
  if (!lock) {
    throw new RefusedError(`${item.target.shown} has no arbor.lock: a queue worker evaluates only entries whose protected files match its own lock; write one with 'arbor benchmark lock ${item.target.shown}'`, 'no-lock');
  }
  const difference = lockDifference(lock, await computeLock(dir, plan));
  if (difference) {
    throw new StaleLockError(item.target.shown, difference);
  }
  const files = new Map<string, JobFile>();
  const visit = async (rel: string): Promise<void> => {
    const file = path.join(dir, rel);
    // Editable files as the eval copies them: symlinks followed.
    const info = await stat(file).catch(() => undefined);
    if (!info || lockIgnoredNames.has(path.basename(rel))) return;
    const key = rel.split(path.sep).join('/');
    if (files.has(key)) return;
    if (info.isDirectory()) {
      for (const name of (await readdir(file)).sort()) await visit(path.join(rel, name));
    } else if (info.isFile()) {
      const content = await readFile(file);
      files.set(key, {path: key, sha256: sha256(content), content: content.toString('base64'), ...(info.mode & 0o111 ? {executable: true} : {})});
    }
  };
  for (const rel of plan.editable) await visit(rel);
  const job: EvalJob = {format: jobFormat, version: jobVersion, entry: item.target.entry, split: item.split, lock: {version: lock.version, files: lock.files}, files: [...files.values()]};
  if (item.solution) {
    const content = await readFile(item.solution);
    job.solution = {name: path.basename(item.solution), sha256: sha256(content), content: content.toString('base64')};
  }
  return job;
}

/**
 * The entry of the worker's own zoo a job names, checked: it exists, has an
 * arbor.lock, its protected files match that lock, and the lock is the one
 * the job carries. Throws JobRefusedError naming what differs.
 */
export async function findWorkerEntry(zoo: string, job: EvalJob): Promise<{dir: string; plan: Plan}> {
  const dir = path.join(zoo, job.entry);
  if (!(await stat(path.join(dir, 'plan.toml')).catch(() => undefined))?.isFile()) throw new JobRefusedError(`this worker's zoo (${zoo}) has no entry ${job.entry}`);
  const plan = await loadPlan(dir);
  const lock = await readLock(dir);
  if (!lock) throw new JobRefusedError(`this worker's ${job.entry} has no arbor.lock: a worker evaluates only locked entries of its zoo`);
  const own = lockDifference(lock, await computeLock(dir, plan));
  if (own) throw new JobRefusedError(`this worker's ${job.entry} differs from its own arbor.lock (${own}): restore it on the worker`);
  const theirs = lockDifference(lock, job.lock);
  if (theirs) throw new JobRefusedError(`the submitter's ${job.entry} is not this worker's (against the worker's arbor.lock, ${theirs}): check out the same zoo on both`);
  return {dir, plan};
}

/** A job's solution as written on the worker. */
export interface MaterializedJob {
  /** A folder holding the job's editable files at their paths (the `--solution` file in place of the plan's solution file). */
  folder: string;
  split: Split;
}

/**
 * Write a job's editable files under `root` (a fresh private folder), the
 * solution file in place of the plan's, and check every hash against the
 * file as written. Throws JobRefusedError for a file that is not editable in
 * the worker's plan or does not match its hash.
 */
export async function materializeJob(job: EvalJob, plan: Plan, root: string): Promise<MaterializedJob> {
  const folder = path.join(root, 'solution');
  await mkdir(folder, {recursive: true});
  const entry = path.relative(plan.dir, plan.solution).split(path.sep).join('/');
  const editable = plan.editable.map((rel) => rel.split(path.sep).join('/'));
  for (const file of job.files) {
    if (!editable.some((rel) => file.path === rel || file.path.startsWith(`${rel}/`))) {
      throw new JobRefusedError(`${job.entry}/${file.path} is not an editable file of ${job.entry} (editable: ${editable.join(', ')}): a worker runs only its own protected files`);
    }
  }
  const written: {file: string; sha256: string; shown: string}[] = [];
  for (const file of job.files) {
    if (job.solution && file.path === entry) continue;
    const target = path.join(folder, ...file.path.split('/'));
    await mkdir(path.dirname(target), {recursive: true});
    await writeFile(target, Buffer.from(file.content, 'base64'), {mode: file.executable ? 0o755 : 0o644, flag: 'wx'});
    written.push({file: target, sha256: file.sha256, shown: `${job.entry}/${file.path}`});
  }
  if (job.solution) {
    const target = path.join(folder, ...entry.split('/'));
    await mkdir(path.dirname(target), {recursive: true});
    await writeFile(target, Buffer.from(job.solution.content, 'base64'), {mode: 0o644, flag: 'wx'});
    written.push({file: target, sha256: job.solution.sha256, shown: `the solution ${job.solution.name}`});
  }
  for (const each of written) {
    const actual = sha256(await readFile(each.file));
    if (actual !== each.sha256) throw new JobRefusedError(`${each.shown} does not match its SHA-256 (expected ${each.sha256}, got ${actual})`);
  }
  return {folder, split: job.split};
}

/** What a job is about, for log lines, without trusting more of it than its shape. */
export function describeJob(data: unknown): string {
  const job = data as Partial<EvalJob> | null;
  const entry = typeof job?.entry === 'string' ? job.entry : '?';
  const split = typeof job?.split === 'string' ? job.split : '?';
  return `${entry}${typeof job?.solution?.name === 'string' ? `=${job.solution.name}` : ''} ${split}`;
}

const jobKeys = new Set(['format', 'version', 'entry', 'split', 'lock', 'files', 'solution']);
const fileKeys = new Set(['path', 'sha256', 'content', 'executable']);

/** Check a job's structure and paths (after its MAC verified); returns it typed, or throws JobRefusedError. */
export function checkJob(data: unknown): EvalJob {
  const job = data as Partial<EvalJob> | null;
  if (typeof job !== 'object' || job === null || job.format !== jobFormat) throw new JobRefusedError(`not an arbor eval job (format ${JSON.stringify((job as {format?: unknown})?.format ?? null)})`);
  if (job.version !== jobVersion) throw new JobRefusedError(`job format version ${JSON.stringify(job.version)}, this arbor reads version ${jobVersion}: run the same arbor version on submitter and workers`);
  const unknown = Object.keys(job).find((key) => !jobKeys.has(key));
  if (unknown !== undefined) throw new JobRefusedError(`the job carries "${unknown}", which a worker never reads: a job names its entry and carries only the solution`);
  if (typeof job.entry !== 'string' || !isPlainName(job.entry)) throw new JobRefusedError(`entry ${JSON.stringify(job.entry)} is not a folder name`);
  if (job.split !== 'dev' && job.split !== 'test') throw new JobRefusedError(`unknown split ${JSON.stringify(job.split)}, expected dev or test`);
  const lock = job.lock as Partial<Lock> | undefined;
  if (typeof lock !== 'object' || lock === null || lock.version !== 1 || typeof lock.files !== 'object' || lock.files === null || Object.values(lock.files).some((digest) => typeof digest !== 'string')) {
    throw new JobRefusedError("the job carries no arbor.lock of its entry");
  }
  if (!Array.isArray(job.files)) throw new JobRefusedError('the job carries no list of files');
  const seen = new Set<string>();
  for (const file of job.files as unknown[]) {
    const f = file as Partial<JobFile> | null;
    if (typeof f !== 'object' || f === null || typeof f.path !== 'string') throw new JobRefusedError('a file of the job has no path');
    if (!isSafeRelative(f.path)) throw new JobRefusedError(`file path ${JSON.stringify(f.path)} is not a plain relative path inside the benchmark folder`);
    const extra = Object.keys(f).find((key) => !fileKeys.has(key));
    if (extra !== undefined) throw new JobRefusedError(`${f.path} carries "${extra}": a job's files are plain editable files`);
    if (typeof f.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(f.sha256)) throw new JobRefusedError(`${f.path} has no SHA-256`);
    if (typeof f.content !== 'string') throw new JobRefusedError(`${f.path} has no content`);
    if (seen.has(f.path)) throw new JobRefusedError(`${f.path} appears twice`);
    seen.add(f.path);
  }
  // No file may sit below another file (it could not be written).
  for (const name of seen) {
    const parts = name.split('/');
    for (let depth = 1; depth < parts.length; depth++) {
      const parent = parts.slice(0, depth).join('/');
      if (seen.has(parent)) throw new JobRefusedError(`${name} lies inside ${parent}, which the job also carries as a file`);
    }
  }
  if (job.solution !== undefined) {
    const s = job.solution as Partial<NonNullable<EvalJob['solution']>> | null;
    if (typeof s !== 'object' || s === null || typeof s.name !== 'string' || !isPlainName(s.name) || typeof s.content !== 'string' || typeof s.sha256 !== 'string') {
      throw new JobRefusedError("the job's solution needs a plain file name, content and SHA-256");
    }
  }
  return job as EvalJob;
}

/** A single path component that is not `.` or `..`. */
function isPlainName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\0');
}

/** A `/`-separated relative path of plain names. */
function isSafeRelative(rel: string): boolean {
  return rel.split('/').every(isPlainName);
}
