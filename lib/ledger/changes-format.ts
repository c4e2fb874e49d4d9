/**
 * The text of `arbor benchmark runs --changes`: each regression or improvement on one line, then
 * which runs the series were made of and which were left out and why.
 */
import type {Change, ChangeRun, ChangesCoverage} from './changes.js';

const leftOutText: Record<ChangesCoverage['leftOut'][number]['reason'], string> = {
  'not-ok': 'failed or gave no score',
  compare: 'compare run(s), not evals',
  imported: 'imported from another ledger (runs --merge)',
  'no-positive-score': 'scored 0 (a step is a ratio of scores)',
};

/**
 * The changes as text, one line per step (an accuracy series' step without an
 * interval: its runs have none), or one line saying none was found; then,
 * given the coverage, how many runs the series were made of and which were
 * left out and why.
 */
export function formatChanges(changes: readonly Change[], context: {ledger: string; minRuns?: number; coverage?: ChangesCoverage}): string {
  const minRuns = context.minRuns ?? 3;
  const lines: string[] = [];
  if (changes.length === 0) {
    const metrics = context.coverage?.metrics ?? [];
    const accuracy = metrics.includes('accuracy');
    const speed = !accuracy || metrics.some((m) => m !== 'accuracy');
    const rule = accuracy
      ? speed
        ? 'whose intervals separate (speed) or whose scores differ by more than the series scatters: accuracy runs have no interval'
        : 'whose scores differ by more than the series scatters: accuracy runs have no interval'
      : 'whose intervals separate';
    lines.push(`No regression or improvement found in ${context.ledger} (a step needs ${minRuns} scored eval runs on each side ${rule}).`);
  } else {
    lines.push(`Run ledger ${context.ledger}: ${changes.length} step(s) in the score series`);
    for (const c of changes) {
      const lineage = c.lineage === 'solution' ? `solution ${c.solutionSha256!.slice(0, 12)}` : 'commits';
      const interval = c.metric === 'accuracy' ? '' : ` [${c.interval[0].toFixed(3)}, ${c.interval[1].toFixed(3)}]`;
      lines.push(
        `  ${c.benchmark} ${c.split} ${lineage}: ${c.direction} x${c.ratio.toFixed(3)}${interval}` +
          ` between ${runText(c.before.run)} and ${runText(c.after.run)}` +
          ` (${c.before.runs} run(s) at ${num(c.before.level)}, then ${c.after.runs} at ${num(c.after.level)}${c.metric === 'accuracy' ? ' (accuracy scores, no intervals)' : ''}${c.environmentChanged ? '; environment changed' : ''})`,
      );
    }
  }
  if (context.coverage) lines.push(...coverageLines(context.coverage, minRuns));
  return `${lines.join('\n')}\n`;
}

/** Which runs the series were made of, and which were left out and why. */
function coverageLines(coverage: ChangesCoverage, minRuns: number): string[] {
  const lines: string[] = [];
  const leftOut = coverage.leftOut.map((l) => `${l.runs} ${leftOutText[l.reason]}`);
  lines.push(
    `  Read ${coverage.runs} run(s): ${coverage.counted} ok eval run(s) in ${coverage.series} series (the longest holds ${coverage.longest}; a step needs ${2 * minRuns})` +
      (leftOut.length ? `; left out of every series: ${leftOut.join(', ')}.` : '.'),
  );
  if (coverage.uncommitted) {
    lines.push(
      `  ${coverage.uncommitted} of the ok eval run(s) were made at an uncommitted state (a dirty working tree, or outside git): left out of the commits series, each only in the series of its own solution digest; commit, then eval, for a run to count in the commits series.`,
    );
  }
  return lines;
}

function runText(run: ChangeRun): string {
  const time = run.time.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  const git = run.git ? `${run.git.commit.slice(0, 10)}${run.git.dirty ? '+dirty' : ''}` : 'no-git';
  return `#${run.id} (${time}, ${git})`;
}

function num(value: number): string {
  return Number(value.toPrecision(4)).toString();
}
