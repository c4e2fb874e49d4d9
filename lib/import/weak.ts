/**
 * A validator that accepts an answer costing nothing. The importer's probes (inspect_task.py) build
 * wrong answers from the task's own; four of them need nothing of the right answer but its type and
 * shape, which the problem gives away: `none`, `empty` (an empty value of the answer's type),
 * `zeros` (every number 0, the structure kept: the constant answer) and `nan` (every float NaN, the
 * structure kept). A solver that returns one of those spends no time solving, so a validator that
 * accepts it on every case tried makes the entry's speedup a measure of nothing (a solver returning
 * `[]` scored 187-204 against the baseline's 1.0). The other probes (`negated`, `first-number-changed`,
 * `truncated`) are built from the right answer: a solver must solve first, so they stay caveats.
 * A costless probe accepted on some cases only is a caveat too: a speed entry scores 0.0 when any
 * case fails.
 */
import type {ProbeFinding} from './inspect.js';

/** The probes whose answer costs nothing to give (see above). */
const costlessProbes: ReadonlySet<string> = new Set(['none', 'empty', 'zeros', 'nan']);

/** The findings that make a validator weak: a costless probe accepted on every case tried. */
export function weakProbes(findings: readonly ProbeFinding[]): ProbeFinding[] {
  return findings.filter((finding) => costlessProbes.has(finding.probe) && finding.everyCase !== false);
}

/** The skip's one line: the probes accepted, each with what it answered, and the flag. */
export function weakValidatorDetail(weak: readonly ProbeFinding[]): string {
  const shown = (answer: string) => {
    const flat = answer.replace(/`/g, "'").replace(/\s+/g, ' ');
    return flat.length <= 40 ? flat : `${flat.slice(0, 37)}...`;
  };
  const names = weak.map((finding) => `${finding.probe} (\`${shown(finding.answer)}\`)`).join(', ');
  const one = weak.length === 1;
  return (
    `is_solution accepted ${one ? 'an answer that costs' : 'answers that cost'} nothing: ${names}; ` +
    `a solver returning ${one ? 'it' : 'one'} would score without solving; pass --allow-weak-validators to import the task anyway`
  );
}
