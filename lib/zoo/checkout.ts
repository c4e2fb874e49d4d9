/**
 * `checkout`: copy a benchmark to `<dest>` (without caches and dependencies),
 * `git init` and commit the baseline, so an agent can work in worktrees off it.
 * Built in a hidden temporary sibling named after this process and renamed into
 * place; the next run removes the siblings of runs that were killed.
 *
 * A path split's test data (the plan's `[test] path`, cases and expected
 * answers) is never copied: the checkout's test folder holds a placeholder
 * instead, whose manifest makes `eval … test` there stop with one line saying
 * the data is sealed and how to point at a copy (`--data DIR`,
 * ARBOR_TEST_DATA). The checkout's arbor.lock is the benchmark's less the
 * test files, plus the placeholder's: dev evals check the dev data against the
 * benchmark's own hashes (a stale benchmark stays stale in its checkout), and
 * test files added to the checkout make its lock stale.
 */
import {createHash} from 'node:crypto';
import {chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs';
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
  /** A path split's test data, left out (sealed): its folder (relative, POSIX) and how many files it holds; null when there was none. */
  sealedTestData: {folder: string; files: number} | null;
}

/** Find the benchmark folder: a path, or a name inside `./arbor-zoo` or `./zoo`. */
function resolveBenchmark(benchmark: string, cwd: string): string {
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
    if (!stats.isDirectory())
      throw new UsageError(`Benchmark \`${benchmark}\` is ${stats.isFile() ? 'a file' : kindOf(stats)}, expected a benchmark folder`, 'not-a-folder');
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

/** The benchmark's path-split test folder (absolute), when it has one that lies apart from its dev folder. */
async function testDataFolder(source: string): Promise<string | undefined> {
  if (!existsSync(path.join(source, 'plan.toml'))) return undefined;
  const {loadPlan} = await import('../benchmark/plan.js');
  const plan = await loadPlan(source).catch(() => undefined);
  // A plan that does not load (no eval runs from it) may still name a test folder: the usual one stays out.
  if (!plan) return existsSync(path.join(source, 'data', 'test')) ? path.join(source, 'data', 'test') : undefined;
  const test = plan.splitKind === 'path' ? plan.test.path : undefined;
  if (!test || !existsSync(test)) return undefined;
  const dev = plan.dev.path;
  // A test folder holding the dev data cannot go without it (and seals nothing).
  if (dev && (dev === test || dev.startsWith(test + path.sep))) return undefined;
  return test;
}

/** Copy `from` into the existing folder `to` (junk skipped) less the subtree `omit`; the relative paths copied. */
function copyOmitting(from: string, to: string, omit: string, prefix = ''): string[] {
  const copied: string[] = [];
  for (const entry of readdirSync(from, {withFileTypes: true}).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (isJunk(entry.name)) continue;
    const s = path.join(from, entry.name);
    const d = path.join(to, entry.name);
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (s === omit) continue;
    if (entry.isDirectory()) {
      mkdirSync(d);
      const inner = omit.startsWith(s + path.sep) ? copyOmitting(s, d, omit, rel) : copyTree(s, d, {skip: isJunk}).map((each) => `${rel}/${each}`);
      copied.push(...inner);
      chmodSync(d, statSync(s).mode & 0o7777);
    } else if (entry.isSymbolicLink()) {
      symlinkSync(readlinkSync(s), d);
      copied.push(rel);
    } else if (entry.isFile()) {
      copyFileSync(s, d);
      chmodSync(d, statSync(s).mode & 0o7777);
      copied.push(rel);
    }
  }
  return copied;
}

/** How many files lie under `dir`, junk skipped. */
function countFiles(dir: string): number {
  let count = 0;
  for (const entry of readdirSync(dir, {withFileTypes: true})) {
    if (isJunk(entry.name)) continue;
    if (entry.isDirectory()) count += countFiles(path.join(dir, entry.name));
    else count++;
  }
  return count;
}

/** The placeholder folder in a checkout's test folder: the eval reads it as a work directory and stops on its manifest. */
const sealedPlaceholder = 'SEALED';

/**
 * Put the placeholder where the test data was, and derive the checkout's lock
 * from the benchmark's: its test entries out, the placeholder's in. Without a
 * benchmark lock, lockCheckout writes one from the checkout as it is.
 */
async function sealTestData(temp: string, source: string, test: string, name: string): Promise<void> {
  const rel = path.relative(source, test).split(path.sep).join('/');
  const {readLockSync, lockFile} = await import('../benchmark/lock.js');
  const locked = readLockSync(temp);
  const left = Object.entries(locked?.files ?? {}).filter(([file]) => file.startsWith(`${rel}/`));
  const digest = createHash('sha256')
    .update(left.map(([file, sha]) => `${sha}  ${file}\n`).join(''))
    .digest('hex');
  const message =
    `the test data of ${name} (${rel}) is sealed: it is not in this checkout; evaluate the test split with --data DIR or ARBOR_TEST_DATA=DIR naming a copy of it, ` +
    'or submit the solution to the sealed test split (arbor mcp: submit_test)';
  const placeholder = path.join(temp, ...rel.split('/'), sealedPlaceholder);
  mkdirSync(placeholder, {recursive: true});
  // The eval reads a manifest with "sealed" as this stand-in, and stops with its text as the one-line error (lib/eval/data.ts).
  const files: Record<string, string> = {
    'manifest.json': `${JSON.stringify({sealed: message})}\n`,
    'README.md':
      `# ${rel}: sealed\n\n\`arbor benchmark checkout\` left the test data of ${name} out of this checkout (${left.length} files in the benchmark's arbor.lock, ` +
      `sha256 of their lock lines ${digest}). This folder stands in for it, so \`eval … test\` here says so. ${message.replace(/^./, (c) => c.toUpperCase())}.\n`,
  };
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(placeholder, file), text);
  if (!locked) return;
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  const kept = Object.entries(locked.files).filter(([file]) => !file.startsWith(`${rel}/`));
  for (const [file, text] of Object.entries(files)) kept.push([`${rel}/${sealedPlaceholder}/${file}`, sha(text)]);
  kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  writeFileSync(path.join(temp, lockFile), `${JSON.stringify({version: 1, files: Object.fromEntries(kept)}, null, 2)}\n`);
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
    const test = await testDataFolder(source);
    const files = test ? copyOmitting(source, temp, test) : copyTree(source, temp, {skip: isJunk});
    if (test) await sealTestData(temp, source, test, path.basename(source));
    await lockCheckout(temp);
    const {initAndCommit} = await import('./git.js');
    const {commit, identitySet} = await initAndCommit(temp, `baseline: ${path.basename(source)}`);
    // mkdtemp makes the folder 0700; the copy keeps the benchmark folder's own mode.
    chmodSync(temp, statSync(source).mode & 0o777);
    renameSync(temp, target);
    const sealedTestData = test ? {folder: path.relative(source, test).split(path.sep).join('/'), files: countFiles(test)} : null;
    return {benchmark, dest, files: files.length, commit, identitySet, sealedTestData};
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
