/**
 * How the tools name files: a path in a workspace the server's workspaces
 * folder holds as it is (the agent's own, and what it passes back); a path in
 * the zoo relative to the zoo (tools resolve relative paths against it); any
 * other solution by its digest (`sha256:<12 hex>`), never by the owner's path
 * (a ledger's label of a run the owner made, e.g. `/tmp/…/topk_fast.py`).
 */
import path from 'node:path';
import type {Plan} from '../benchmark/plan.js';
import {type RunName, runName} from '../eval/index.js';
import type {LabelKind} from '../ledger/ledger.js';
import {isInside, type NamesContext} from './paths.js';

/** Labels that name no file: a revision, a recorded run. */
const notAPath = /^(commit |ledger run #)/;
/** A path label with its short digest (lib/eval/record.ts labelOf): `solution.py@3fa2c1`. */
const withDigest = /@[0-9a-f]{6}$/;

/**
 * A ledger's or compare's solution label as a tool shows it; null when there is neither label nor digest.
 * A label its caller gave, or a commit, as it is; a path with its digest (relative to its entry or workspace)
 * as it is unless it leads out of them (the owner's file elsewhere: its digest instead); an older label by its path.
 */
export function shownLabel(
  ctx: NamesContext,
  label: string | null | undefined,
  benchmarkDir: string,
  digest: string | null | undefined,
  kind?: LabelKind | null,
): string | null {
  const byDigest = digest ? `sha256:${digest.slice(0, 12)}` : null;
  if (!label) return byDigest;
  if (kind === 'given' || kind === 'commit' || notAPath.test(label)) return label;
  if (kind || withDigest.test(label)) {
    const file = label.replace(withDigest, '');
    return path.isAbsolute(file) || file.split('/').some((part) => part === '..' || part.startsWith('.arbor')) ? (byDigest ?? elsewhere) : label;
  }
  // A label is relative to the run's benchmark folder; of a folder elsewhere (the owner's clone), only a file inside it is read as the zoo entry's.
  const here = isInside(path.resolve(benchmarkDir), ctx.zoo);
  if (!path.isAbsolute(label) && !here && label.split('/').includes('..')) return byDigest ?? '(a file outside the zoo and the workspaces)';
  const abs = path.isAbsolute(label) ? path.normalize(label) : path.resolve(here ? benchmarkDir : path.join(ctx.zoo, path.basename(benchmarkDir)), label);
  if (isInside(abs, path.resolve(ctx.workspaces))) return abs;
  const inZoo = path.relative(ctx.zoo, abs).split(path.sep).join('/');
  // An older run's label can name the copy an MCP call ran (`.arbor/mcp-snapshots/…`): arbor's state, never shown.
  if (isInside(abs, ctx.zoo) && !inZoo.split('/').some((part) => part.startsWith('.'))) return inZoo || '.';
  return byDigest ?? elsewhere;
}

const elsewhere = '(a file outside the zoo and the workspaces)';

/**
 * What the ledger calls a solution an agent passed (the path it gave, not the run's copy): relative to its
 * workspace (the workspace itself by its folder's name), else to the entry; `entry` when it is the workspace's or the entry's
 * solution file, or the workspace folder (the entry's editable files), else `file`.
 */
export function agentName(ctx: NamesContext, plan: Pick<Plan, 'dir' | 'solution'>, given: string): RunName {
  const workspaces = path.resolve(ctx.workspaces);
  if (!isInside(given, workspaces) || given === workspaces) return runName(plan.dir, given, plan, plan.dir);
  const [workspace, ...inner] = path.relative(workspaces, given).split(path.sep);
  // The workspace itself by its folder's name (as checkout's dest gave it), a file in it by its path there.
  if (inner.length === 0) return {path: workspace!, kind: 'entry'};
  const rel = inner.join('/');
  return {path: rel, kind: rel === path.relative(plan.dir, plan.solution).split(path.sep).join('/') ? 'entry' : 'file'};
}

/** Text with the zoo's absolute paths made relative to it (the zoo itself: `.`). */
export function shownText(ctx: Pick<NamesContext, 'zoo'>, text: string): string {
  if (!text.includes(ctx.zoo)) return text;
  return text.split(`${ctx.zoo}${path.sep}`).join('').split(ctx.zoo).join('.');
}

/** Every string of a tool result (or any JSON-like value) through shownText. */
export function shownDeep<T>(ctx: Pick<NamesContext, 'zoo'>, value: T): T {
  if (typeof value === 'string') return shownText(ctx, value) as T;
  if (Array.isArray(value)) return value.map((each) => shownDeep(ctx, each)) as T;
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, each]) => [key, shownDeep(ctx, each)])) as T;
  return value;
}
