/** The checker's report for people: the trivial answers' line, and with mutants the kill rate and every mutant not killed. */
import {shownAnswer, type CheckerReport} from './checker.js';

const percent = (x: number) => `${Math.floor(x * 1000) / 10}%`;
const show = (score: number) => String(Number(score.toPrecision(4)));

/** Lines (without newlines) describing one folder's checker report. */
export function formatChecker(dir: string, report: CheckerReport): string[] {
  if (report.answers.length === 0) return [];
  const lines: string[] = [];
  const floor = report.floor
    ? `; probe floor ${show(report.floor.value)} (${report.floor.from === 'probe_floor' ? "plan.toml's probe_floor" : 'all zeros + 0.01'})`
    : '';
  const scored = report.answers.map((a) => (a.score === undefined ? `${a.answer} ${a.passed}/${a.cases}` : `${a.answer} ${show(a.score)}`));
  lines.push(
    `${dir}: trivial answers on ${report.cases} dev cases (${report.answers[0]?.score === undefined ? 'cases passed' : 'score'})${floor}: ${scored.join(', ')}`,
  );
  if (report.mutants) {
    const killed = report.mutants.filter((m) => m.status === 'killed');
    const counted = report.mutants.filter((m) => m.status === 'killed' || m.status === 'survived').length;
    const onMetrics = killed.filter((m) => m.killedOn === 'metrics').length;
    const unobservable = report.mutants.filter((m) => m.status === 'unobservable').length;
    const equivalent = report.mutants.filter((m) => m.status === 'equivalent').length;
    lines.push(
      `${dir}: mutants: ${killed.length} of ${counted} killed (${percent(report.killRate ?? 1)}, at least ${percent(0.9)} needed)` +
        `${onMetrics ? `, ${onMetrics} of them by their metrics alone (${percent(counted ? (killed.length - onMetrics) / counted : 1)} on pass and score)` : ''}${equivalent ? `; ${equivalent} equivalent` : ''}${unobservable ? `; ${unobservable} not observable` : ''} in ${report.seconds.toFixed(1)} s`,
    );
    for (const m of report.mutants) {
      if (m.status === 'survived' || m.status === 'equivalent') {
        lines.push(`${dir}: mutant ${m.status}: ${m.mutant} (${m.kind}): ${m.changes}`);
        if (m.line !== undefined) lines.push(`${dir}:   line ${m.line}: \`${m.before}\` -> \`${m.after}\``);
        if (m.answer) lines.push(`${dir}:   ${shownAnswer(m)}`);
        if (m.status === 'equivalent') lines.push(`${dir}:   not counted: ${m.note}`);
      }
      if (m.status === 'unobservable') lines.push(`${dir}: mutant not observable: ${m.mutant} (${m.kind}): ${m.changes}: ${m.note}`);
    }
  }
  return lines;
}
