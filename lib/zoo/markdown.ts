/** Markdown parsing with unified + remark-parse; loaded only when a file needs parsing. */
import {unified} from 'unified';
import remarkParse from 'remark-parse';
import type {Root} from 'mdast';

const processor = unified().use(remarkParse);

/** Parse markdown text into an mdast tree (positions are 1-based). */
export function parseMarkdown(text: string): Root {
  return processor.parse(text);
}
