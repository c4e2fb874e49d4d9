/** `verify` over several folders: checks each is a folder, then lints it. */
import {statSync} from 'node:fs';
import path from 'node:path';
import {freshDeterminism} from './determinism-run.js';
import type {ReferenceChecker} from './determinism.js';
import {type BenchmarkReport, loadParser, verifyBenchmarkSync} from './lint.js';
import {describeFsError, kindOf} from './text.js';

/** A folder verify could not lint (it does not exist or is not a folder). */
export interface UnusableDir {
  dir: string;
  problem: string;
}

/** The outcome of verifying several folders. */
export interface VerifyResult {
  benchmarks: BenchmarkReport[];
  /** Folders that could not be verified at all (exit 2). */
  unusable: UnusableDir[];
  errors: number;
  warnings: number;
}

/**
 * Verify every folder of `dirs` (relative to `cwd`), in the order given. With `determinism` (what
 * `arbor benchmark verify` asks), a folder with a plan is first checked for determinism: its bundle's
 * cases made twice in fresh processes (determinism-run.ts), and with `checkReference` (lib/eval's,
 * handed in from above the eval) a speedup plan's reference run twice; without it, `bundle-deterministic`
 * reports only an outcome cached by an earlier verify or lock, as in list (a zoo's report).
 */
export async function verifyBenchmarks(
  dirs: readonly string[],
  options: {cwd?: string; determinism?: boolean; checkReference?: ReferenceChecker; onWait?: (dir: string, text: string) => void} = {},
): Promise<VerifyResult> {
  const cwd = options.cwd ?? process.cwd();
  const parse = await loadParser();
  const result: VerifyResult = {benchmarks: [], unusable: [], errors: 0, warnings: 0};
  for (const given of dirs) {
    const dir = given.length > 1 ? given.replace(/[\\/]+$/, '') || given : given;
    const problem = dir.trim() === '' ? 'is an empty path' : folderProblem(path.resolve(cwd, dir));
    if (problem) {
      result.unusable.push({dir, problem: `Benchmark folder \`${dir}\` ${problem}, expected a benchmark folder`});
      continue;
    }
    const root = path.resolve(cwd, dir);
    const onWait = options.onWait;
    const fresh = {
      ...(options.checkReference ? {checkReference: options.checkReference} : {}),
      ...(onWait ? {onWait: (text: string) => onWait(dir, text)} : {}),
    };
    const determinism = options.determinism ? await freshDeterminism(root, dir, fresh) : undefined;
    const report = verifyBenchmarkSync(dir, parse, {cwd, ...(determinism ? {determinism} : {})});
    result.benchmarks.push(report);
    result.errors += report.errors;
    result.warnings += report.warnings;
  }
  return result;
}

/** Why `abs` is not a usable folder, or undefined when it is one. */
function folderProblem(abs: string): string | undefined {
  try {
    const stats = statSync(abs, {throwIfNoEntry: false});
    if (!stats) return 'does not exist';
    if (!stats.isDirectory()) return `is ${stats.isFile() ? 'a file' : kindOf(stats)}`;
    return undefined;
  } catch (error) {
    return `cannot be read (${describeFsError(error)})`;
  }
}
