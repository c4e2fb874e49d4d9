/**
 * Markdown parsing. The block structure comes from micromark directly
 * (`blocks.ts`), or for a whole document's outline from markdown-it's block
 * parser (`outline.ts`, checked against remark by the tests). micromark is
 * the same CommonMark tokenizer remark-parse uses, with the
 * inline constructs (emphasis, links, code spans, inline HTML, escapes)
 * disabled. Block structure does not depend on inline parsing, so it finds the
 * same headings, code blocks, HTML blocks and blockquotes at a fraction of the
 * cost; the few texts that need inline markup removed (a heading, a title
 * paragraph) go through the full unified + remark-parse parser on their own.
 * `parseBlocksRemark` is remark's own block parse, kept as the reference the
 * tests compare against.
 */
import {unified} from 'unified';
import remarkParse from 'remark-parse';
import type {Root} from 'mdast';
import {toString} from 'mdast-util-to-string';
import {inlineConstructs, parseBlockTree} from './blocks.js';
import {parseOutline} from './outline.js';

const full = unified().use(remarkParse);
const blocks = unified().use(remarkParse).data('micromarkExtensions', [{disable: {null: inlineConstructs}}]);

/** Parse markdown text into a full mdast tree (positions are 1-based). */
export function parseMarkdown(text: string): Root {
  return full.parse(text);
}

/** Parse only the block structure with remark: inline content stays raw text in `text` nodes. */
export function parseBlocksRemark(text: string): Root {
  return blocks.parse(text);
}

/**
 * Parse only the block structure: inline content stays raw text in `text` nodes.
 * The same micromark tokenizer as `parseBlocksRemark`, without remark's per-call
 * set-up and full tree (see `blocks.ts`): several times faster.
 */
export function parseBlocks(text: string): Root {
  return parseBlockTree(text);
}

const intraword = /(?<=[A-Za-z0-9])_+(?=[A-Za-z0-9])/g;

/**
 * The block outline: like `parseBlocks`, but paragraphs have no children and
 * only a heading's position is exact to the column. Enough for sections,
 * headings and HTML blocks, and fast: markdown-it's block parser (see
 * `outline.ts`), the same structure as remark's.
 */
export {parseOutline};

/** Plain text of raw inline markdown (`**Setup** &amp; env` -> `Setup & env`). */
export function inlineText(raw: string): string {
  // Without these characters there is no inline markup: the raw text is the plain text.
  // An underscore between two ASCII letters or digits (`task_1`) is neither left-
  // nor right-flanking on its own side, so it can neither open nor close emphasis.
  if (!/[*`\\[\]<!~]|&[#a-zA-Z0-9]+;/.test(raw) && !/_/.test(raw.replace(intraword, ''))) return raw;
  return toString(full.parse(raw));
}

/** The parser functions rules use, bundled for the lint runner. */
export const markdown = {parseBlocks, parseOutline, inlineText};
