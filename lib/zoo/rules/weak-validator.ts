import type {Rule} from '../rule.js';

/** The importer's record (lib/import/algotune.ts): `weakValidator.accepted` names the costless probes its validator accepted. */
const record = '.arbor-import.json';

/**
 * An imported entry's validator strength, measured at its import (`.arbor-import.json`'s `validator`,
 * written by lib/import): the wrong-on-purpose answers tried (built from the task's own answer by
 * structure), and each one `is_solution` accepted, on every case tried or on some, and whether it costs
 * nothing (needs no solve: such a one on every case is what this rule fails). `list` shows it.
 */
export interface ValidatorStrength {
  tried: string[];
  accepted: {probe: string; everyCase: boolean; costless: boolean}[];
}

const probeName = (name: unknown): name is string => typeof name === 'string' && /^[a-z-]+$/.test(name);

/**
 * The strength an import record holds (undefined for no record, or one from before arbor measured it
 * that names no weakness). A record that names costless probes only (`weakValidator`) gives those.
 */
export function validatorStrength(text: string): ValidatorStrength | undefined {
  let record: {validator?: {tried?: unknown; accepted?: unknown}; weakValidator?: unknown};
  try {
    record = JSON.parse(text) as typeof record;
  } catch {
    return undefined;
  }
  const measured = record?.validator;
  if (measured && Array.isArray(measured.tried) && Array.isArray(measured.accepted)) {
    const accepted = (measured.accepted as {probe?: unknown; everyCase?: unknown; costless?: unknown}[])
      .filter((a) => a && probeName(a.probe))
      .map((a) => ({probe: a.probe as string, everyCase: a.everyCase === true, costless: a.costless === true}));
    return {tried: measured.tried.filter(probeName), accepted};
  }
  const weak = acceptedProbes(text);
  return weak.length ? {tried: weak, accepted: weak.map((probe) => ({probe, everyCase: true, costless: true}))} : undefined;
}

/** The probes an entry's validator accepted, as its import record says (none when there is no record, or it says none). */
function acceptedProbes(text: string): string[] {
  try {
    const accepted = (JSON.parse(text) as {weakValidator?: {accepted?: unknown}})?.weakValidator?.accepted;
    return Array.isArray(accepted) ? accepted.filter(probeName) : [];
  } catch {
    return [];
  }
}

/** The text of PROVENANCE's `## Caveats` section (up to the next top-level heading), or '' without one. */
function caveats(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const at = lines.findIndex((line) => /^##\s+Caveats\s*#*\s*$/i.test(line));
  if (at < 0) return '';
  const end = lines.findIndex((line, k) => k > at && /^#{1,2}\s/.test(line));
  return lines.slice(at + 1, end < 0 ? undefined : end).join('\n');
}

/**
 * An imported entry whose validator accepts an answer that costs nothing (error) says why it is kept:
 * `arbor benchmark import algotune --allow-weak-validators` imports such a task and records the probes
 * accepted in `.arbor-import.json`; the owner answers with a paragraph (or list item) of PROVENANCE's
 * Caveats starting `Weak validator accepted:` that names every one of them (a new weakness found by a
 * later import needs its own word).
 */
export const weakValidator: Rule = {
  id: 'weak-validator',
  severity: 'error',
  description:
    "An imported entry whose validator accepted an answer that costs nothing (`.arbor-import.json`'s `weakValidator`) says why in `PROVENANCE.md`'s Caveats: a paragraph starting `Weak validator accepted:` naming each probe",
  check(ctx) {
    ctx.dependsOn([record]);
    const loaded = ctx.file(record);
    if (loaded.status !== 'ok') return;
    const accepted = acceptedProbes(loaded.text);
    if (!accepted.length) return;
    const provenance = ctx.file('PROVENANCE.md');
    const section = provenance.status === 'ok' ? caveats(provenance.text) : '';
    // A paragraph or list item of the section that starts with the marker, its text up to the next blank line or item.
    const reasons = section.split(/\n\s*\n|\n(?=\s*[-*+]\s)/).filter((block) => /^\s*(?:[-*+]\s+)?Weak validator accepted:/.test(block));
    const named = (name: string) => reasons.some((block) => new RegExp(`(^|[^a-z-])${name}([^a-z-]|$)`).test(block));
    if (accepted.every(named)) return;
    const names = accepted.join(', ');
    ctx.report(
      `\`is_solution\` accepted an answer that costs nothing at the import (${names}): a solver returning it scores without solving; say why the entry is kept in \`PROVENANCE.md\`'s Caveats, in a paragraph starting \`Weak validator accepted:\` that names ${names}`,
      {file: record},
    );
  },
};
