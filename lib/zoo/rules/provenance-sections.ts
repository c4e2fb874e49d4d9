import type {Rule} from '../rule.js';
import {normalizeHeading, requiredSections, sectionsOf} from '../sections.js';
import {visit} from 'unist-util-visit';
import {toString} from 'mdast-util-to-string';

/** PROVENANCE.md has each required section as a top-level heading. */
export const provenanceSections: Rule = {
  id: 'provenance-sections',
  description: `\`PROVENANCE.md\` has the sections ${requiredSections.map((s) => `\`${s}\``).join(', ')} as top-level headings`,
  severity: 'error',
  check(ctx) {
    const tree = ctx.markdown('PROVENANCE.md');
    if (!tree) return;
    const found = new Set(sectionsOf(tree, ctx.inlineText).map((section) => section.key));
    let nested: Map<string, string> | undefined;
    for (const name of requiredSections) {
      const key = normalizeHeading(name);
      if (found.has(key)) continue;
      // Only when a section is missing: look for the heading where it does not count, to say so.
      if (!nested) {
        const headings = new Map<string, string>();
        visit(tree, (node, _index, parent) => {
          if (parent && parent.type !== 'root' && node.type === 'heading')
            headings.set(
              normalizeHeading(ctx.inlineText(toString(node))),
              parent.type === 'blockquote' ? 'a blockquote' : parent.type === 'listItem' ? 'a list item' : `a ${parent.type}`,
            );
        });
        nested = headings;
      }
      const where = nested.get(key);
      const hint = where ? ` (the heading inside ${where} does not count)` : '';
      ctx.report(`Missing section \`${name}\` in \`PROVENANCE.md\`, expected a top-level heading such as \`## ${name}\`${hint}`, {
        file: 'PROVENANCE.md',
      });
    }
  },
};
