/**
 * The block structure of a markdown document, straight from micromark's events.
 *
 * remark-parse (unified -> mdast-util-from-markdown -> micromark) spends most
 * of its time outside the tokenizer: it combines the syntax extensions and
 * configures the mdast compiler on every call, then builds a full tree. The
 * rules only look at the block structure, so this module keeps micromark (the
 * same CommonMark tokenizer remark uses, with the same inline constructs
 * disabled as `parseBlocks` in `markdown.ts`), builds its parser once, and
 * turns the events into a lean mdast tree:
 *
 * - `heading` (with `depth`) and `paragraph`: one `text` child holding the raw
 *   inline markdown exactly as remark's block parser gives it (data and line
 *   endings; a trailing hard break becomes nothing, as `toString` of remark's
 *   `break` node does);
 * - `html`: `value` is the source of the block;
 * - `blockquote`, `list` (one `listItem` per item marker) with their children;
 * - `code`, `thematicBreak`, `definition`: position only.
 *
 * Every node has its start and end position. Headings inside code blocks,
 * HTML blocks, blockquotes and lists are not top-level; setext headings are
 * headings: exactly as micromark tokenizes them.
 */
import {parse, postprocess, preprocess} from 'micromark';
import {subtokenize} from 'micromark-util-subtokenize';
import type {Event, ParseContext, Point as TokenPoint} from 'micromark-util-types';
import type {Heading, Nodes, Parent, Root, Text} from 'mdast';
import type {Point} from 'unist';

/**
 * The inline constructs `parseBlocks` disables (block structure does not depend on them).
 * @public read through outline.ts's micromarkBlocks (a createRequire, which knip does not follow)
 */
export const inlineConstructs = [
  'attention',
  'autolink',
  'characterEscape',
  'characterReference',
  'codeText',
  'hardBreakEscape',
  'htmlText',
  'labelStartImage',
  'labelStartLink',
  'labelEnd',
];

let parser: ParseContext | undefined;

/**
 * Tokenize `text` with a parser built once (micromark keeps no state besides
 * `defined` and `lazy`). Without `paragraphText`, the text of paragraphs is not
 * tokenized (it is most of a document and only headings need theirs):
 * micromark's `postprocess` is run pass by pass, and after each pass the text
 * chunks inside paragraphs lose their content type, so the next pass skips them.
 */
function events(text: string, paragraphText: boolean): Event[] {
  parser ??= parse({extensions: [{disable: {null: inlineConstructs}}]});
  parser.defined = [];
  parser.lazy = {};
  const list = parser.document().write(preprocess()(text, undefined, true));
  if (paragraphText) return postprocess(list);
  while (!subtokenize(list)) {
    let inParagraph = 0;
    for (let i = 0; i < list.length; i++) {
      const [kind, token] = list[i]!;
      if (token.type === 'paragraph') inParagraph += kind === 'enter' ? 1 : -1;
      else if (inParagraph > 0 && token.type === 'chunkText') token.contentType = undefined;
    }
  }
  return list;
}

const nodeTypes: Record<string, 'heading' | 'paragraph' | 'html' | 'blockquote' | 'list' | 'code' | 'thematicBreak' | 'definition'> = {
  atxHeading: 'heading',
  setextHeading: 'heading',
  paragraph: 'paragraph',
  htmlFlow: 'html',
  blockQuote: 'blockquote',
  listOrdered: 'list',
  listUnordered: 'list',
  codeFenced: 'code',
  codeIndented: 'code',
  thematicBreak: 'thematicBreak',
  definition: 'definition',
};

const point = (p: TokenPoint): Point => ({line: p.line, column: p.column, offset: p.offset});

/**
 * Parse the block structure of `text` into a lean mdast tree (see the module
 * comment). With `paragraphText: false` paragraphs have no children (their
 * text is not tokenized), which saves a quarter of the work.
 * @public called through outline.ts's micromarkBlocks (a createRequire, which knip does not follow)
 */
export function parseBlockTree(source: string, {paragraphText = true}: {paragraphText?: boolean} = {}): Root {
  // micromark drops one byte order mark before it counts offsets, as remark does: offsets
  // index the text after it (a second one is text, so micromark must see the first).
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  const root: Root = {type: 'root', children: [], position: {start: {line: 1, column: 1, offset: 0}, end: {line: 1, column: 1, offset: 0}}};
  const stack: Nodes[] = [root];
  let textNode: Text | undefined;
  let skipLineEnding = false;
  /** Inside a paragraph or the text of a heading: data and line endings are its text. */
  let collecting = false;
  const list = events(source, paragraphText);
  for (let i = 0; i < list.length; i++) {
    const [kind, token] = list[i]!;
    const type = token.type;
    const top = stack[stack.length - 1]!;
    const mapped = nodeTypes[type];
    if (kind === 'enter') {
      if (mapped) {
        const node = {type: mapped, position: {start: point(token.start), end: point(token.end)}} as Nodes;
        if (mapped === 'heading') (node as Heading).depth = 1;
        if (mapped === 'heading' || mapped === 'paragraph' || mapped === 'blockquote' || mapped === 'list') (node as Parent).children = [];
        if (mapped === 'html') (node as {value: string}).value = text.slice(token.start.offset, token.end.offset);
        let parent = top as Parent;
        if (parent.type === 'list') {
          // Content before the first item marker cannot happen; keep it in an item anyway.
          if (parent.children.length === 0)
            parent.children.push({type: 'listItem', spread: false, children: [], position: {start: point(token.start), end: point(token.end)}});
          parent = parent.children[parent.children.length - 1] as Parent;
        }
        (parent.children as Nodes[]).push(node);
        stack.push(node);
        textNode = undefined;
        skipLineEnding = false;
        collecting = mapped === 'paragraph';
      } else if (type === 'atxHeadingText' || type === 'setextHeadingText') {
        collecting = true;
      } else if (type === 'listItemPrefix' && top.type === 'list') {
        top.children.push({type: 'listItem', spread: false, children: [], position: {start: point(token.start), end: point(token.end)}});
      } else if (type === 'atxHeadingSequence' && top.type === 'heading' && top.children.length === 0) {
        top.depth = (token.end.offset - token.start.offset) as Heading['depth'];
      } else if (type === 'setextHeadingLineSequence' && top.type === 'heading') {
        top.depth = text.charCodeAt(token.start.offset) === 61 /* = */ ? 1 : 2;
      }
      continue;
    }
    // exit
    if (mapped) {
      top.position!.end = point(token.end);
      stack.pop();
      textNode = undefined;
      collecting = false;
      continue;
    }
    if (type === 'atxHeadingText' || type === 'setextHeadingText') {
      collecting = false;
      continue;
    }
    if (!collecting || (top.type !== 'heading' && top.type !== 'paragraph')) continue;
    if (type === 'data' || (type === 'lineEnding' && !skipLineEnding)) {
      const value = text.slice(token.start.offset, token.end.offset);
      if (textNode) {
        textNode.value += value;
        textNode.position!.end = point(token.end);
      } else {
        textNode = {type: 'text', value, position: {start: point(token.start), end: point(token.end)}};
        top.children.push(textNode);
      }
    } else if (type === 'hardBreakTrailing') {
      // remark makes a `break` node (no text) and drops the line ending after it.
      textNode = undefined;
      skipLineEnding = true;
      continue;
    }
    if (type === 'lineEnding') skipLineEnding = false;
  }
  const last = list[list.length - 1];
  if (last) root.position!.end = point(last[1].end);
  return root;
}
