/**
 * The determinism check (rule `bundle-deterministic`): the zoo promises the same case bytes on every
 * machine, so verify and lock make the first published seed of every point twice, each time in a
 * fresh `arbor bundle … make` process, and compare every file of `cases/` (the generator) and of
 * `expected/` (the oracle, which both makes run over byte-identical cases). A Python bundle's host
 * process starts with `-I`, so each make draws its own random hash seed: an order taken from a set
 * or dict of strings differs between them.
 *
 * This module is the synchronous part, which list's worker threads load: what is checked, the
 * cache key and the cache file (keyed by the bundle's fingerprint and the bytes of its files), and
 * the check's way of making a case and naming a difference, which the eval shares: it makes one case
 * of each point again this way (lib/eval/point-make.ts), so a generator that is deterministic only
 * when made as the check makes it (one seed, a fresh process) fails there too. The check's own
 * makes are in determinism-run.ts.
 */
import {spawn} from 'node:child_process';
import {createHash} from 'node:crypto';
import {existsSync, mkdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import type {Bundle} from '../bundle/bundle.js';
import {fileSystem, type TreeSource} from '../benchmark/lock.js';
import {splits, type Plan, type PlanPoint, type Split} from '../benchmark/plan.js';
import {cacheDir, writeFileAtomic} from '../files.js';
import {evalEnvironment} from '../secrets.js';
import {arborVersion} from '../version.js';

/** One make the check runs twice: a point and the seeds it makes (the first seed of each split with that point). */
export interface DeterminismTarget {
  point: PlanPoint;
  seeds: number[];
  splits: Split[];
}

/** A difference (or a make or run that failed), as the rule reports it. */
export interface DeterminismProblem {
  message: string;
  /** What is not shown deterministic: the bundle's makes (`bundle-deterministic`, the default) or the plan's reference (`reference-deterministic`). */
  of?: 'reference';
}

/** The reference check: the plan's reference run twice on the same cases (speedup plans with a reference). */
export interface ReferenceCheck {
  /** Whether it settles the question (the eval ran): only then is a pass reused. */
  conclusive: boolean;
  /** Wall seconds of the eval that ran it (0 when a cached pass was reused). */
  seconds: number;
  /** Set when the pass was reused from an earlier check of the same bytes. */
  reused?: boolean;
}

/** What a reference check is asked: the plan, where its problems go, the environment (secrets are removed) and the folder as the user names it. */
export interface ReferenceRequest {
  plan: Plan;
  problems: DeterminismProblem[];
  env: NodeJS.ProcessEnv;
  shown: string;
  /** Told while the eval waits for a CPU lease. */
  onWait?: (text: string) => void;
}

/**
 * What runs the reference check: an eval, which sits above the zoo (docs/architecture.md, rule b),
 * so the caller hands lib/eval's `checkReference` in and the zoo never imports the eval.
 */
export type ReferenceChecker = (request: ReferenceRequest) => Promise<ReferenceCheck>;

/** What the check found for one bundle and plan. */
export interface DeterminismOutcome {
  /** The bundle's signature fingerprint. */
  fingerprint: string;
  /** The cache key: fingerprint, the bytes of every bundle file, arbor's version and the targets. */
  key: string;
  /** What was made twice. */
  checked: DeterminismTarget[];
  problems: DeterminismProblem[];
  /** Wall seconds of the makes. */
  seconds: number;
  /** The reference check, for a speedup plan with a reference (its problems are among `problems`, `of: 'reference'`). */
  reference?: ReferenceCheck;
  /** Whether the outcome settles the question (no make failed): only such outcomes are cached. */
  conclusive: boolean;
}

/** Files of a bundle folder that are never part of what it makes (tool caches). */
const ignoredNames = new Set(['__pycache__', '.DS_Store', 'node_modules', '.pytest_cache']);

/**
 * The points and seeds to make: every point of every seed split, once, with the first published seed
 * of the first split (dev, then test) that has it. Path splits have no seeds to make.
 */
export function determinismTargets(plan: Plan): DeterminismTarget[] {
  if (plan.splitKind === 'path') return [];
  const byPoint = new Map<string, DeterminismTarget>();
  for (const split of splits) {
    const seed = plan[split].seeds[0];
    if (seed === undefined) continue;
    for (const point of plan[split].points) {
      const text = JSON.stringify(point);
      const target = byPoint.get(text);
      if (target) target.splits.push(split);
      else byPoint.set(text, {point, seeds: [seed], splits: [split]});
    }
  }
  return [...byPoint.values()];
}

/** The files of the bundle folder (relative, `/`-separated, sorted) with their SHA-256. */
function bundleFiles(dir: string, source: TreeSource = fileSystem): Array<[string, string]> {
  const files: Array<[string, string]> = [];
  const visit = (rel: string): void => {
    const file = path.join(dir, rel);
    const kind = source.kind(file);
    if (!kind || (rel !== '' && ignoredNames.has(path.basename(rel)))) return;
    const key = rel.split(path.sep).join('/');
    if (kind === 'dir') {
      let names: string[] = [];
      try {
        names = source.names(file);
      } catch {
        // an unreadable folder hashes as empty; the make reports what it cannot read
      }
      for (const name of names) visit(rel === '' ? name : path.join(rel, name));
    } else if (kind === 'symlink') {
      let target = '';
      try {
        target = source.sha256(file);
      } catch {
        target = `dangling:${source.readlink(file)}`;
      }
      files.push([key, target]);
    } else if (kind === 'file') {
      try {
        files.push([key, source.sha256(file)]);
      } catch (error) {
        files.push([key, `unreadable:${(error as NodeJS.ErrnoException).code}`]);
      }
    }
  };
  visit('');
  return files;
}

/**
 * The files besides the bundle's that the check depends on: plan.toml and, for a speedup plan, its
 * reference (relative to the benchmark folder, with their SHA-256), since the reference is run too.
 */
function planFiles(plan: Plan, source: TreeSource = fileSystem): Array<[string, string]> {
  const names = ['plan.toml', ...(plan.metric === 'speedup' && plan.reference ? [path.relative(plan.dir, plan.reference)] : [])];
  return names.map((name) => {
    try {
      return [name, source.sha256(path.join(plan.dir, name))];
    } catch (error) {
      return [name, `unreadable:${(error as NodeJS.ErrnoException).code}`];
    }
  });
}

/** Whether the plan's reference is checked too: a speedup plan with a reference. */
export function checksReference(plan: Plan): boolean {
  return plan.metric === 'speedup' && plan.reference !== undefined;
}

/** The cache key of a bundle's determinism for these targets (`files`: `bundleFiles` of the bundle, when already read), and of the plan's files. */
export function determinismKey(
  bundle: Bundle,
  plan: Plan,
  targets: readonly DeterminismTarget[],
  files = bundleFiles(bundle.dir),
  ofPlan = planFiles(plan),
): string {
  const hash = createHash('sha256');
  // The interpreter a Python bundle and the reference run with (ARBOR_PYTHON): another numpy may answer other bytes.
  hash.update(
    `arbor ${arborVersion()}\0python ${process.env.ARBOR_PYTHON ?? ''}\0${bundle.fingerprint}\0${JSON.stringify(targets.map((t) => [t.point, t.seeds]))}\0`,
  );
  for (const [name, digest] of files) hash.update(`${name}\0${digest}\0`);
  for (const [name, digest] of ofPlan) hash.update(`plan:${name}\0${digest}\0`);
  return hash.digest('hex');
}

/** The cache file of a key: `<cache>/determinism/<fingerprint hex, 16>-<key, 32>.json`. */
function determinismCacheFile(fingerprint: string, key: string, env: NodeJS.ProcessEnv = process.env): string {
  const hex = fingerprint.replace(/^sha256:/, '').slice(0, 16) || 'none';
  return path.join(cacheDir(env), 'determinism', `${hex}-${key.slice(0, 32)}.json`);
}

/**
 * The cached outcome for this bundle and plan, if a verify or lock stored one; never runs anything.
 * `source`: how the bundle's and plan's files are read; `read`: how the cache file is.
 */
export function cachedDeterminism(
  bundle: Bundle,
  plan: Plan,
  env: NodeJS.ProcessEnv = process.env,
  source: TreeSource = fileSystem,
  read: (file: string) => string | undefined = (file) => readFileSync(file, 'utf8'),
): {file: string; names: string[]; planNames: string[]; outcome?: DeterminismOutcome} {
  const targets = determinismTargets(plan);
  const files = bundleFiles(bundle.dir, source);
  const names = files.map(([name]) => name);
  const ofPlan = planFiles(plan, source);
  const planNames = ofPlan.map(([name]) => name);
  const key = determinismKey(bundle, plan, targets, files, ofPlan);
  const file = determinismCacheFile(bundle.fingerprint, key, env);
  try {
    const text = read(file);
    const outcome = (text === undefined ? undefined : JSON.parse(text)) as DeterminismOutcome | undefined;
    if (outcome?.key === key && outcome.fingerprint === bundle.fingerprint && Array.isArray(outcome.problems)) return {file, names, planNames, outcome};
  } catch {
    // no cache (or a broken one): not checked
  }
  return {file, names, planNames};
}

/** Store a conclusive outcome (best effort: a cache that cannot be written is no error). */
export function storeDeterminism(outcome: DeterminismOutcome, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!outcome.conclusive) return undefined;
  const file = determinismCacheFile(outcome.fingerprint, outcome.key, env);
  try {
    mkdirSync(path.dirname(file), {recursive: true});
    writeFileAtomic(file, `${JSON.stringify(outcome)}\n`);
    return file;
  } catch {
    return undefined;
  }
}

/** The built CLI (from dist/lib/zoo, and from lib/zoo when the sources run under a test runner). */
function cliPath(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.resolve(here, '../../cli/index.js'), path.resolve(here, '../../dist/cli/index.js')];
  const found = candidates.find((file) => existsSync(file));
  if (!found) throw new Error(`arbor's CLI is missing (looked in ${candidates.join(', ')}); build arbor`);
  return found;
}

/**
 * One make of the check: `arbor bundle <bundleDir> make <dir> --point P --seeds S` in a fresh
 * process, with the environment's secrets removed and its own PYTHONHASHSEED. Undefined when it
 * worked, else why not (one line).
 */
export function makeInChild(
  bundleDir: string,
  point: PlanPoint,
  seeds: readonly number[],
  dir: string,
  env: NodeJS.ProcessEnv,
  hashSeed: string,
  timeoutSeconds: number,
): Promise<string | undefined> {
  const args = [cliPath(), 'bundle', bundleDir, 'make', dir, '--point', JSON.stringify(point), '--seeds', seeds.join(',')];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: bundleDir,
      env: {...evalEnvironment(env), PYTHONHASHSEED: hashSeed, NO_COLOR: '1'},
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 1 << 16) stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutSeconds * 1000);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve(error.message);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve(undefined);
      const line = stderr
        .split('\n')
        .map((l) => l.replace(/^arbor: /, '').trim())
        .filter(Boolean)
        .at(-1);
      resolve(
        line ?? (signal ? `the make was killed (${signal}${signal === 'SIGKILL' ? `, over ${timeoutSeconds} s` : ''})` : `the make exited with code ${code}`),
      );
    });
  });
}

/** The check's words for a file two makes disagree on (`rel`: `cases/000000/x.bin`; `seed` as it may be shown). */
export function differenceMessage(
  bundle: Bundle,
  group: 'cases' | 'expected',
  point: string,
  seed: string,
  rel: string,
  difference: number | 'missing',
): string {
  const role = group === 'cases' ? 'generator' : 'oracle';
  const python = (group === 'cases' ? bundle.entry.generate : bundle.entry.oracle).endsWith('.py');
  const how =
    difference === 'missing'
      ? `made ${rel} in only one of two makes`
      : `made ${rel} twice${group === 'expected' ? ' from the same cases' : ''} and the bytes differ from offset ${difference}`;
  return `the ${role} is not deterministic: point ${point} seed ${seed} ${how} (${fix(group, python)})`;
}

export function fix(group: 'cases' | 'expected', python: boolean): string {
  const order = "and sort what you take from a set or dict of strings (its order changes with Python's hash seed)";
  if (group === 'cases')
    return python
      ? `use the seeded random stream the bundle gets, never random, numpy.random or the clock, ${order}`
      : 'use the seeded random stream the bundle gets, never Math.random or the clock';
  return python
    ? `compute the expected results from the case's arguments alone, without random, numpy.random or the clock, ${order}`
    : "compute the expected results from the case's arguments alone, without Math.random or the clock";
}

/** The first byte offset where two files differ, 'missing' when one is absent, undefined when equal. */
export function firstDifference(a: string, b: string): number | 'missing' | undefined {
  let x: Buffer;
  let y: Buffer;
  try {
    x = readFileSync(a);
    y = readFileSync(b);
  } catch {
    return 'missing';
  }
  if (x.equals(y)) return undefined;
  const n = Math.min(x.length, y.length);
  // Narrow down by 64 KiB blocks, then bytes.
  let at = 0;
  const block = 1 << 16;
  while (at + block <= n && x.subarray(at, at + block).equals(y.subarray(at, at + block))) at += block;
  while (at < n && x[at] === y[at]) at++;
  return at;
}
