/**
 * The first prose line of a README: the first line of its first top-level
 * paragraph, found with remark. Only the head of the file is parsed (up to a blank line), growing it
 * until the paragraph is provably complete (followed by another block or a
 * blank line), so a long README costs no more than its opening.
 */
import type {Root} from 'mdast';
import {toString} from 'mdast-util-to-string';

const blankLine = /\n[ \t]*\r?\n/g;

/** First prose line of `text`, or null when it has no top-level paragraph. */
export function firstProseLine(text: string, md: {parseBlocks(text: string): Root; inlineText(raw: string): string}, initialCut = 64): string | null {
  for (let cut = initialCut; ; cut *= 4) {
    let end = text.length;
    if (cut < text.length) {
      // Cut after the first blank line past `cut`: a paragraph before it is complete,
      // so a short opening paragraph needs one small parse.
      blankLine.lastIndex = cut;
      const blank = blankLine.exec(text);
      end = blank ? blank.index + blank[0].length : text.length;
    }
    const head = text.slice(0, end);
    const whole = end >= text.length;
    const children = md.parseBlocks(head).children;
    for (let i = 0; i < children.length; i++) {
      const node = children[i]!;
      if (node.type !== 'paragraph') continue;
      const after = head.slice(node.position?.end.offset ?? head.length);
      if (!whole && i === children.length - 1 && !/\n[ \t]*\r?\n/.test(after)) break; // may continue past the cut
      const line = md.inlineText(toString(node)).trim().split(/\r?\n/, 1)[0]!.trim();
      if (line) return line;
    }
    if (whole) return null;
  }
}
