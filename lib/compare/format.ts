/**
 * The text a compare prints on stdout: both sides, the cases, the correctness
 * differences (speed) or how the cases' shares differ and which gave no
 * scorable answer (accuracy), the verdict.
 */
import {scorableStatuses, type CaseComparison, type CompareReport, type SideSummary} from './compare.js';

const number = (value: number) => value.toPrecision(4);
const interval = (ci: [number, number] | null) => (ci ? ` [${number(ci[0])}, ${number(ci[1])}]` : '');

function seconds(value: number | null): string {
  if (value === null) return '-';
  return value < 1 ? `${(value * 1000).toPrecision(3)} ms` : `${value.toPrecision(3)} s`;
}

function side(name: string, summary: SideSummary, metric: string): string {
  const outcome = summary.failure ? `${metric} 0.0 (${summary.failure})` : `${metric} ${number(summary.score)}${interval(summary.interval)}`;
  return `  ${name.padEnd(10)} ${summary.description}\n  ${''.padEnd(10)} ${outcome}`;
}

function caseCell(c: CaseComparison['baseline'], speed: boolean): string {
  if (speed) return c.status === 'ok' && c.passed ? seconds(c.seconds) : c.status === 'ok' ? 'wrong' : c.status;
  // accuracy: a share below 1 is partial credit, not a failure; only a case with no scorable answer says why.
  return `${number(c.score)}${scorableStatuses.has(c.status) ? '' : ` (${c.status})`}`;
}

/** accuracy: how the cases' shares differ, in one line, and the cases a side gave no scorable answer to. */
function accuracyCases(report: CompareReport): string[] {
  const count = (outcome: CaseComparison['outcome']) => report.cases.filter((c) => c.outcome === outcome).length;
  const lines = [
    '',
    `per case: the candidate scores better on ${count('better')}, worse on ${count('worse')} and the same on ${count('same')} of ${report.cases.length} case(s) (an imperfect score is partial credit, not a failure)`,
  ];
  if (report.correctness.length) {
    lines.push('', "cases without a scorable answer (scored as the plan's fail_score):");
    for (const c of report.correctness) {
      const row = report.cases.find((r) => r.point === c.point && r.i === c.i);
      const sides = (['baseline', 'candidate'] as const).filter((s) => c.failing === s || c.failing === 'both');
      lines.push(`  p${c.point} #${c.i}: ${sides.map((s) => `the ${s} ${row ? row[s].status : 'failed'}`).join(', ')}`);
    }
  }
  return lines;
}

export function formatCompare(report: CompareReport): string {
  const speed = report.metric === 'speedup';
  const lines: string[] = [];
  const how = speed
    ? `, ${report.clock} clock, ${report.repetitions} repetition(s)${report.pairing === 'unpaired' ? ' (candidate only, against a recorded baseline)' : ', interleaved'}`
    : '';
  lines.push(`compare ${report.name} ${report.split}${how}, sandbox ${report.sandbox}`);
  lines.push(side('baseline', report.baseline, report.metric), side('candidate', report.candidate, report.metric), '');
  const rows = report.cases.map((c) => [
    `p${c.point} #${c.i}`,
    caseCell(c.baseline, speed),
    caseCell(c.candidate, speed),
    c.ratio === null ? '-' : number(c.ratio),
  ]);
  const header = ['case', speed ? 'baseline' : 'baseline share', speed ? 'candidate' : 'candidate share', 'ratio'];
  const widths = header.map((title, k) => Math.max(title.length, ...rows.map((row) => row[k]!.length)));
  for (const row of [header, ...rows]) lines.push(`  ${row.map((cell, k) => (k === 0 ? cell.padEnd(widths[k]!) : cell.padStart(widths[k]!))).join('  ')}`);
  if (!speed) lines.push(...accuracyCases(report));
  else if (report.correctness.length) {
    lines.push('', 'correctness differences:');
    for (const c of report.correctness) lines.push(`  p${c.point} #${c.i}: fails in ${c.failing === 'both' ? 'both sides' : `the ${c.failing}`}`);
  }
  if (report.environmentNote) lines.push('', `note: ${report.environmentNote}`);
  const ratio = report.ratio === null ? 'ratio undefined' : `ratio ${number(report.ratio)}${report.ci ? `, 95% interval${interval(report.ci)}` : ''}`;
  lines.push('', `verdict: ${report.verdict} (${ratio}: ${report.reason})`);
  return `${lines.join('\n')}\n`;
}
