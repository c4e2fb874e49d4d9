/** The import's text: a line per task as it finishes, and the summary. */
import type {ImportSummary, TaskOutcome} from './algotune.js';

/** `[3/154] kmeans: imported in 4.1 s (n = 64, solve 48 ms)` or `[4/154] knn: skipped (missing-module): ...`. */
export function formatImportLine(o: TaskOutcome, done: number, total: number): string {
  const head = `[${done}/${total}] ${o.task}`;
  if (o.status === 'skipped') return `${head}: skipped (${o.reason}): ${o.detail}`;
  if (o.status === 'unchanged') return `${head}: unchanged (its inputs are the ones imported: nothing written)`;
  const at = o.point ? ` (n = ${o.point.n}${o.solveMs !== undefined ? `, solve ${o.solveMs} ms` : ''})` : '';
  const probes = o.probes?.length ? `; its validator accepted ${o.probes.map((p) => p.probe).join(', ')} (see PROVENANCE.md, Caveats)` : '';
  return `${head}: ${o.status} in ${o.seconds.toFixed(1)} s${at}${probes}`;
}

/** The summary: counts, skips by reason, packages that would import more, validator findings. */
export function formatImportSummary(s: ImportSummary): string {
  const lines: string[] = [];
  const {imported, updated, unchanged, skipped} = s.counts;
  lines.push(
    `${s.tasks.length} task(s) from ${s.source}${s.commit ? ` at ${s.commit.slice(0, 12)}` : ''} into ${s.zoo} in ${s.seconds.toFixed(0)} s: ${imported} imported, ${updated} updated, ${unchanged} unchanged, ${skipped} skipped`,
  );
  const reasons = Object.entries(s.skippedBy).sort((a, b) => b[1] - a[1]);
  if (reasons.length) lines.push(`skipped: ${reasons.map(([reason, n]) => `${n} ${reason}`).join(', ')}`);
  for (const o of s.tasks.filter((t) => t.status === 'skipped')) lines.push(`  ${o.task}: ${o.reason}: ${o.detail}`);
  // One line: how many more tasks each Debian package would bring, and the modules Debian has not.
  if (s.packages.length) {
    const debian = s.packages.filter((p) => p.package.startsWith('python3-'));
    const other = s.packages.filter((p) => !p.package.startsWith('python3-'));
    const parts = [
      ...(debian.length
        ? [
            `${debian.map((p) => `${p.package} ${p.tasks.length}`).join(', ')} (apt-get install ${debian.map((p) => p.package).join(' ')}, for /usr/bin/python3)`,
          ]
        : []),
      ...(other.length ? [`not packaged by Debian: ${other.map((p) => `${p.module} ${p.tasks.length}`).join(', ')}`] : []),
    ];
    lines.push(`would import more: ${parts.join('; ')}`);
  }
  const accepted = s.tasks.filter((t) => t.probes?.length);
  if (accepted.length) {
    lines.push(`validators that accepted a wrong answer (${accepted.length}):`);
    for (const o of accepted)
      lines.push(`  ${o.task}: ${o.probes!.map((p) => `${p.probe} (accepted ${p.answer.replace(/\s+/g, ' ').slice(0, 60)})`).join('; ')}`);
  }
  return `${lines.join('\n')}\n`;
}
