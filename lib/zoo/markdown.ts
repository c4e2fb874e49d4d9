/**
 * Markdown parsing. The rules read CommonMark block structure, exactly as
 * remark (unified + remark-parse) sees it:
 *
 * - `parseBlocks` / `parseOutline`: markdown-it's block parser, or micromark
 *   (remark's own tokenizer) for the few documents markdown-it reads
 *   differently (`outline.ts`); the tests hold both to remark's structure.
 * - `inlineText`: the plain text of a heading or title, through the full
 *   unified + remark-parse parser when it has inline markup.
 * - `parseBlocksMicromark` and `parseBlocksRemark`: micromark's lean tree and
 *   remark's own block parse, kept as the references the tests compare against.
 *
 * remark and micromark load on first use: most documents never need them.
 */
import {createRequire} from 'node:module';
import type {Root} from 'mdast';
import {toString} from 'mdast-util-to-string';
import {micromarkBlocks, parseOutline} from './outline.js';

const load = createRequire(import.meta.url);

type Parser = {parse(text: string): Root};
let remark: {full: Parser; blocks: Parser} | undefined;

/**
 * unified + remark-parse, loaded on first use: plain headings and titles take
 * the fast path of `inlineText`, and loading remark costs more than parsing a
 * thousand outlines. The rules run synchronously, so this uses `require`
 * (Node loads ES modules that way since 20.19).
 */
function remarkParsers(): {full: Parser; blocks: Parser} {
  if (!remark) {
    const {unified} = load('unified') as typeof import('unified');
    const remarkParse = (load('remark-parse') as typeof import('remark-parse')).default;
    const {inlineConstructs} = micromarkBlocks();
    remark = {
      full: unified().use(remarkParse),
      blocks: unified()
        .use(remarkParse)
        .data('micromarkExtensions', [{disable: {null: inlineConstructs}}]),
    };
  }
  return remark;
}

/** Parse markdown text into a full mdast tree (positions are 1-based). */
export function parseMarkdown(text: string): Root {
  return remarkParsers().full.parse(text);
}

/** Parse only the block structure with remark: inline content stays raw text in `text` nodes. */
export function parseBlocksRemark(text: string): Root {
  return remarkParsers().blocks.parse(text);
}

/** micromark's lean block tree (`blocks.ts`): remark's block structure with remark's exact positions. */
export function parseBlocksMicromark(text: string): Root {
  return micromarkBlocks().parseBlockTree(text);
}

/**
 * The block structure with the raw text of headings and paragraphs (see
 * `outline.ts` for what its positions hold). What the README title reads.
 */
export function parseBlocks(text: string): Root {
  return parseOutline(text, {paragraphText: true});
}

/**
 * The block outline: like `parseBlocks`, but paragraphs have no children.
 * Enough for sections, headings and HTML blocks.
 */
export {parseOutline};

const intraword = /(?<=[A-Za-z0-9])_+(?=[A-Za-z0-9])/g;

/** Plain text of raw inline markdown (`**Setup** &amp; env` -> `Setup & env`). */
export function inlineText(raw: string): string {
  // Without these characters there is no inline markup: the raw text is the plain text.
  // An underscore between two ASCII letters or digits (`task_1`) is neither left-
  // nor right-flanking on its own side, so it can neither open nor close emphasis.
  if (!/[*`\\[\]<!~]|&[#a-zA-Z0-9]+;/.test(raw) && !/_/.test(raw.replace(intraword, ''))) return raw;
  return toString(parseMarkdown(raw));
}

/** The parser functions rules use, bundled for the lint runner. */
export const markdown = {parseBlocks, parseOutline, inlineText};
