/**
 * Generated markdown documents that stress block structure: every kind of
 * heading, HTML blocks and comments, fenced and indented code, blockquotes,
 * lists, link reference definitions, lazy continuation lines, tabs, CRLF and
 * trailing spaces, mixed at random. Deterministic for a seed.
 */
const pieces: Array<(r: () => number) => string> = [
  (r) => `${'#'.repeat(1 + Math.floor(r() * 6))} ${pick(r, headingWords)}${r() < 0.2 ? ' ##' : ''}\n`,
  (r) => `${pick(r, headingWords)}${r() < 0.3 ? '  ' : ''}\n${r() < 0.5 ? '===' : '---'}\n`,
  (r) => `${' '.repeat(Math.floor(r() * 5))}# ${pick(r, headingWords)}\n`,
  (r) => `${pick(r, prose)}\n${r() < 0.5 ? pick(r, prose) + '\n' : ''}`,
  () => '\n',
  () => '\n\n',
  () => '<!-- a comment -->\n',
  () => '<!--\nmulti\n\n# not a heading\n-->\n',
  () => '<div>\n# inside html\n</div>\n',
  () => '<details>\n\ntext\n\n</details>\n',
  (r) => '```\n# fenced ' + pick(r, headingWords) + '\n```\n',
  () => '~~~python\nx = 1\n',
  () => '    # indented code\n',
  (r) => `> # ${pick(r, headingWords)}\n> quoted\n`,
  (r) => `> ${pick(r, prose)}\nlazy continuation\n`,
  (r) => `- item\n- # ${pick(r, headingWords)}\n`,
  () => '1. one\n2. two\n\n   continued\n',
  () => '* * *\n',
  () => '[ref]: https://example.com "Title"\n',
  () => '[ref2]:\n  /url\n',
  () => '\t# tab code\n',
  () => 'para  \nhard break\n',
  () => '  - nested\n    - deeper\n\n      # deep heading\n',
  () => 'Title\r\n=====\r\n',
  () => '#no space\n',
  () => '#\n',
  () => '<pre>\n\n# still html?\n</pre>\n',
  () => '- \n  item after blank\n',
  () => '> - quoted list\n>   # heading\n',
];
const headingWords = [
  'Source',
  'Setup & environment',
  'Baseline',
  'Contamination assessment',
  'Caveats',
  'Setup and Environment:',
  '**Source**',
  'caveats :',
  'Notes',
  'Baseline `x`',
];
const prose = [
  'Some prose here.',
  'A line with *emphasis* and `code`.',
  '- not a list?',
  'Text with trailing spaces   ',
  '===',
  '---',
  '<span>inline html</span>',
  '&amp; entity',
  'x\ty',
];

function pick<T>(r: () => number, list: readonly T[]): T {
  return list[Math.floor(r() * list.length)]!;
}

/** A small deterministic PRNG (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` documents of 1 to 24 pieces each. */
export function markdownCorpus(count: number, seed = 1): string[] {
  const r = random(seed);
  return Array.from({length: count}, () => {
    let doc = '';
    const n = 1 + Math.floor(r() * 24);
    for (let k = 0; k < n; k++) doc += pick(r, pieces)(r);
    return r() < 0.1 ? doc.trimEnd() : doc;
  });
}
