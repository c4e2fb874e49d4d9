import type {Rule} from '../rule.js';
import {normalizeHeading, requiredSections, sectionsOf} from '../sections.js';

/** Each required PROVENANCE section has content under its heading. */
export const provenanceSectionEmpty: Rule = {
  id: 'provenance-section-empty',
  description: 'Each required `PROVENANCE.md` section has content besides whitespace and HTML comments',
  severity: 'error',
  check(ctx) {
    const tree = ctx.markdown('PROVENANCE.md');
    if (!tree) return;
    const names = new Map(requiredSections.map((name) => [normalizeHeading(name), name]));
    for (const section of sectionsOf(tree, ctx.inlineText)) {
      const name = names.get(section.key);
      if (!name || !section.empty) continue;
      const start = section.heading.position?.start;
      ctx.report(`Section \`${name}\` in \`PROVENANCE.md\` is empty, expected prose under the heading`, {
        file: 'PROVENANCE.md',
        place: start && {line: start.line, column: start.column},
      });
    }
  },
};
