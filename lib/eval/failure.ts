/**
 * A failed case in words: the first wrong element that a verdict's `metrics.first` names (the
 * bundle's exact rule always does on a failed case; a verifier may), e.g.
 * `y[0, 4] expected 17, got 18 (1 of 64 elements wrong)`; and where a crash was raised in the
 * solution's own files, e.g. `at solution.py:12: \`x = a[i]\``.
 */
import {lstat, readFile, realpath} from 'node:fs/promises';
import path from 'node:path';
import type {CaseFrame} from './types.js';

/** Longest text shown for one value, name or index: a verifier's `first` is authored, so any size can come back. */
const MAX_TEXT = 40;

/**
 * The readable failure of a case from its verdict's metrics, or undefined when they name no
 * first wrong element. The exact rule's counts read `(1 of 64 elements wrong)`; a verifier's
 * other metrics follow as their JSON, as they did before `first` existed.
 */
export function explainFailure(metrics: Record<string, unknown> | undefined): string | undefined {
  const first = metrics?.first;
  if (typeof first !== 'object' || first === null || Array.isArray(first)) return undefined;
  const {result, index, flat, expected, got} = first as Record<string, unknown>;
  const at = indexText(index, flat);
  const withValues = expected !== undefined || got !== undefined;
  if (!withValues && typeof result !== 'string' && !at) return undefined;
  const where = `${typeof result === 'string' ? clip(result) : 'element'}${at}`;
  const text = withValues ? `${where} expected ${valueText(expected)}, got ${valueText(got)}` : `${where} is wrong`;
  const {first: _first, ...rest} = metrics!;
  if (rest.rule === 'exact' && typeof rest.wrong === 'number' && typeof rest.of === 'number') {
    return `${text} (${rest.wrong} of ${rest.of} element${rest.of === 1 ? '' : 's'} wrong)`;
  }
  return Object.keys(rest).length ? `${text} (${JSON.stringify(rest)})` : text;
}

/** Metrics whose `first` keeps where the element is but not its values (`expected`, `got`): for secret (salted) test data. */
export function withoutValues(metrics: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const first = metrics?.first;
  if (typeof first !== 'object' || first === null || Array.isArray(first)) return metrics;
  const {expected: _expected, got: _got, ...place} = first as Record<string, unknown>;
  return {...metrics, first: place};
}

/** `[0, 4]` for a multi-dimensional index, `[4]` from a flat one alone, nothing for a scalar's `[]`. */
function indexText(index: unknown, flat: unknown): string {
  if (Array.isArray(index)) return index.length ? clip(`[${index.map((k) => (typeof k === 'number' ? String(k) : valueText(k))).join(', ')}]`) : '';
  return typeof flat === 'number' ? `[${flat}]` : '';
}

/** A value as JSON text, strings (64-bit integers, NaN, -0) as they are; clipped to MAX_TEXT characters. */
function valueText(value: unknown): string {
  return clip(typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)));
}

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}

/** Longest line text kept of a crash's frame, and the largest source file read for it. */
const MAX_LINE_TEXT = 120;
const MAX_SOURCE_BYTES = 8 << 20;

/**
 * The runner's frames of a crash as the report's: each kept only when it names
 * an existing line of a regular file inside `folder` (the solution's folder in
 * the eval's snapshot), with that line's text read here, from the snapshot. The
 * runner shares its process with the solution, so nothing it says is taken on
 * trust: a frame can name only a line of the solution's own files, and its text
 * is always that line's (a case's value can never be passed off as one).
 */
export async function sourceFrames(
  folder: string,
  frames: ReadonlyArray<{file: string; line: number}>,
  sources = new Map<string, string[] | null>(),
): Promise<CaseFrame[]> {
  const kept: CaseFrame[] = [];
  for (const {file, line} of frames) {
    const lines = await sourceLines(folder, file, sources);
    const text = lines?.[line - 1];
    if (text === undefined) continue;
    const shown = clipLine(text);
    kept.push(shown ? {file, line, text: shown} : {file, line});
  }
  return kept;
}

/** The lines of `file` under `folder` (Python's line breaks), or null when it is not a regular file inside it (cached in `sources`). */
async function sourceLines(folder: string, file: string, sources: Map<string, string[] | null>): Promise<string[] | null> {
  if (sources.has(file)) return sources.get(file)!;
  let lines: string[] | null = null;
  const inside = path.resolve(folder, file);
  const relative = path.relative(folder, inside);
  if (!path.isAbsolute(file) && relative === file && !relative.startsWith('..') && !file.includes('\0')) {
    try {
      const [real, realFolder] = await Promise.all([realpath(inside), realpath(folder)]);
      const info = await lstat(inside);
      if (info.isFile() && info.size <= MAX_SOURCE_BYTES && real === path.join(realFolder, relative))
        lines = (await readFile(inside, 'utf8')).split(/\r\n|\r|\n/);
    } catch {
      lines = null;
    }
  }
  sources.set(file, lines);
  return lines;
}

/** A source line as one short line of text: stripped, control and format characters as spaces, clipped. */
function clipLine(text: string): string {
  const line = text.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, ' ').trim();
  return line.length > MAX_LINE_TEXT ? `${line.slice(0, MAX_LINE_TEXT - 1)}…` : line;
}

/**
 * Where a crash was raised, in words for the failure line: `at solution.py:12: \`x = a[i]\``, then
 * the frames that led there, innermost first: `(called from solution.py:20, solution.py:31)`. The
 * solution's file is named `shownAs` (the file --solution named), other files as they are.
 */
export function whereText(where: readonly CaseFrame[] | undefined, solutionFile?: string, shownAs?: string): string {
  if (!where?.length) return '';
  const name = (frame: CaseFrame) => `${shownAs && frame.file === solutionFile ? shownAs : frame.file}:${frame.line}`;
  const inner = where[where.length - 1]!;
  const callers = where.slice(0, -1).reverse().map(name);
  return ` at ${name(inner)}${inner.text ? `: \`${inner.text}\`` : ''}${callers.length ? ` (called from ${callers.join(', ')})` : ''}`;
}
