import type {Rule} from '../rule.js';
import {stripHtmlComments} from './readme-content.js';

const comparative = '(?:higher|lower|larger|smaller|bigger|greater|more|less|fewer|faster|slower)';
const verdict = '(?:better|worse|preferred|best)';
/**
 * Plain phrasings of the metric direction: a comparative, up to three words
 * (`score`, `speedup values`), a link verb and up to two words before the
 * verdict ("Higher score is better", "lower times are better", "higher means a
 * better solution", "higher-is-better"); "the higher the score, the better";
 * "better when higher"; "maximise", "minimize".
 */
const direction = new RegExp(
  [
    `\\b${comparative}(?:[\\s-]+[\\w\`'’]+){0,3}?[\\s-]+(?:is|are|means?|indicates?|implies|=|->|→)(?:[\\s-]+[\\w]+){0,2}?[\\s-]+${verdict}\\b`,
    `\\bthe\\s+${comparative}\\b[^.!?\\n]{0,40}?,?\\s+the\\s+better\\b`,
    `\\b${verdict}\\s+(?:when|if)\\s+(?:[\\w\`]+\\s+){0,3}?${comparative}\\b`,
    `\\b(?:maximi[sz]|minimi[sz])(?:e|es|ed|ing|ation)\\b`,
  ].join('|'),
  'i',
);

/** README says whether a higher or a lower score is better (warning). */
export const readmeMetricDirection: Rule = {
  id: 'readme-metric-direction',
  description: '`README.md` says whether a higher or a lower score is better',
  severity: 'warning',
  check(ctx) {
    const loaded = ctx.file('README.md');
    if (loaded.status !== 'ok' || stripHtmlComments(loaded.text).trim() === '') return;
    if (!direction.test(loaded.text))
      ctx.report(
        '`README.md` never states the metric direction, expected a `## Metric` section saying what the `score:` line measures and a phrase such as "higher is better"',
        {file: 'README.md'},
      );
  },
};
