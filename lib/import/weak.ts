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
import type {ValidatorStrength} from '../zoo/rules/weak-validator.js';
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

/**
 * The validator's strength as the entry's record keeps it (`.arbor-import.json`'s `validator`, what
 * `list` shows): every probe that applied, and each one accepted, on every case tried or on some,
 * and whether it costs nothing. Measured on the cases the probes ran on (two).
 */
export function validatorStrength(findings: readonly ProbeFinding[], tried: readonly string[]): ValidatorStrength {
  const accepted = findings.map((finding) => ({probe: finding.probe, everyCase: finding.everyCase !== false, costless: costlessProbes.has(finding.probe)}));
  return {tried: [...new Set([...tried, ...accepted.map((a) => a.probe)])], accepted};
}

/** PROVENANCE's line: what the validator rejected and what it accepted, of the wrong answers tried. */
export function strengthLine(strength: ValidatorStrength): string {
  const accepted = new Set(strength.accepted.map((a) => a.probe));
  const rejected = strength.tried.filter((probe) => !accepted.has(probe));
  const list = (names: string[]) => (names.length ? names.map((name) => `\`${name}\``).join(', ') : 'none');
  const shown = strength.accepted.map(
    (a) => `\`${a.probe}\` (${a.everyCase ? 'every case' : 'some cases'}${a.costless ? ', costs nothing' : ', costs a solve'})`,
  );
  return `Validator strength at the import: of ${strength.tried.length} wrong-on-purpose answers tried, \`is_solution\` rejected ${rejected.length} (${list(rejected)}) and accepted ${strength.accepted.length}${shown.length ? ` (${shown.join(', ')})` : ''}.`;
}
