/**
 * How the tools name files: a path in a workspace the server's workspaces
 * folder holds as it is (the agent's own, and what it passes back); a path in
 * the zoo relative to the zoo (tools resolve relative paths against it); any
 * other solution by its digest (`sha256:<12 hex>`), never by the owner's path
 * (a ledger's label of a run the owner made, e.g. `/tmp/…/topk_fast.py`).
 */
import path from 'node:path';
import {isInside, type NamesContext} from './paths.js';

/** Labels that name no file: a revision, a recorded run. */
const notAPath = /^(commit |ledger run #)/;

/** A ledger's or compare's solution label as a tool shows it; null when there is neither label nor digest. */
export function shownLabel(ctx: NamesContext, label: string | null | undefined, benchmarkDir: string, digest: string | null | undefined): string | null {
  const byDigest = digest ? `sha256:${digest.slice(0, 12)}` : null;
  if (!label) return byDigest;
  if (notAPath.test(label)) return label;
  // A label is relative to the run's benchmark folder; of a folder elsewhere (the owner's clone), only a file inside it is read as the zoo entry's.
  const here = isInside(path.resolve(benchmarkDir), ctx.zoo);
  if (!path.isAbsolute(label) && !here && label.split('/').includes('..')) return byDigest ?? '(a file outside the zoo and the workspaces)';
  const abs = path.isAbsolute(label) ? path.normalize(label) : path.resolve(here ? benchmarkDir : path.join(ctx.zoo, path.basename(benchmarkDir)), label);
  if (isInside(abs, path.resolve(ctx.workspaces))) return abs;
  if (isInside(abs, ctx.zoo)) return path.relative(ctx.zoo, abs).split(path.sep).join('/') || '.';
  return byDigest ?? '(a file outside the zoo and the workspaces)';
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
