/**
 * An eval job: everything a queue worker needs to evaluate one (entry, split,
 * solution) on a machine that shares no disk with the submitter. It carries
 * the files of the benchmark folder the eval reads (plan.toml, arbor.lock, the
 * protected files the lock covers, the editable files) and the solution, each
 * with its SHA-256, and names the split. It never carries a secret: a test
 * split's salted seeds are derived on the worker from its own ARBOR_TEST_SALT.
 *
 * The worker writes the files into a private temporary folder and checks
 * every hash against what landed on its disk before anything runs; a job that
 * does not match, or that would write outside that folder, is refused.
 */
import {createHash} from 'node:crypto';
import {lstat, mkdir, readdir, readFile, readlink, realpath, stat, symlink, writeFile} from 'node:fs/promises';
import path from 'node:path';
import {ArborError, ExitCode} from '../errors.js';
import {lockFile, lockIgnoredNames, protectedPaths} from '../eval/lock.js';
import {loadPlan, type Split} from '../eval/plan.js';
import type {RunItem} from './targets.js';

/** The `format` every job carries, and the version this arbor reads and writes. */
export const jobFormat = 'arbor-eval-job';
export const jobVersion = 1;

/** One file of a job. */
export interface JobFile {
  /** Relative to the benchmark folder, `/`-separated. */
  path: string;
  /** SHA-256 (hex) of the content, or of a symlink's target text. */
  sha256: string;
  /** The content, base64 (absent for a symlink). */
  content?: string;
  /** Whether the file is executable (eval.sh). */
  executable?: boolean;
  /** A symlink's target, as written in the folder (the lock records symlinks as such). */
  symlink?: string;
}

/** The data of an eval job on the queue. */
export interface EvalJob {
  format: typeof jobFormat;
  version: typeof jobVersion;
  /** The entry's folder name: the worker's copy has the same name (a plan without `name` is named after its folder). */
  entry: string;
  /** The split to score; for test, the worker's ARBOR_TEST_SALT decides the seeds. */
  split: Split;
  files: JobFile[];
  /** Another solution file in place of the plan's (`--solution ENTRY=FILE`). */
  solution?: {name: string; sha256: string; content: string};
}

/** A job the worker will not run: malformed, or files that do not match their hashes (exit 1; the job fails without retry). */
export class JobRefusedError extends ArborError {
  constructor(message: string) {
    super(`refused the job: ${message}`, 'job-refused', ExitCode.findings);
  }
}

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');

/** Build the job of one run item from the entry's folder as it is now. */
export async function encodeJob(item: RunItem): Promise<EvalJob> {
  const dir = item.target.dir;
  const plan = await loadPlan(dir);
  const files = new Map<string, JobFile>();
  const visit = async (rel: string, follow: boolean): Promise<void> => {
    const file = path.join(dir, rel);
    const info = await (follow ? stat : lstat)(file).catch(() => undefined);
    if (!info || lockIgnoredNames.has(path.basename(rel))) return;
    const key = rel.split(path.sep).join('/');
    if (files.has(key)) return;
    if (info.isDirectory()) {
      for (const name of (await readdir(file)).sort()) await visit(path.join(rel, name), follow);
    } else if (info.isSymbolicLink()) {
      const target = await readlink(file);
      files.set(key, {path: key, sha256: sha256(target), symlink: target});
    } else if (info.isFile()) {
      const content = await readFile(file);
      files.set(key, {path: key, sha256: sha256(content), content: content.toString('base64'), ...(info.mode & 0o111 ? {executable: true} : {})});
    }
  };
  // Protected files as they are (symlinks stay symlinks, as the lock records them); editable files as the eval copies them.
  for (const rel of ['plan.toml', lockFile, ...protectedPaths(plan)]) await visit(rel, false);
  for (const rel of plan.editable) await visit(rel, true);
  const job: EvalJob = {format: jobFormat, version: jobVersion, entry: item.target.entry, split: item.split, files: [...files.values()]};
  if (item.solution) {
    const content = await readFile(item.solution);
    job.solution = {name: path.basename(item.solution), sha256: sha256(content), content: content.toString('base64')};
  }
  return job;
}

/** A job's files as written on the worker. */
export interface MaterializedJob {
  /** The benchmark folder (`<root>/bench/<entry>`). */
  dir: string;
  /** The solution file, when the job carries one (`<root>/solution/<name>`). */
  solution?: string;
  split: Split;
}

/**
 * Write a job's files under `root` (a fresh private folder) and check every
 * hash against the file as written. Throws JobRefusedError for a job that is
 * malformed, would write outside `root`, or whose files do not match.
 */
export async function materializeJob(data: unknown, root: string): Promise<MaterializedJob> {
  const job = checkJobShape(data);
  const dir = path.join(root, 'bench', job.entry);
  await mkdir(dir, {recursive: true});
  const links = job.files.filter((file) => file.symlink !== undefined);
  for (const file of job.files) {
    if (file.symlink !== undefined) continue;
    const target = path.join(dir, ...file.path.split('/'));
    await mkdir(path.dirname(target), {recursive: true});
    await writeFile(target, Buffer.from(file.content!, 'base64'), {mode: file.executable ? 0o755 : 0o644, flag: 'wx'});
  }
  // Symlinks last, so no file is ever written through one.
  for (const file of links) {
    const target = path.join(dir, ...file.path.split('/'));
    await mkdir(path.dirname(target), {recursive: true});
    await symlink(file.symlink!, target);
  }
  // Links can chain (a/b -> .., x -> a/b/..), so what each one reaches is checked as written, not as text.
  const realDir = await realpath(dir);
  for (const file of links) {
    const reached = await realpath(path.join(dir, ...file.path.split('/'))).catch(() => undefined);
    if (reached !== undefined && reached !== realDir && !reached.startsWith(`${realDir}${path.sep}`)) {
      throw new JobRefusedError(`symlink ${file.path} reaches outside the benchmark folder (${reached})`);
    }
  }
  for (const file of job.files) {
    const target = path.join(dir, ...file.path.split('/'));
    const actual = file.symlink !== undefined ? sha256(await readlink(target)) : sha256(await readFile(target));
    if (actual !== file.sha256) throw new JobRefusedError(`${job.entry}/${file.path} does not match its SHA-256 (expected ${file.sha256}, got ${actual})`);
  }
  let solution: string | undefined;
  if (job.solution) {
    solution = path.join(root, 'solution', job.solution.name);
    await mkdir(path.dirname(solution), {recursive: true});
    await writeFile(solution, Buffer.from(job.solution.content, 'base64'), {mode: 0o644, flag: 'wx'});
    const actual = sha256(await readFile(solution));
    if (actual !== job.solution.sha256) throw new JobRefusedError(`the solution ${job.solution.name} does not match its SHA-256 (expected ${job.solution.sha256}, got ${actual})`);
  }
  return {dir, split: job.split, ...(solution ? {solution} : {})};
}

/** What a job is about, for log lines, without trusting more of it than its shape. */
export function describeJob(data: unknown): string {
  const job = data as Partial<EvalJob> | null;
  const entry = typeof job?.entry === 'string' ? job.entry : '?';
  const split = typeof job?.split === 'string' ? job.split : '?';
  return `${entry}${typeof job?.solution?.name === 'string' ? `=${job.solution.name}` : ''} ${split}`;
}

/** Check a job's structure and paths; returns it typed. */
function checkJobShape(data: unknown): EvalJob {
  const job = data as Partial<EvalJob> | null;
  if (typeof job !== 'object' || job === null || job.format !== jobFormat) throw new JobRefusedError(`not an arbor eval job (format ${JSON.stringify((job as {format?: unknown})?.format ?? null)})`);
  if (job.version !== jobVersion) throw new JobRefusedError(`job format version ${JSON.stringify(job.version)}, this arbor reads version ${jobVersion}: run the same arbor version on submitter and workers`);
  if (typeof job.entry !== 'string' || !isPlainName(job.entry)) throw new JobRefusedError(`entry ${JSON.stringify(job.entry)} is not a folder name`);
  if (job.split !== 'dev' && job.split !== 'test') throw new JobRefusedError(`unknown split ${JSON.stringify(job.split)}, expected dev or test`);
  if (!Array.isArray(job.files) || job.files.length === 0) throw new JobRefusedError('the job carries no files');
  const seen = new Map<string, JobFile>();
  for (const file of job.files as unknown[]) {
    const f = file as Partial<JobFile> | null;
    if (typeof f !== 'object' || f === null || typeof f.path !== 'string') throw new JobRefusedError('a file of the job has no path');
    if (!isSafeRelative(f.path)) throw new JobRefusedError(`file path ${JSON.stringify(f.path)} is not a plain relative path inside the benchmark folder`);
    if (typeof f.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(f.sha256)) throw new JobRefusedError(`${f.path} has no SHA-256`);
    if (f.symlink !== undefined) {
      if (typeof f.symlink !== 'string' || f.symlink === '' || path.posix.isAbsolute(f.symlink)) throw new JobRefusedError(`symlink ${f.path} must point to a relative path`);
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(f.path), f.symlink));
      if (resolved === '..' || resolved.startsWith('../')) throw new JobRefusedError(`symlink ${f.path} points outside the benchmark folder (${f.symlink})`);
    } else if (typeof f.content !== 'string') throw new JobRefusedError(`${f.path} has no content`);
    if (seen.has(f.path)) throw new JobRefusedError(`${f.path} appears twice`);
    seen.set(f.path, f as JobFile);
  }
  // No file may sit below another file or a symlink (it would be written through it).
  for (const name of seen.keys()) {
    const parts = name.split('/');
    for (let depth = 1; depth < parts.length; depth++) {
      const parent = parts.slice(0, depth).join('/');
      if (seen.has(parent)) throw new JobRefusedError(`${name} lies inside ${parent}, which the job also carries as a file`);
    }
  }
  if (!seen.has('plan.toml')) throw new JobRefusedError('the job carries no plan.toml');
  if (job.solution !== undefined) {
    const s = job.solution as Partial<NonNullable<EvalJob['solution']>> | null;
    if (typeof s !== 'object' || s === null || typeof s.name !== 'string' || !isPlainName(s.name) || typeof s.content !== 'string' || typeof s.sha256 !== 'string') {
      throw new JobRefusedError('the job\'s solution needs a plain file name, content and SHA-256');
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
