import type {Rule} from '../rule.js';
import {stripHtmlComments} from './readme-content.js';

/** README says how dev and test differ (warning). */
export const readmeSplit: Rule = {
  id: 'readme-split',
  description: '`README.md` says how the dev and test splits differ',
  severity: 'warning',
  check(ctx) {
    const loaded = ctx.file('README.md');
    if (loaded.status !== 'ok' || stripHtmlComments(loaded.text).trim() === '') return;
    if (!/\bdev\b/i.test(loaded.text) || !/\b(?:test|held[- ]out)\b/i.test(loaded.text))
      ctx.report(
        '`README.md` never states the dev/test split, expected a `## Dev and test` section saying how the two differ (e.g. disjoint seeds, or data/dev/ vs data/test/)',
        {file: 'README.md'},
      );
  },
};
