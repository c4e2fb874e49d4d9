/** Pure reporters: results to text (for people) and to JSON (for machines). */
import type {Finding} from './lint.js';
import type {VerifyResult} from './verify.js';
import type {ListEntry, ListResult, ListSummary} from './list.js';
import type {Rule} from './rule.js';

/** `file:line:col: severity: message (rule-id)`; folder-level findings have no line. */
export function formatFinding(finding: Finding): string {
  const place = finding.line === undefined ? '' : `:${finding.line}:${finding.column ?? 1}`;
  return `${finding.file}${place}: ${finding.severity}: ${finding.message} (${finding.ruleId})`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The verify report: every finding, then one summary line per folder. */
export function formatVerify(result: VerifyResult): string {
  const lines: string[] = [];
  for (const report of result.benchmarks) {
    for (const finding of report.findings) lines.push(formatFinding(finding));
    const probed = report.probes ? ` (${plural(report.probes.length, 'probe')} in ${(report.probeSeconds ?? 0).toFixed(1)} s)` : '';
    if (report.errors === 0 && report.warnings === 0) lines.push(`${report.dir}: ok${probed}`);
    else if (report.errors === 0) lines.push(`${report.dir}: ok, ${plural(report.warnings, 'warning')}${probed}`);
    else lines.push(`${report.dir}: ${plural(report.errors, 'error')}${report.warnings ? `, ${plural(report.warnings, 'warning')}` : ''}${probed}`);
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}

/** The verify JSON shape (documented in the README). */
export function verifyJson(result: VerifyResult): object {
  return {
    ok: result.errors === 0 && result.unusable.length === 0,
    errors: result.errors,
    warnings: result.warnings,
    benchmarks: result.benchmarks.map((b) => ({
      dir: b.dir,
      ok: b.errors === 0,
      errors: b.errors,
      warnings: b.warnings,
      findings: b.findings,
      ...(b.determinism ? {determinism: b.determinism} : {}),
      ...(b.probes ? {probes: b.probes, probeSeconds: b.probeSeconds} : {}),
    })),
    unusable: result.unusable,
  };
}

/**
 * Width of the list's status column: `ok`, `N error(s)` up to `99 errors`. Fixed, so a row can
 * be printed as soon as it is decided; a longer status (`broken: …`) pushes the title along.
 */
const listStatusWidth = 9;

/** One row of the list table: name (padded to `nameWidth`), status, first prose line (cut to `width`). */
export function formatListRow(e: ListEntry, nameWidth: number, width = 100): string {
  const status = e.status === 'broken' ? `broken: ${e.problem}` : e.status === 'failing' ? plural(e.errors, 'error') : 'ok';
  const head = `${e.name.padEnd(nameWidth)}  ${status.padEnd(listStatusWidth)}`;
  // An imported entry whose validator accepted a wrong-on-purpose answer at its import says so before its title, never truncated away.
  const accepted = e.validator?.accepted.map((a) => (a.everyCase ? a.probe : `${a.probe} (some cases)`)) ?? [];
  const marker = accepted.length ? `[validator accepts ${accepted.join(', ')}] ` : '';
  let title = e.title ?? (e.status === 'broken' ? '' : '(no prose in README)');
  const room = Math.max(20, width - head.length - 2 - marker.length);
  if (title.length > room) title = `${title.slice(0, room - 1)}…`;
  return `${head}  ${marker}${title}`.trimEnd();
}

/** The line after the rows (`2 benchmarks in zoo: 1 ok, 1 failing verify`), or the empty-zoo line. */
export function formatListEnd(summary: Pick<ListSummary, 'zoo' | 'skipped' | 'total' | 'failing' | 'broken'>): string {
  if (summary.total === 0) {
    const skipped = summary.skipped.length ? ` (skipped ${summary.skipped.map((s) => `\`${s}\``).join(', ')})` : '';
    return `No benchmarks in \`${summary.zoo}\`${skipped}.`;
  }
  const parts = [`${summary.total - summary.failing - summary.broken} ok`];
  if (summary.failing) parts.push(`${summary.failing} failing verify`);
  if (summary.broken) parts.push(`${summary.broken} broken`);
  return `${plural(summary.total, 'benchmark')} in ${summary.zoo}: ${parts.join(', ')}`;
}

/**
 * The list table: name, status, first prose line; then a count line (what the CLI streams).
 * @public the zoo's surface (index.ts); read by test/zoo/list.test.ts through the built file
 */
export function formatList(result: ListResult, width = 100): string {
  let nameWidth = 0;
  for (const e of result.benchmarks) if (e.name.length > nameWidth) nameWidth = e.name.length;
  const lines = result.benchmarks.map((e) => formatListRow(e, nameWidth, width));
  const count = (status: ListEntry['status']) => result.benchmarks.filter((e) => e.status === status).length;
  lines.push(formatListEnd({zoo: result.zoo, skipped: result.skipped, total: result.benchmarks.length, failing: count('failing'), broken: count('broken')}));
  return `${lines.join('\n')}\n`;
}

/**
 * The list JSON shape (documented in the README).
 * @public the zoo's surface (index.ts); read by test/zoo/list.test.ts through the built file
 */
export function listJson(result: ListResult): object {
  return {zoo: result.zoo, benchmarks: result.benchmarks, skipped: result.skipped};
}

/**
 * `listJson` as text in pieces, for streaming: the same bytes as `JSON.stringify(listJson(r), null, 2)`
 * plus a newline, written as head, one piece per row, and tail.
 */
export const listJsonText = {
  head: (zoo: string) => `{\n  "zoo": ${JSON.stringify(zoo)},\n  "benchmarks": [`,
  row: (entry: ListEntry, first: boolean) => `${first ? '' : ','}\n    ${JSON.stringify(entry, null, 2).replace(/\n/g, '\n    ')}`,
  tail: (rows: number, skipped: string[]) => `${rows ? '\n  ' : ''}],\n  "skipped": ${JSON.stringify(skipped, null, 2).replace(/\n/g, '\n  ')}\n}\n`,
};

/**
 * The rule table as markdown (docs/commands.md's lint rules table is generated from this).
 * @public the zoo's surface (index.ts); test/zoo/readme.test.ts checks docs/commands.md's rules table against it
 */
export function rulesMarkdown(rules: readonly Rule[]): string {
  const rows = rules.map((r) => `| \`${r.id}\` | ${r.severity} | ${r.description.replace(/\|/g, '\\|')} |`);
  return ['| rule | severity | checks |', '| --- | --- | --- |', ...rows].join('\n');
}

/** `--list-rules` text: one rule per line. */
export function formatRules(rules: readonly Rule[]): string {
  const width = Math.max(...rules.map((r) => r.id.length));
  return `${rules.map((r) => `${r.id.padEnd(width)}  ${r.severity.padEnd(7)}  ${r.description}`).join('\n')}\n`;
}
