// The lean block parser (lib/zoo/blocks.ts) must see exactly the block structure remark sees.
import {readdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {toString} from 'mdast-util-to-string';
import type {Nodes} from 'mdast';
import {repoRoot} from '../helpers/cli.js';
import {zooFixtures} from './helpers/zoo.js';
import {markdownCorpus} from './helpers/markdown-corpus.js';

const markdown = (await import(path.join(repoRoot, 'dist/lib/zoo/markdown.js'))) as typeof import('../../lib/zoo/markdown.js');

/** What the rules and the title read of a tree: types, depths, texts, positions, blank HTML, nesting. */
function outline(node: Nodes, paragraphText = true): unknown {
  const out: Record<string, unknown> = {type: node.type};
  if (node.type !== 'listItem')
    out.at = node.position && [node.position.start.line, node.position.start.column, node.position.start.offset, node.position.end.offset];
  if (node.type === 'heading') out.depth = node.depth;
  if (node.type === 'heading' || (node.type === 'paragraph' && paragraphText)) out.text = toString(node);
  if (node.type === 'html') out.blank = node.value.replace(/<!--[\s\S]*?(?:-->|$)/g, '').trim() === '';
  if (node.type === 'root' || node.type === 'blockquote' || node.type === 'list' || node.type === 'listItem')
    out.children = node.children.map((child) => outline(child, paragraphText));
  return out;
}

const tricky = [
  'Setext\nhead  \nx\n===\n',
  'a\n   b\n---\n',
  '[a]: /u\n===\n',
  '  # x #  \n',
  '#\n',
  '> # q\n> ---\nz\n',
  '- a\n\n  b\n- # c\n1. x\n',
  '<div>\n# no\n</div>\n\n# yes\n',
  'foo\\\nbar\n',
  '# a *b* `c` &amp;\n',
  '\tcode\n# h\n',
  'Title\r\n=====\r\n\r\ntext  \r\nmore\r\n',
  '```\n# x',
  '<!-- x\n\n# y',
  'para\n    # not\n',
  '* * *\n',
  '',
  '\n\n',
  "[x]: <y> 'z'\n# h",
  'x  \n===\n',
  'end  \n',
  '> a\nlazy\n> # h\n',
  '- > # q\n  > b\n-\n\n  # z\n',
  '1) a\n2) b\n\n   <!-- c -->\n',
  '## Caveats ##\n\n<!-- only -->\n\n## Baseline:\n\n<!--\nunclosed',
  '# été &amp; *x*\n中\n---\n',
  '\ufeff# bom\n',
  'a\tb  \t\nc\n===',
  '> > # deep\n>\n> # h\n',
  '-\tfoo\n\n\t\t# x\n',
  'para\n\tcontinued\n',
  '>\t# tab heading\n',
  '  -\t  # item heading\n',
  '    code\n- \n  item\n# h\n',
  `${Array.from({length: 60}, (_, k) => `${' '.repeat(2 * k)}- x`).join('\n')}\n\n# after deep lists\n`,
  `${'>'.repeat(30)} # deep quote\n\n# after\n`,
  '[1]: file:///data/x.pdf\n---\n',
  '# Source\n\n[data]: javascript:void(0)\nCaveats\n-------\n',
  '# Source\n\n<pre\u00a0x\n\n# Caveats\n\ntext\n',
  '<div\u3000class="x">\n# Source\n',
  '<span>\u00a0\nFast sorting.\n\nMore.\n',
  '\tcode\n10. d\n===\n',
  '    code\n2) x\n# h\n',
  '\ufeff\ufeff# bom\r\r[r]: /u\r',
  '\ufeff\ufeff# bom\n',
];

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true, recursive: true})
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => path.join(e.parentPath, e.name));
}

/**
 * What the section rules read of an outline: types, nesting, start lines, the
 * exact start of top-level headings, heading depth and text, blank HTML.
 * Adjacent code blocks count as one: remark sometimes splits a run of indented
 * code lines in two, which changes nothing a rule sees.
 */
function structure(node: Nodes, paragraphText = false, topLevel = true): unknown {
  const out: Record<string, unknown> = {type: node.type};
  if (node.type !== 'listItem') out.line = node.position?.start.line;
  if (node.type === 'paragraph' && paragraphText) out.text = toString(node);
  if (node.type === 'heading') {
    out.depth = node.depth;
    out.text = toString(node);
    if (topLevel) out.at = [node.position?.start.column, node.position?.start.offset];
  }
  if (node.type === 'html') out.blank = node.value.replace(/<!--[\s\S]*?(?:-->|$)/g, '').trim() === '';
  if (node.type === 'root' || node.type === 'blockquote' || node.type === 'list' || node.type === 'listItem') {
    const children = node.children.filter((child, k) => !(child.type === 'code' && node.children[k - 1]?.type === 'code'));
    out.children = children.map((child) => structure(child, paragraphText, node.type === 'root'));
  }
  return out;
}

describe('parseBlocksMicromark (micromark events) matches remark-parse', () => {
  it.each(tricky.map((text) => [JSON.stringify(text), text]))('%s', (_, text) => {
    expect(outline(markdown.parseBlocksMicromark(text))).toEqual(outline(markdown.parseBlocksRemark(text)));
  });

  it('on every markdown fixture', () => {
    const files = markdownFiles(zooFixtures);
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      expect(outline(markdown.parseBlocksMicromark(text)), file).toEqual(outline(markdown.parseBlocksRemark(text)));
    }
  });
});

describe('parseOutline and parseBlocks (markdown-it, micromark for some documents) have the block structure remark-parse finds', () => {
  const same = (text: string) => {
    expect(structure(markdown.parseOutline(text))).toEqual(structure(markdown.parseBlocksRemark(text)));
    expect(structure(markdown.parseBlocks(text), true)).toEqual(structure(markdown.parseBlocksRemark(text), true));
  };

  it.each(tricky.map((text) => [JSON.stringify(text), text]))('%s', (_, text) => same(text));

  it('on every markdown fixture and the shipped zoo', () => {
    const files = [...markdownFiles(zooFixtures), ...markdownFiles(path.join(repoRoot, 'zoo')), ...markdownFiles(path.join(repoRoot, 'templates'))];
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) same(readFileSync(file, 'utf8'));
  });

  it('on 3,000 generated documents mixing every kind of block', () => {
    const differs = (text: string) =>
      JSON.stringify(structure(markdown.parseOutline(text))) !== JSON.stringify(structure(markdown.parseBlocksRemark(text))) ||
      JSON.stringify(structure(markdown.parseBlocks(text), true)) !== JSON.stringify(structure(markdown.parseBlocksRemark(text), true));
    expect(markdownCorpus(3000, 20261129).filter(differs).slice(0, 3)).toEqual([]);
  });

  it('finds the README title remark finds, on the generated documents', async () => {
    const {firstProseLine} = (await import(path.join(repoRoot, 'dist/lib/zoo/title.js'))) as typeof import('../../lib/zoo/title.js');
    const withRemark = {parseBlocks: markdown.parseBlocksRemark, inlineText: markdown.inlineText};
    const corpus = markdownCorpus(2000, 42);
    const titles = corpus.map((text) => firstProseLine(text, markdown.markdown));
    expect(titles.filter((title) => title !== null).length).toBeGreaterThan(1000);
    expect(corpus.filter((text, k) => titles[k] !== firstProseLine(text, withRemark)).slice(0, 3)).toEqual([]);
  });

  it('reads simple documents (blank, heading and text lines only) line by line, as remark does, on 3,000 documents, most of them simple', async () => {
    const {isSimpleDocument} = (await import(path.join(repoRoot, 'dist/lib/zoo/outline.js'))) as typeof import('../../lib/zoo/outline.js');
    let seed = 7;
    const r = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
    const pick = <T>(items: T[]) => items[Math.floor(r() * items.length)]!;
    const lines = [
      () =>
        `${'#'.repeat(1 + Math.floor(r() * 6))}${pick([' ', '\t', '   '])}${pick(['Source', 'Setup & environment', 'Caveats :', 'Base*line*', 'été `x`', 'a  b', 'x'])}${pick(['', ' ', '\t'])}`,
      () => '',
      () => pick(['', '  ', '\t', ' \t ']),
      () =>
        `${pick(['', '', ' ', '    ', '\t'])}${pick(['Some', 'text', 'Unïcode', 'x'])} ${pick(['prose *here*', 'with `code`', 'a [link](u)', '# hash', '&amp; more', 'x_y_z'])}${pick(['', '  ', '   ', '\t', ' '])}`,
      () => 'Title',
      () => (r() < 0.3 ? pick(['- item', '1. one', '> quote', '    code', '#', '## x #', '===', '<div>']) : 'Text'),
    ];
    const docs = Array.from({length: 3000}, () => {
      const text = Array.from({length: 1 + Math.floor(r() * 14)}, () => pick(lines)()).join('\n') + pick(['', '\n', '\n\n']);
      return r() < 0.1 ? `\ufeff${text}` : text;
    });
    const simple = docs.filter((text) => isSimpleDocument(text));
    expect(simple.length).toBeGreaterThan(1000);
    expect(docs.length - simple.length).toBeGreaterThan(0);
    expect(isSimpleDocument('# Source\n\n- a list\n')).toBe(false);
    for (const text of docs) {
      // Exact positions where the lines are read directly; the block structure everywhere.
      if (isSimpleDocument(text)) expect(outline(markdown.parseBlocks(text))).toEqual(outline(markdown.parseBlocksRemark(text)));
      expect(structure(markdown.parseBlocks(text), true)).toEqual(structure(markdown.parseBlocksRemark(text), true));
      expect(structure(markdown.parseOutline(text))).toEqual(structure(markdown.parseBlocksRemark(text)));
    }
  });

  it('follows CommonMark where micromark does not: a setext underline after lazy lines of a list item is a thematic break', () => {
    const text = '## Baseline\n\n- numpy 1.26\n<br>\nCaveats\n-------\n\nNone.\n';
    expect(markdown.parseOutline(text).children.map((node) => node.type)).toEqual(['heading', 'list', 'thematicBreak', 'paragraph']);
  });

  it('reads a document with a link reference definition as remark does (a line after one continues its paragraph)', () => {
    const text = '# Source\n\n[paper]: https://example.com\n    # not code\nCaveats\n===\n';
    const tree = markdown.parseOutline(text);
    expect(structure(tree)).toEqual(structure(markdown.parseBlocksRemark(text)));
    expect(tree.children.map((node) => node.type)).toEqual(['heading', 'definition', 'heading']);
  });
});

describe('inlineText fast path matches remark', () => {
  const remark = (raw: string) => toString(markdown.parseMarkdown(raw));
  it.each([
    'Provenance of task_1',
    'a_b_c',
    '__init__',
    'snake_case_name here',
    'x _y_ z',
    'foo_bar_',
    '_a',
    'a__b',
    'é_b',
    'a_é',
    'a_b*c*',
    'Setup & environment',
    '**Source**',
    'A &amp; B',
  ])('%s', (raw) => {
    expect(markdown.inlineText(raw)).toBe(remark(raw));
  });
});
