/**
 * PROVENANCE sections as DESIGN.md defines them: top-level headings (ATX or
 * setext, any rank) compared after normalising their text.
 */
import type {Heading, Root, RootContent} from 'mdast';
import {toString} from 'mdast-util-to-string';

/** The five sections every PROVENANCE.md must have, in their canonical spelling. */
export const requiredSections = ['Source', 'Setup & environment', 'Baseline', 'Contamination assessment', 'Caveats'] as const;

/**
 * Normalise heading text for comparison: case-insensitive, surrounding
 * whitespace and a trailing colon removed, whitespace runs collapsed, `&` read as `and`.
 */
export function normalizeHeading(text: string): string {
  return text.replace(/&/g, ' and ').replace(/\s+/g, ' ').trim().replace(/\s*:$/, '').trim().toLowerCase();
}

/** A top-level heading with its normalised text and whether its section has content. */
export interface Section {
  heading: Heading;
  key: string;
  empty: boolean;
}

/** The sections of a document: every heading that is a direct child of the root. */
export function sectionsOf(tree: Root, inlineText: (raw: string) => string): Section[] {
  let sections = computed.get(tree);
  if (!sections) computed.set(tree, (sections = compute(tree, inlineText)));
  return sections;
}

const computed = new WeakMap<Root, Section[]>();

function compute(tree: Root, inlineText: (raw: string) => string): Section[] {
  const children = tree.children;
  const sections: Section[] = [];
  for (let i = 0; i < children.length; i++) {
    const node = children[i]!;
    if (node.type !== 'heading') continue;
    let empty = true;
    for (let j = i + 1; j < children.length; j++) {
      const next = children[j]!;
      if (next.type === 'heading' && next.depth <= node.depth) break;
      if (!isBlank(next)) {
        empty = false;
        break;
      }
    }
    sections.push({heading: node, key: normalizeHeading(inlineText(toString(node))), empty});
  }
  return sections;
}

/** Whether a block holds nothing but whitespace and HTML comments. */
function isBlank(node: RootContent): boolean {
  if (node.type === 'html') return node.value.replace(/<!--[\s\S]*?(?:-->|$)/g, '').trim() === '';
  if (node.type === 'definition') return false;
  return false;
}
