/** The end of a zoo-wide run: the summary table on stdout and the `--json` document. */
import {writeFileAtomic} from '../files.js';
import {HarnessError} from '../eval/index.js';
import type {RunResult} from './result.js';
import {entryLabel} from './targets.js';

/** The `--json` document (also written by `--json-file FILE`). */
export interface RunDocument {
  /** `local` (evals here, one at a time) or `queue` (evals on queue workers). */
  mode: 'local' | 'queue';
  /** Wall seconds of the whole run. */
  seconds: number;
  /** How many results have each status. */
  counts: {ok: number; failed: number; error: number};
  results: RunResult[];
}

/** A score to 4 significant digits ("–" without one). */
function formatScoreValue(score: number | null): string {
  return score === null ? '–' : Number(score.toPrecision(4)).toString();
}

/** The interval cell: `[lo, hi]`, or "–" when the eval gave none. */
function formatInterval(ci: [number, number] | null): string {
  return ci ? `[${formatScoreValue(ci[0])}, ${formatScoreValue(ci[1])}]` : '–';
}

/** Score and interval in one phrase, for progress lines. */
export function formatScoreCell(result: Pick<RunResult, 'score' | 'ci'>): string {
  return `score ${formatScoreValue(result.score)}${result.ci ? ` ${formatInterval(result.ci)}` : ''}`;
}

/** How many results have each status. */
function countStatuses(results: readonly RunResult[]): RunDocument['counts'] {
  const counts = {ok: 0, failed: 0, error: 0};
  for (const result of results) counts[result.status]++;
  return counts;
}

/**
 * The summary table: one row per eval (entry, split, score, interval,
 * status), then why each failed one failed, then a count line.
 */
export function formatSummary(results: readonly RunResult[], seconds: number): string {
  const header = ['entry', 'split', 'score', 'interval', 'status'];
  const rows = results.map((result) => [
    entryLabel(result.entry, result.solution),
    result.split,
    formatScoreValue(result.score),
    formatInterval(result.ci),
    result.status,
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const format = (row: string[]) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ');
  const lines = [format(header), ...rows.map(format)];
  const failures = results.filter((result) => result.failure);
  if (failures.length > 0) {
    lines.push('');
    for (const result of failures) lines.push(`${rows[results.indexOf(result)]![0]} ${result.split}: ${result.status}: ${result.failure}`);
  }
  const counts = countStatuses(results);
  const scored = counts.ok;
  const problems = [counts.failed ? `${counts.failed} failed` : '', counts.error ? `${counts.error} without a score` : ''].filter(Boolean).join(', ');
  lines.push('', `${scored} of ${results.length} eval(s) scored${problems ? ` (${problems})` : ''} in ${seconds.toFixed(1)} s`);
  return `${lines.join('\n')}\n`;
}

/** The `--json` document of a run. */
export function runDocument(mode: RunDocument['mode'], results: RunResult[], seconds: number): RunDocument {
  return {mode, seconds, counts: countStatuses(results), results};
}

/** Write the `--json` document atomically (temp file + rename). */
export function writeRunDocument(file: string, document: RunDocument): void {
  try {
    writeFileAtomic(file, `${JSON.stringify(document, null, 2)}\n`);
  } catch (error) {
    throw new HarnessError(`--json-file ${file}: cannot write the results: ${(error as Error).message}`, 'write-failed');
  }
}
