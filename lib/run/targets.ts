/**
 * What a zoo-wide run evaluates: the benchmark folders named on the command
 * line (a zoo stands for its entries), the splits, and the solution files given
 * with `--solution ENTRY=FILE`, expanded into one item per (entry, split,
 * solution).
 */
import {readdirSync, statSync} from 'node:fs';
import path from 'node:path';
import {UsageError} from '../errors.js';
import type {Split} from '../benchmark/plan.js';
import {isSkippedName, resolveZoo} from '../zoo/list.js';

/** One benchmark folder to evaluate. */
export interface RunTarget {
  /** The folder's name: what `--solution ENTRY=FILE` and the summary call it. */
  entry: string;
  /** The folder, absolute. */
  dir: string;
  /** The folder as shown to the user (relative to cwd when inside it). */
  shown: string;
}

/** One eval of a run: an entry, a split and a solution file. */
export interface RunItem {
  /** Position in the run (0-based), stable across modes. */
  index: number;
  target: RunTarget;
  split: Split;
  /** Another solution file (absolute) in place of the plan's; undefined: the plan's. */
  solution?: string;
  /** That file as the user gave it. */
  solutionShown?: string;
}

/** The folders a run covers, and the zoo folders it passed over. */
export interface ResolvedTargets {
  targets: RunTarget[];
  /** Zoo subfolders that hold no plan.toml (not evaluable), as shown. */
  withoutPlan: string[];
}

const hasPlan = (dir: string) => statSync(path.join(dir, 'plan.toml'), {throwIfNoEntry: false})?.isFile() === true;

/**
 * Turn the command line's folders into benchmark folders: a folder holding
 * plan.toml is one benchmark; any other folder is a zoo, standing for its
 * subfolders that hold one (skipping `_` and `.` names, as `benchmark list`
 * does). No folder at all: the default zoo (./arbor-zoo, else ./zoo).
 */
export function resolveTargets(paths: readonly string[], cwd: string): ResolvedTargets {
  const targets: RunTarget[] = [];
  const withoutPlan: string[] = [];
  const seen = new Set<string>();
  const add = (dir: string, shown: string) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    targets.push({entry: path.basename(dir), dir, shown});
  };
  const given = paths.length > 0 ? paths : [resolveZoo(undefined, cwd, 'run').shown];
  for (const shown of given) {
    if (shown.trim() === '') throw new UsageError('an empty folder name was given: pass a zoo or benchmark folders');
    const dir = path.resolve(cwd, shown);
    const stats = statSync(dir, {throwIfNoEntry: false});
    if (!stats) throw new UsageError(`${shown} does not exist: pass a zoo folder or benchmark folders holding plan.toml`, 'not-found');
    if (!stats.isDirectory()) throw new UsageError(`${shown} is not a folder: pass a zoo folder or benchmark folders holding plan.toml`, 'not-a-folder');
    if (hasPlan(dir)) {
      add(dir, shown);
      continue;
    }
    const before = targets.length;
    const names = readdirSync(dir, {withFileTypes: true})
      .filter(
        (dirent) =>
          !isSkippedName(dirent.name) &&
          (dirent.isDirectory() || (dirent.isSymbolicLink() && statSync(path.join(dir, dirent.name), {throwIfNoEntry: false})?.isDirectory())),
      )
      .map((dirent) => dirent.name)
      .sort();
    for (const name of names) {
      const entry = path.join(dir, name);
      if (hasPlan(entry)) add(entry, path.join(shown, name));
      else withoutPlan.push(path.join(shown, name));
    }
    if (targets.length === before)
      throw new UsageError(`${shown} holds no plan.toml and no subfolder with one: pass a zoo or benchmark folders holding plan.toml`, 'no-plan');
  }
  return {targets, withoutPlan};
}

/** The splits of `--split` (given once or more; default dev), checked. */
export function parseSplits(value: string | string[] | undefined): Split[] {
  const given = value === undefined ? ['dev'] : Array.isArray(value) ? value : [value];
  const splits: Split[] = [];
  for (const split of given) {
    if (split !== 'dev' && split !== 'test') throw new UsageError(`--split ${split}: unknown split, expected dev or test`);
    if (!splits.includes(split)) splits.push(split);
  }
  return splits;
}

/** `--solution ENTRY=FILE` values, checked against the targets: entry name -> solution files (absolute and as given). */
export function parseSolutions(values: readonly string[], targets: readonly RunTarget[], cwd: string): Map<string, {file: string; shown: string}[]> {
  const solutions = new Map<string, {file: string; shown: string}[]>();
  for (const value of values) {
    const at = value.indexOf('=');
    if (at <= 0 || at === value.length - 1) throw new UsageError(`--solution ${value}: expected ENTRY=FILE, e.g. --solution relu_poly=candidates/relu.py`);
    const entry = value.slice(0, at);
    const shown = value.slice(at + 1);
    const matches = targets.filter((target) => target.entry === entry);
    if (matches.length === 0) {
      const known = targets.map((target) => target.entry).join(', ');
      throw new UsageError(`--solution ${value}: no entry named ${entry} in this run (entries: ${known})`, 'not-found');
    }
    if (matches.length > 1)
      throw new UsageError(`--solution ${value}: ${entry} names ${matches.length} folders (${matches.map((m) => m.shown).join(', ')}); run them separately`);
    const file = path.resolve(cwd, shown);
    if (!statSync(file, {throwIfNoEntry: false})?.isFile()) throw new UsageError(`--solution ${value}: ${shown} is not a file`, 'not-found');
    const list = solutions.get(entry) ?? [];
    if (!list.some((known) => known.file === file)) list.push({file, shown});
    solutions.set(entry, list);
  }
  return solutions;
}

/** One item per (entry, solution, split), in the order of the targets. */
export function planItems(
  targets: readonly RunTarget[],
  splits: readonly Split[],
  solutions: ReadonlyMap<string, {file: string; shown: string}[]> = new Map(),
): RunItem[] {
  const items: RunItem[] = [];
  for (const target of targets) {
    const files = solutions.get(target.entry) ?? [undefined];
    for (const solution of files) {
      for (const split of splits) {
        items.push({index: items.length, target, split, ...(solution ? {solution: solution.file, solutionShown: solution.shown} : {})});
      }
    }
  }
  return items;
}

/** How an item is named in progress lines: `entry split`, with `=FILE` (its file name) for another solution. */
export function itemLabel(item: RunItem): string {
  return `${entryLabel(item.target.entry, item.solutionShown ?? null)} ${item.split}`;
}

/** An entry as the summary names it: its folder name, with `=FILE` (the file's name) for another solution. */
export function entryLabel(entry: string, solution: string | null): string {
  return solution ? `${entry}=${path.basename(solution)}` : entry;
}
