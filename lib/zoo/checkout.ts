/**
 * `checkout`: copy a benchmark to `<dest>` (without caches and dependencies),
 * `git init` and commit the baseline, so an agent can work in worktrees off it.
 * Built in a hidden temporary sibling named after this process and renamed into
 * place; the next run removes the siblings of runs that were killed.
 */
import {chmodSync, existsSync, mkdirSync, renameSync, rmSync, statSync} from 'node:fs';
import path from 'node:path';
import {UsageError} from '../errors.js';
import {copyTree, isJunk, makeTempSibling, refuseUnlessEmptyFolder, removeStaleTemps} from './copy.js';
import {describeFsError, kindOf} from './text.js';

/** What checkout did. */
export interface CheckoutResult {
  benchmark: string;
  dest: string;
  files: number;
  commit: string;
  /** Whether a local identity was configured because none existed. */
  identitySet: boolean;
}

/** Find the benchmark folder: a path, or a name inside `./arbor-zoo` or `./zoo`. */
export function resolveBenchmark(benchmark: string, cwd: string): string {
  const direct = path.resolve(cwd, benchmark);
  const candidates = [direct];
  if (!benchmark.includes('/') && !benchmark.includes(path.sep))
    candidates.push(path.resolve(cwd, 'arbor-zoo', benchmark), path.resolve(cwd, 'zoo', benchmark));
  for (const candidate of candidates) {
    let stats;
    try {
      stats = statSync(candidate, {throwIfNoEntry: false});
    } catch (error) {
      throw new UsageError(`Cannot read benchmark \`${benchmark}\` (${describeFsError(error)})`);
    }
    if (!stats) continue;
    if (!stats.isDirectory()) throw new UsageError(`Benchmark \`${benchmark}\` is ${stats.isFile() ? 'a file' : kindOf(stats)}, expected a benchmark folder`, 'not-a-folder');
    return candidate;
  }
  throw new UsageError(`Benchmark \`${benchmark}\` does not exist, expected a benchmark folder (a path, or a name in ./arbor-zoo or ./zoo)`, 'not-found');
}

/** A benchmark copied without arbor.lock gets one, committed with the baseline (a folder without a loadable plan gets none). */
async function lockCheckout(dir: string): Promise<void> {
  if (existsSync(path.join(dir, 'arbor.lock')) || !existsSync(path.join(dir, 'plan.toml'))) return;
  const {writeLock} = await import('../benchmark/lock.js');
  await writeLock(dir).catch(() => {});
}

/** Copy `benchmark` to `dest`, init a git repository there and commit the baseline. */
export async function checkoutBenchmark(benchmark: string, dest: string, options: {cwd?: string} = {}): Promise<CheckoutResult> {
  const cwd = options.cwd ?? process.cwd();
  if (benchmark.trim() === '') throw new UsageError('The benchmark path is empty, expected a benchmark folder');
  if (dest.trim() === '') throw new UsageError('The destination path is empty, expected a new folder');
  const source = resolveBenchmark(benchmark, cwd);
  const target = path.resolve(cwd, dest);
  if (target === source || target.startsWith(source + path.sep))
    throw new UsageError(`Destination \`${dest}\` is inside the benchmark \`${benchmark}\`, expected a folder outside it`);
  refuseUnlessEmptyFolder(target, dest, 'check out');
  const parent = path.dirname(target);
  let temp: string | undefined;
  try {
    mkdirSync(parent, {recursive: true});
    removeStaleTemps(parent);
    temp = makeTempSibling(target, 'checkout');
    const files = copyTree(source, temp, {skip: isJunk});
    await lockCheckout(temp);
    const {initAndCommit} = await import('./git.js');
    const {commit, identitySet} = await initAndCommit(temp, `baseline: ${path.basename(source)}`);
    // mkdtemp makes the folder 0700; the copy keeps the benchmark folder's own mode.
    chmodSync(temp, statSync(source).mode & 0o777);
    renameSync(temp, target);
    return {benchmark, dest, files: files.length, commit, identitySet};
  } catch (error) {
    if (temp) rmSync(temp, {recursive: true, force: true});
    if (error instanceof Error && /spawn git ENOENT/.test(error.message))
      throw new UsageError('git is not installed or not on the PATH; install git and try again', 'no-git', {cause: error});
    throw new UsageError(`Could not check out \`${benchmark}\` to \`${dest}\` (${firstLine(error)}); nothing was changed`, 'checkout-failed', {cause: error});
  }
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return describeFsError(error) !== text && (error as NodeJS.ErrnoException).code ? describeFsError(error) : text.split('\n', 1)[0]!.trim();
}
