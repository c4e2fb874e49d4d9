/** Pure reporters: results to text (for people) and to JSON (for machines). */
import type {Finding} from './lint.js';
import type {VerifyResult} from './verify.js';
import type {ListResult} from './list.js';
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
    if (report.errors === 0 && report.warnings === 0) lines.push(`${report.dir}: ok`);
    else if (report.errors === 0) lines.push(`${report.dir}: ok, ${plural(report.warnings, 'warning')}`);
    else lines.push(`${report.dir}: ${plural(report.errors, 'error')}${report.warnings ? `, ${plural(report.warnings, 'warning')}` : ''}`);
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}

/** The verify JSON shape (documented in the README). */
export function verifyJson(result: VerifyResult): object {
  return {
    ok: result.errors === 0 && result.unusable.length === 0,
    errors: result.errors,
    warnings: result.warnings,
    benchmarks: result.benchmarks.map((b) => ({dir: b.dir, ok: b.errors === 0, errors: b.errors, warnings: b.warnings, findings: b.findings})),
    unusable: result.unusable,
  };
}

/** The list table: name, status, first prose line; then a count line. */
export function formatList(result: ListResult, width = 100): string {
  if (result.benchmarks.length === 0) {
    const skipped = result.skipped.length ? ` (skipped ${result.skipped.map((s) => `\`${s}\``).join(', ')})` : '';
    return `No benchmarks in \`${result.zoo}\`${skipped}.\n`;
  }
  const status = (e: ListResult['benchmarks'][number]) =>
    e.status === 'broken' ? `broken: ${e.problem}` : e.status === 'failing' ? plural(e.errors, 'error') : 'ok';
  const nameWidth = Math.max(...result.benchmarks.map((e) => e.name.length));
  const statusWidth = Math.max(...result.benchmarks.map((e) => status(e).length));
  const lines = result.benchmarks.map((e) => {
    const head = `${e.name.padEnd(nameWidth)}  ${status(e).padEnd(statusWidth)}`;
    let title = e.title ?? (e.status === 'broken' ? '' : '(no prose in README)');
    const room = Math.max(20, width - head.length - 2);
    if (title.length > room) title = `${title.slice(0, room - 1)}…`;
    return `${head}  ${title}`.trimEnd();
  });
  const failing = result.benchmarks.filter((e) => e.status === 'failing').length;
  const broken = result.benchmarks.filter((e) => e.status === 'broken').length;
  const ok = result.benchmarks.length - failing - broken;
  const parts = [`${ok} ok`];
  if (failing) parts.push(`${failing} failing verify`);
  if (broken) parts.push(`${broken} broken`);
  lines.push(`${plural(result.benchmarks.length, 'benchmark')} in ${result.zoo}: ${parts.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

/** The list JSON shape (documented in the README). */
export function listJson(result: ListResult): object {
  return {zoo: result.zoo, benchmarks: result.benchmarks, skipped: result.skipped};
}

/** The rule table as markdown (the README's "Lint rules" table is generated from this). */
export function rulesMarkdown(rules: readonly Rule[]): string {
  const rows = rules.map((r) => `| \`${r.id}\` | ${r.severity} | ${r.description.replace(/\|/g, '\\|')} |`);
  return ['| rule | severity | checks |', '| --- | --- | --- |', ...rows].join('\n');
}

/** `--list-rules` text: one rule per line. */
export function formatRules(rules: readonly Rule[]): string {
  const width = Math.max(...rules.map((r) => r.id.length));
  return `${rules.map((r) => `${r.id.padEnd(width)}  ${r.severity.padEnd(7)}  ${r.description}`).join('\n')}\n`;
}
