import type {Rule} from '../rule.js';

/** Remove HTML comments (`<!-- … -->`; an unclosed one runs to the end). */
export function stripHtmlComments(text: string): string {
  return text.replace(/<!--[\s\S]*?(?:-->|$)/g, '');
}

/** README.md has text outside HTML comments. */
export const readmeContent: Rule = {
  id: 'readme-content',
  description: '`README.md` has text: at least one non-whitespace character outside HTML comments',
  severity: 'error',
  check(ctx) {
    const loaded = ctx.file('README.md');
    if (loaded.status !== 'ok') return;
    if (stripHtmlComments(loaded.text).trim() === '')
      ctx.report('`README.md` is empty, expected a description of the task, its metric, what may be edited and the dev/test split', {
        file: 'README.md',
      });
  },
};
