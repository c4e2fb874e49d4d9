/**
 * The block outline of a markdown document from markdown-it's block parser.
 *
 * PROVENANCE sections only need the block structure: which headings are
 * top-level, their rank and text, and whether anything but whitespace and HTML
 * comments sits under them. markdown-it's CommonMark block parser finds that
 * structure about 25 times faster than micromark (remark's tokenizer), because
 * it works on lines rather than on characters, and `list` verifies thousands
 * of folders.
 *
 * The tree is lean mdast:
 *
 * - `heading` (with `depth`): one `text` child holding the raw inline markdown
 *   as remark's block parser gives it (line endings kept; a hard line break,
 *   two or more trailing spaces, removes its line ending);
 * - `paragraph`: no children, or with `paragraphText` one `text` child as a
 *   heading has;
 * - `html`: `value` is the source of the block;
 * - `blockquote`, `list` (one `listItem` per item) with their children;
 * - `code`, `thematicBreak`: position only.
 *
 * Both parsers implement CommonMark 0.31, but each has its own departures, and
 * the outline must be remark's. A document where they are known to read lines
 * differently goes through micromark's outline (`blocks.ts`) instead
 * (`needsMicromark`): one with a link reference definition (markdown-it reads
 * it as a block of its own, where CommonMark and micromark read it out of
 * paragraph text, so a line after one can continue that paragraph), an empty
 * list item or a list right after indented code (micromark's reading differs),
 * Unicode white space (markdown-it's HTML rules and trimming use JavaScript's
 * notion of it), or blocks nested close to markdown-it's limit. One departure of
 * micromark is not detected: a setext underline after lazy continuation lines
 * of a list item (`- a` / `<br>` / `Title` / `---`), which micromark reads as
 * a heading and CommonMark (markdown-it, cmark, GitHub) as a thematic break;
 * there the outline follows CommonMark. A test holds the outline to remark's on
 * edge cases, every fixture and thousands of generated documents.
 *
 * Positions: `start` is where the block's first line starts its content (its
 * line is exact; its column and offset are exact for top-level blocks), `end`
 * the end of its last line.
 */
import markdownIt, {type MarkdownIt} from 'markdown-it';
import type {Heading, Nodes, Parent, Root} from 'mdast';
import type {Point} from 'unist';
import {createRequire} from 'node:module';

let blocks: typeof import('./blocks.js') | undefined;

/** micromark's block tree (`blocks.ts`), loaded the first time a document needs it. */
export function micromarkBlocks(): typeof import('./blocks.js') {
  return (blocks ??= createRequire(import.meta.url)('./blocks.js') as typeof import('./blocks.js'));
}

/**
 * A line holding nothing but a list marker (an empty list item), also inside
 * blockquotes. micromark reads one after an indented code block as paragraph
 * text, where markdown-it and the CommonMark reference implementation start a
 * list; documents with one go through micromark so the outline stays remark's.
 */
const emptyListItem = /^(?:[ \t]*>)*[ \t]*(?:[-+*]|\d{1,9}[.)])[ \t]*\r?$/m;

/**
 * A list item starting on the line after an indented code line: micromark reads
 * some of these as paragraph text too (one that could not interrupt a
 * paragraph, such as `10.`), where CommonMark starts a list.
 */
const listAfterCode = /^(?: {4}|\t)[^\n]*\n {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|\r?$)/m;

/**
 * A character that JavaScript counts as white space and CommonMark does not
 * (no-break space, other Unicode spaces, vertical tab, form feed, a byte order
 * mark inside the text): markdown-it's HTML block rules match `\s` and it trims
 * text with `trim()`, so around one of these it can read lines differently
 * from remark.
 */
const unicodeSpace = /[\v\f\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;

let parser: MarkdownIt | undefined;

/**
 * markdown-it stops parsing, silently, where blocks nest this deep (the preset
 * says 20); a document that gets close goes through micromark, which has no limit.
 */
const maxNesting = 100;

function blockParser(): MarkdownIt {
  if (!parser) {
    // The CommonMark preset: no tables or other GFM, exactly what remark-parse reads.
    parser = markdownIt('commonmark').set({maxNesting});
    parser.core.ruler.disable(['inline', 'text_join']);
    // markdown-it drops a definition whose URL it finds unsafe (`file:`, `javascript:`) and reads
    // its line as text; CommonMark has no such rule. Accepting every URL makes it a definition,
    // which sends the document to micromark like any other.
    parser.validateLink = () => true;
  }
  return parser;
}

const blockTypes: Record<string, 'heading' | 'paragraph' | 'blockquote' | 'list' | 'listItem'> = {
  heading_open: 'heading',
  paragraph_open: 'paragraph',
  blockquote_open: 'blockquote',
  bullet_list_open: 'list',
  ordered_list_open: 'list',
  list_item_open: 'listItem',
};

const leafTypes: Record<string, 'code' | 'thematicBreak' | 'html'> = {
  code_block: 'code',
  fence: 'code',
  hr: 'thematicBreak',
  html_block: 'html',
};

/**
 * Parse the block outline of `text` (see the module comment). With
 * `paragraphText`, paragraphs get their raw text too, as headings do.
 */
export function parseOutline(source: string, {paragraphText = false, simpleOnly = false}: {paragraphText?: boolean; simpleOnly?: boolean} = {}): Root {
  // remark drops a byte order mark before it counts offsets.
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  const lines = lineStarts(text);
  const pointAt = (line: number, column = 1): Point => ({line: line + 1, column, offset: lines[line]! + column - 1});
  const lineEnd = (line: number): Point => {
    const last = Math.max(0, line);
    const end = last + 1 < lines.length ? lines[last + 1]! - (text[lines[last + 1]! - 2] === '\r' ? 2 : 1) : text.length;
    return {line: last + 1, column: end - lines[last]! + 1, offset: end};
  };
  /** Where a top-level block's content starts: after up to three spaces of indentation. */
  const contentStart = (line: number): Point => {
    const from = lines[line]!;
    let column = 1;
    while (column <= 3 && text.charCodeAt(from + column - 1) === 32) column++;
    return pointAt(line, column);
  };

  const root: Root = {type: 'root', children: [], position: {start: pointAt(0), end: lineEnd(lines.length - 1)}};
  const simple = notSimple.test(text) ? undefined : simpleOutline(text, lines, root, paragraphText, pointAt, lineEnd);
  if (simple || simpleOnly) return simple ?? {type: 'root', children: []};
  const stack: Parent[] = [root];
  const env: {references?: Record<string, {title: string; href: string}>} = {};
  const tokens = blockParser().parse(text, env);
  if (needsMicromark(text, env, tokens)) return micromarkBlocks().parseBlockTree(source, {paragraphText});
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const parent = stack[stack.length - 1]!;
    if (token.nesting === -1) {
      if (blockTypes[token.type.replace(/_close$/, '_open')]) stack.pop();
      continue;
    }
    const kind: string | undefined = blockTypes[token.type] ?? leafTypes[token.type];
    if (!kind) continue;
    const [first, next] = token.map ?? [0, 1];
    const position = {start: parent === root ? contentStart(first) : pointAt(first), end: lineEnd(next - 1)};
    let node: Nodes;
    if (kind === 'heading' || (kind === 'paragraph' && paragraphText)) {
      const inline = tokens[i + 1];
      const raw = inline?.type === 'inline' ? inlineRaw(inline.content, (k) => lineEnding(text, lines, first + k)) : '';
      const children = raw ? [{type: 'text' as const, value: raw}] : [];
      node =
        kind === 'heading'
          ? {type: 'heading', depth: Number(token.tag.slice(1)) as Heading['depth'], children, position}
          : {type: 'paragraph', children, position};
    } else if (token.nesting === 1) {
      node = {type: kind, children: [], position} as Nodes;
      if (kind === 'listItem') (node as {spread?: boolean}).spread = false;
    } else if (kind === 'html') {
      node = {type: 'html', value: token.content.replace(/\n$/, ''), position};
    } else {
      node = {type: kind, position} as Nodes;
    }
    (parent.children as Nodes[]).push(node);
    if (token.nesting === 1) stack.push(node as Parent);
  }
  return root;
}

/**
 * Characters a simple document cannot hold: CR, NUL, and white space JavaScript and
 * CommonMark disagree on. Simple documents (most PROVENANCE files) have only blank lines,
 * ATX headings that do not end in `#`, and lines of text that start with an ASCII letter
 * (after white space only inside a paragraph). Their block structure is plain: a heading is
 * one line, consecutive text lines are one paragraph (nothing that starts with a letter can
 * interrupt one, whatever its indentation), a blank line or a heading ends it.
 * `simpleOutline` checks the lines and builds that tree straight from them, as markdown-it would.
 */
const notSimple = /[\r\0\v\f\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;
const headingLine = /^#{1,6}(?:[ \t][^\n]*)?$/;

/** An ASCII letter. */
const isLetter = (c: number) => (c | 32) >= 97 && (c | 32) <= 122;

/**
 * Whether `parseOutline` reads `text` line by line, without markdown-it (see `notSimple`).
 * @public read by test/zoo/blocks.test.ts through the built file
 */
export function isSimpleDocument(source: string): boolean {
  return parseOutline(source, {simpleOnly: true}).children.length > 0 || /^[ \t\n]*$/.test(source.replace(/^\ufeff/, ''));
}

/**
 * The outline of a simple document (see `notSimple`): headings and paragraphs from its lines;
 * undefined when an indented text line starts a block (indented code, or a paragraph whose
 * content column is not 1), which markdown-it reads instead.
 */
function simpleOutline(
  text: string,
  lines: number[],
  root: Root,
  paragraphText: boolean,
  pointAt: (line: number, column?: number) => Point,
  lineEnd: (line: number) => Point,
): Root | undefined {
  const lineText = (k: number) => text.slice(lines[k]!, k + 1 < lines.length ? lines[k + 1]! - 1 : text.length);
  const textChild = (raw: string) => (raw ? [{type: 'text' as const, value: raw}] : []);
  const children: Root['children'] = [];
  let first = -1;
  const closeParagraph = (next: number) => {
    if (first === -1) return;
    const position = {start: pointAt(first), end: lineEnd(next - 1)};
    const kids = paragraphText ? textChild(inlineRaw(text.slice(lines[first]!, position.end.offset).trim(), () => '\n')) : [];
    children.push({type: 'paragraph', children: kids, position});
    first = -1;
  };
  for (let k = 0; k < lines.length; k++) {
    const line = lineText(k);
    const c = line.charCodeAt(0);
    if (c === 35 /* # */) {
      if (!headingLine.test(line) || /#[ \t]*$/.test(line)) return undefined;
      closeParagraph(k);
      let depth = 1;
      while (line.charCodeAt(depth) === 35) depth++;
      const raw = inlineRaw(line.slice(depth).trim(), () => '\n');
      children.push({type: 'heading', depth: depth as Heading['depth'], children: textChild(raw), position: {start: pointAt(k), end: lineEnd(k)}});
    } else if (isLetter(c)) {
      if (first === -1) first = k;
    } else if (c === 32 || c === 9 || Number.isNaN(c)) {
      const rest = line.trimStart();
      if (rest === '') closeParagraph(k);
      // Indented text continues a paragraph; anywhere else it starts a block markdown-it reads.
      else if (first === -1 || !isLetter(rest.charCodeAt(0))) return undefined;
    } else {
      return undefined;
    }
  }
  closeParagraph(lines.length);
  root.children = children;
  return root;
}

/** Whether `text` is one of the documents markdown-it reads differently from remark (see the module comment). */
function needsMicromark(text: string, env: {references?: object}, tokens: Array<{level: number}>): boolean {
  return (
    env.references !== undefined ||
    emptyListItem.test(text) ||
    listAfterCode.test(text) ||
    unicodeSpace.test(text) ||
    tokens.some((token) => token.level >= maxNesting - 2)
  );
}

/** Offsets where each line of `text` starts (CR, LF and CRLF end a line, as in CommonMark). */
function lineStarts(text: string): number[] {
  const starts = [0];
  if (!text.includes('\r')) {
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
    return starts;
  }
  const ending = /\r\n?|\n/g;
  for (let match; (match = ending.exec(text)); ) starts.push(match.index + match[0].length);
  return starts;
}

/** The line ending after line `line` (remark keeps them as written, markdown-it makes them all LF). */
function lineEnding(text: string, lines: number[], line: number): string {
  const next = lines[line + 1];
  if (next === undefined) return '\n';
  return text[next - 2] === '\r' && text[next - 1] === '\n' ? '\r\n' : text[next - 1]!;
}

/**
 * The raw text remark gives a heading or paragraph (inline constructs not parsed): each
 * line without its leading and trailing whitespace, joined by the line endings
 * of the source; a line that ends in two or more spaces is a hard break, whose
 * line ending the text does not keep.
 */
function inlineRaw(content: string, ending: (k: number) => string): string {
  const lines = content.split('\n');
  let text = '';
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k]!.replace(/^[ \t]+/, '');
    const trimmed = line.replace(/[ \t]+$/, '');
    text += trimmed;
    const hardBreak = /^ {2,}$/.test(line.slice(trimmed.length));
    if (k < lines.length - 1 && !hardBreak) text += ending(k);
  }
  return text.trim();
}
