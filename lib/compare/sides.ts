/**
 * The two sides of a compare, as given on the command line: a solution file
 * (in place of the plan's solution file), a folder holding the editable files,
 * or a git revision, meaning the editable files (plan.toml's `editable`) as
 * that commit of the benchmark's repository holds them.
 */
import {chmod, mkdir, stat, writeFile} from 'node:fs/promises';
import path from 'node:path';
import {UsageError} from '../errors.js';
import type {Plan} from '../benchmark/plan.js';
import {labelOf, runName} from '../eval/index.js';
import type {LabelKind} from '../ledger/ledger.js';
import type {SideRequest} from '../eval/index.js';

export type SideLabel = 'baseline' | 'candidate';

/** A side resolved: what it is, and the request the eval runs. */
export interface SideSource {
  label: SideLabel;
  /** The argument as given. */
  argument: string;
  kind: 'file' | 'folder' | 'revision';
  /** kind revision: the full commit id. */
  commit?: string;
  /** kind file or folder: whether its files have changes git has not committed (null outside a repository). */
  dirty?: boolean | null;
  request: SideRequest;
}

/**
 * Resolve a side: an existing file or folder wins over a revision of the same
 * name; a revision's editable files are written under `scratch/<label>`.
 */
export async function resolveSide(label: SideLabel, argument: string, context: {plan: Plan; cwd: string; scratch: string}): Promise<SideSource> {
  const {plan, cwd} = context;
  if (argument.trim() === '') throw new UsageError(`${label}: an empty argument: pass a solution file or a git revision`, 'usage');
  const local = path.resolve(cwd, argument);
  const info = await stat(local).catch(() => undefined);
  const git = await import('../zoo/git.js');
  if (info?.isFile() || info?.isDirectory()) {
    const kind = info.isFile() ? 'file' : 'folder';
    const dirty = await git.pathsDirty(plan.dir, [local]);
    return {label, argument, kind, dirty, request: kind === 'file' ? {label, solution: local} : {label, folder: local}};
  }
  const revision = await git.resolveRevision(plan.dir, argument);
  if (!revision) {
    throw new UsageError(
      `${label} ${argument}: neither a file, a folder, nor a git revision of the repository holding ${path.relative(cwd, plan.dir) || '.'}`,
      'not-found',
    );
  }
  const inRepository = (rel: string) => path.relative(revision.root, path.join(plan.dir, rel)).split(path.sep).join('/');
  const files = await git.filesAtRevision(revision, plan.editable.map(inRepository));
  const entry = inRepository(path.relative(plan.dir, plan.solution));
  if (!files.some((file) => file.path === entry)) {
    throw new UsageError(`${label} ${argument}: commit ${revision.commit.slice(0, 12)} has no ${entry}, the benchmark's solution file`, 'not-found');
  }
  const folder = path.join(context.scratch, label);
  for (const file of files) {
    const target = path.join(folder, path.relative(plan.dir, path.join(revision.root, file.path)));
    await mkdir(path.dirname(target), {recursive: true});
    await writeFile(target, file.bytes);
    if (file.executable) await chmod(target, 0o755);
  }
  return {label, argument, kind: 'revision', commit: revision.commit, request: {label, folder}};
}

/** One line saying what a side is: `solution.py (file, uncommitted changes)`, `HEAD~1 (commit 1a2b3c4d5e6f)`. */
export function describeSide(side: SideSource, cwd: string): string {
  if (side.kind === 'revision') return `${side.argument} (commit ${side.commit!.slice(0, 12)})`;
  const absolute = path.resolve(cwd, side.argument);
  const relative = path.relative(cwd, absolute);
  const shown = relative && !relative.startsWith('..') ? relative : absolute;
  const state = side.dirty ? ', uncommitted changes' : side.dirty === false ? ', as committed' : '';
  return `${shown} (${side.kind}${state})`;
}

/**
 * How the ledger names a side: a revision by its commit (the argument kept after it), a file or folder by
 * its path from the benchmark folder and the first 6 hex digits of its digest (`solution.py@3fa2c1`).
 */
export function sideLabel(side: SideSource, plan: Pick<Plan, 'dir' | 'solution'>, cwd: string, digest: string | null): {label: string; kind: LabelKind} {
  if (side.kind === 'revision')
    return {label: `commit ${side.commit!.slice(0, 12)}${side.argument === side.commit ? '' : ` (${side.argument})`}`, kind: 'commit'};
  return labelOf(runName(plan.dir, side.argument, plan, cwd), digest);
}
