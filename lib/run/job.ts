/**
 * An eval job: what a queue worker needs to evaluate one (entry, split,
 * solution) on a machine that shares no disk with the submitter; or a compare
 * job (`kind: 'compare'`, `arbor mcp --sealed-queue`): the same, but the
 * worker compares the entry's own solution (its own copy, which must be the
 * submitter's: `baseline`) with the job's in one paired eval. It names the
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
import {StaleLockError} from '../eval/index.js';
import {loadPlan, planDigest, type Plan, type Split} from '../benchmark/plan.js';
import type {RunItem} from './targets.js';

/** The `format` every job carries, and the version this arbor writes. */
const jobFormat = 'arbor-eval-job';
const jobVersion = 4;
/**
 * The versions this arbor reads: 2 (eval jobs only, no `kind`), 3 (no plan digest) and 4. A worker of an
 * older version refuses a newer job, naming both.
 */
const readableJobVersions: readonly number[] = [2, 3, 4];

/** One editable file of a job. */
interface JobFile {
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
  /** 4 (this arbor's); 3, without `plan`; or 2: an eval job of the arbor before compare jobs, read as `kind: 'eval'`. */
  version: 2 | 3 | 4;
  /** Version 3: `eval` the solution, or `compare` the entry's own solution (the baseline) with it in one paired eval. */
  kind?: 'eval' | 'compare';
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
  /** compare: the digest (lib/ledger solutionDigest) of the entry's own editable files on the submitter: the worker's own must be the same. */
  baseline?: {sha256: string};
  /**
   * Version 4: the digest of the plan the submitter read (planDigest): the worker runs the job only under a plan
   * of its own that parses to the same, and hands that parsed plan to the eval, which reads plan.toml no more.
   */
  plan?: {sha256: string};
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
  return (await encodeJobPlanned(item)).job;
}

/** encodeJob, with the plan it was made under (read once): the submitter records the worker's report with it. */
export async function encodeJobPlanned(item: RunItem): Promise<{job: EvalJob; plan: Plan}> {
  const {plan, lock} = await lockedEntry(item.target.dir, item.target.shown);
  const job: EvalJob = {
    format: jobFormat,
    version: jobVersion,
    kind: 'eval',
    entry: item.target.entry,
    split: item.split,
    lock,
    files: await editableJobFiles(plan, plan.dir),
    plan: {sha256: planDigest(plan)},
  };
  if (item.solution) job.solution = await solutionFile(item.solution);
  return {job, plan};
}

/** What a compare job compares: the entry's own solution with `candidate`, a solution file (in place of the plan's) or a folder of editable files. */
export interface CompareItem {
  /** The entry's folder name (the worker's zoo has an entry of that name). */
  entry: string;
  /** The entry's folder here. */
  dir: string;
  /** How to name the entry in messages. */
  shown: string;
  split: Split;
  candidate: string;
  /** The entry's plan as the caller read it (MCP's submit_test): not read again. */
  plan?: Plan;
}

/**
 * Build the compare job of an entry and a candidate: the candidate's editable
 * files (a folder's, or the entry's with a file in place of its solution
 * file), the entry's lock, and the digest of the entry's own solution, which
 * the worker runs as the baseline from its own copy.
 */
export async function encodeCompareJob(item: CompareItem): Promise<EvalJob> {
  const {plan, lock} = await lockedEntry(item.dir, item.shown, item.plan);
  const folder = (await stat(item.candidate)).isDirectory();
  const job: EvalJob = {
    format: jobFormat,
    version: jobVersion,
    kind: 'compare',
    entry: item.entry,
    split: item.split,
    lock,
    files: await editableJobFiles(plan, folder ? item.candidate : plan.dir),
    baseline: {sha256: await editableDigest(plan.dir, plan.editable)},
    plan: {sha256: planDigest(plan)},
  };
  if (!folder) job.solution = await solutionFile(item.candidate);
  return job;
}

/** The entry's plan and its arbor.lock, which its protected files must match (a RefusedError or StaleLockError otherwise). */
async function lockedEntry(dir: string, shown: string, given?: Plan): Promise<{plan: Plan; lock: Lock}> {
  const plan = given ?? (await loadPlan(dir));
  const lock = await readLock(dir);
  if (!lock) {
    throw new RefusedError(
      `${shown} has no arbor.lock: a queue worker evaluates only entries whose protected files match its own lock; write one with 'arbor benchmark lock ${shown}'`,
      'no-lock',
    );
  }
  const difference = lockDifference(lock, await computeLock(dir, plan));
  if (difference) throw new StaleLockError(shown, difference);
  return {plan, lock: {version: lock.version, files: lock.files}};
}

/** The plan's editable files as they are under `dir` (symlinks followed, as the eval copies them). */
async function editableJobFiles(plan: Plan, dir: string): Promise<JobFile[]> {
  const files = new Map<string, JobFile>();
  const visit = async (rel: string): Promise<void> => {
    const file = path.join(dir, rel);
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
  return [...files.values()];
}

async function solutionFile(file: string): Promise<NonNullable<EvalJob['solution']>> {
  const content = await readFile(file);
  return {name: path.basename(file), sha256: sha256(content), content: content.toString('base64')};
}

/** The ledger's digest of the editable files under `dir` (missing ones left out), as the eval computes a side's `solutionSha256`. */
async function editableDigest(dir: string, editable: readonly string[]): Promise<string> {
  const {solutionDigest} = await import('../ledger/digest.js');
  const found: Array<{path: string; bytes: Uint8Array}> = [];
  for (const rel of editable) {
    const bytes = await readFile(path.join(dir, rel)).catch(() => undefined);
    if (bytes) found.push({path: rel, bytes});
  }
  return solutionDigest(found);
}

/**
 * The entry of the worker's own zoo a job names, checked: it exists, has an
 * arbor.lock, its protected files match that lock, and the lock is the one
 * the job carries. Throws JobRefusedError naming what differs.
 */
export async function findWorkerEntry(zoo: string, job: EvalJob): Promise<{dir: string; plan: Plan}> {
  const dir = path.join(zoo, job.entry);
  if (!(await stat(path.join(dir, 'plan.toml')).catch(() => undefined))?.isFile())
    throw new JobRefusedError(`this worker's zoo (${zoo}) has no entry ${job.entry}`);
  const plan = await loadPlan(dir);
  const lock = await readLock(dir);
  if (!lock) throw new JobRefusedError(`this worker's ${job.entry} has no arbor.lock: a worker evaluates only locked entries of its zoo`);
  const own = lockDifference(lock, await computeLock(dir, plan));
  if (own) throw new JobRefusedError(`this worker's ${job.entry} differs from its own arbor.lock (${own}): restore it on the worker`);
  const theirs = lockDifference(lock, job.lock);
  if (theirs)
    throw new JobRefusedError(`the submitter's ${job.entry} is not this worker's (against the worker's arbor.lock, ${theirs}): check out the same zoo on both`);
  // The plan this worker runs the job under (handed to its eval, which reads plan.toml no more) is the one the submitter read.
  if (job.plan && planDigest(plan) !== job.plan.sha256)
    throw new JobRefusedError(
      `this worker's plan of ${job.entry} is not the submitter's (plan digest ${planDigest(plan).slice(0, 12)}, the job's ${job.plan.sha256.slice(0, 12)}): run the same arbor and zoo on both`,
    );
  if (job.kind === 'compare') {
    // The baseline is the worker's own solution, which no lock covers: it must be the one the submitter compares against.
    const own = await editableDigest(dir, plan.editable);
    if (own !== job.baseline!.sha256)
      throw new JobRefusedError(
        `this worker's own solution of ${job.entry} is not the submitter's (solution digest ${own.slice(0, 12)}, the job's ${job.baseline!.sha256.slice(0, 12)}): check out the same zoo on both`,
      );
  }
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
      throw new JobRefusedError(
        `${job.entry}/${file.path} is not an editable file of ${job.entry} (editable: ${editable.join(', ')}): a worker runs only its own protected files`,
      );
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
  return `${entry}${typeof job?.solution?.name === 'string' ? `=${job.solution.name}` : ''} ${split}${job?.kind === 'compare' ? ' compare' : ''}`;
}

/** The fields a job of each version may carry. */
const jobKeys: Record<number, Set<string>> = {
  2: new Set(['format', 'version', 'entry', 'split', 'lock', 'files', 'solution']),
  3: new Set(['format', 'version', 'kind', 'entry', 'split', 'lock', 'files', 'solution', 'baseline']),
  4: new Set(['format', 'version', 'kind', 'entry', 'split', 'lock', 'files', 'solution', 'baseline', 'plan']),
};
const fileKeys = new Set(['path', 'sha256', 'content', 'executable']);

/** Check a job's structure and paths (after its MAC verified); returns it typed, or throws JobRefusedError. */
export function checkJob(data: unknown): EvalJob {
  const job = data as Partial<EvalJob> | null;
  if (typeof job !== 'object' || job === null || job.format !== jobFormat)
    throw new JobRefusedError(`not an arbor eval job (format ${JSON.stringify((job as {format?: unknown})?.format ?? null)})`);
  if (typeof job.version !== 'number' || !readableJobVersions.includes(job.version)) {
    throw new JobRefusedError(
      `job format version ${JSON.stringify(job.version)}, this arbor reads versions ${readableJobVersions.slice(0, -1).join(', ')} and ${readableJobVersions.at(-1)}: run the same arbor version on submitter and workers`,
    );
  }
  const unknown = Object.keys(job).find((key) => !jobKeys[job.version!]!.has(key));
  if (unknown !== undefined)
    throw new JobRefusedError(`the job carries "${unknown}", which a worker never reads: a job names its entry and carries only the solution`);
  // Version 2 knew only evals.
  if (job.version === 2) job.kind = 'eval';
  if (job.kind !== 'eval' && job.kind !== 'compare')
    throw new JobRefusedError(`unknown job kind ${JSON.stringify(job.kind ?? null)}, expected eval or compare`);
  if (job.kind === 'compare') {
    if (!isDigest(job.baseline))
      throw new JobRefusedError("a compare job carries the digest of the entry's own solution (baseline.sha256) and nothing else of it");
  } else if (job.baseline !== undefined) throw new JobRefusedError('an eval job carries no baseline');
  if (job.version === 4 && !isDigest(job.plan))
    throw new JobRefusedError("the job carries no digest of its entry's plan (plan.sha256): a version 4 job names the plan it was made under");
  if (typeof job.entry !== 'string' || !isPlainName(job.entry)) throw new JobRefusedError(`entry ${JSON.stringify(job.entry)} is not a folder name`);
  if (job.split !== 'dev' && job.split !== 'test') throw new JobRefusedError(`unknown split ${JSON.stringify(job.split)}, expected dev or test`);
  const lock = job.lock as Partial<Lock> | undefined;
  if (
    typeof lock !== 'object' ||
    lock === null ||
    lock.version !== 1 ||
    typeof lock.files !== 'object' ||
    lock.files === null ||
    Object.values(lock.files).some((digest) => typeof digest !== 'string')
  ) {
    throw new JobRefusedError('the job carries no arbor.lock of its entry');
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
    if (
      typeof s !== 'object' ||
      s === null ||
      typeof s.name !== 'string' ||
      !isPlainName(s.name) ||
      typeof s.content !== 'string' ||
      typeof s.sha256 !== 'string'
    ) {
      throw new JobRefusedError("the job's solution needs a plain file name, content and SHA-256");
    }
  }
  return job as EvalJob;
}

/** `{sha256: <64 hex>}` and nothing else. */
function isDigest(value: unknown): value is {sha256: string} {
  const digest = value as {sha256?: unknown} | null;
  return typeof digest === 'object' && digest !== null && Object.keys(digest).join() === 'sha256' && /^[0-9a-f]{64}$/.test(String(digest.sha256));
}

/** A single path component that is not `.` or `..`. */
function isPlainName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\0');
}

/** A `/`-separated relative path of plain names. */
function isSafeRelative(rel: string): boolean {
  return rel.split('/').every(isPlainName);
}
