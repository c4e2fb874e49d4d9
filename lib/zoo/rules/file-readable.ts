import type {Rule} from '../rule.js';

/** Every file verify reads can be read and is valid UTF-8. */
export const fileReadable: Rule = {
  id: 'file-readable',
  description: 'Every file verify reads is readable UTF-8 text (a BOM and CRLF line endings are fine)',
  severity: 'error',
  check(ctx) {
    for (const name of ['README.md', 'PROVENANCE.md', ...ctx.placeholderFiles()]) {
      const loaded = ctx.file(name);
      if (loaded.status === 'unreadable') ctx.report(`Cannot read \`${name}\` (${loaded.reason}), expected a readable file`, {file: name});
      else if (loaded.status === 'not-utf8')
        ctx.report(`\`${name}\` is not valid UTF-8 (first bad byte at offset ${loaded.offset}), expected UTF-8 text`, {
          file: name,
          place: {line: loaded.line, column: loaded.column},
        });
    }
  },
};
