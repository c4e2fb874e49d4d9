import type {Rule} from '../rule.js';
import {pointAt} from '../text.js';

/** The token every scaffold placeholder starts with. */
const placeholderToken = 'TODO(arbor)';

/** Every `TODO(arbor): …` placeholder of `text`, with its offset and line text. */
export function findPlaceholders(text: string): {offset: number; text: string}[] {
  const found: {offset: number; text: string}[] = [];
  for (let at = text.indexOf(placeholderToken); at !== -1; at = text.indexOf(placeholderToken, at + placeholderToken.length)) {
    let end = text.indexOf('\n', at);
    if (end === -1) end = text.length;
    let line = text
      .slice(at, end)
      .replace(/\s*(?:-->|\*\/|#)?\s*$/, '')
      .trim();
    if (line.length > 56) line = `${line.slice(0, 55).trimEnd()}…`;
    found.push({offset: at, text: line});
  }
  return found;
}

/** No scaffold placeholder `TODO(arbor): …` is left unfilled. */
export const placeholder: Rule = {
  id: 'placeholder',
  description: `No scaffold placeholder \`${placeholderToken}: …\` is left in README, PROVENANCE, a top-level text file or a template file (one finding per placeholder, with its line)`,
  severity: 'error',
  check(ctx) {
    for (const name of ['README.md', 'PROVENANCE.md', ...ctx.placeholderFiles()]) {
      const loaded = ctx.file(name);
      if (loaded.status !== 'ok' || !loaded.text.includes(placeholderToken)) continue;
      for (const found of findPlaceholders(loaded.text)) {
        const {line, column} = pointAt(loaded.text, found.offset);
        ctx.report(`Unfilled placeholder "${found.text}" in \`${name}\`, expected your own text in its place`, {
          file: name,
          place: {line, column},
        });
      }
    }
  },
};
