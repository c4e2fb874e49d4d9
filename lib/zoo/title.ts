/**
 * The first prose line of a README: the first line of its first top-level
 * paragraph, found with remark. Only the head of the file is parsed, growing it
 * until the paragraph is provably complete (followed by another block or a
 * blank line), so a long README costs no more than its opening.
 */
import type {Paragraph, Root} from 'mdast';
import {toString} from 'mdast-util-to-string';

/** First prose line of `text`, or null when it has no top-level paragraph. */
export function firstProseLine(text: string, parse: (text: string) => Root, initialCut = 2048): string | null {
  for (let cut = initialCut; ; cut *= 4) {
    const full = cut >= text.length;
    let end = text.length;
    if (!full) {
      const newline = text.indexOf('\n', cut);
      end = newline === -1 ? text.length : newline + 1;
    }
    const head = text.slice(0, end);
    const whole = end >= text.length;
    const tree = parse(head);
    const children = tree.children;
    for (let i = 0; i < children.length; i++) {
      const node = children[i]!;
      if (node.type !== 'paragraph') continue;
      const after = node.position ? head.slice(node.position.end.offset ?? head.length) : '';
      const settled = whole || i < children.length - 1 || /\n[ \t]*\r?\n/.test(after);
      // A reference (`[x]`) depends on definitions that may come later in the file.
      if (!settled || (!whole && hasReference(node))) break;
      const line = toString(node).split(/\r?\n/, 1)[0]!.trim();
      if (line) return line;
    }
    if (whole) return null;
  }
}

function hasReference(node: Paragraph): boolean {
  return node.children.some((child) => child.type === 'linkReference' || child.type === 'imageReference');
}
