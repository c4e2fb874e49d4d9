import type {Rule} from '../rule.js';

/** The importer's record (lib/import/algotune.ts): `weakValidator.accepted` names the costless probes its validator accepted. */
const record = '.arbor-import.json';

/** The probes an entry's validator accepted, as its import record says (none when there is no record, or it says none). */
function acceptedProbes(text: string): string[] {
  try {
    const accepted = (JSON.parse(text) as {weakValidator?: {accepted?: unknown}})?.weakValidator?.accepted;
    return Array.isArray(accepted) ? accepted.filter((name): name is string => typeof name === 'string' && /^[a-z-]+$/.test(name)) : [];
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
