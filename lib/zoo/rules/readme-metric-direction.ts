import type {Rule} from '../rule.js';
import {stripHtmlComments} from './readme-content.js';

const direction =
  /\b(?:higher|lower|larger|smaller|bigger|more|less|greater)\s+(?:is|are|scores?\s+are|values?\s+are)\s+better\b|\bmaximi[sz]e|\bminimi[sz]e|\bbetter\s+when\s+(?:higher|lower|larger|smaller)\b/i;

/** README says whether a higher or a lower score is better (warning). */
export const readmeMetricDirection: Rule = {
  id: 'readme-metric-direction',
  description: '`README.md` says whether a higher or a lower score is better',
  severity: 'warning',
  check(ctx) {
    const loaded = ctx.file('README.md');
    if (loaded.status !== 'ok' || stripHtmlComments(loaded.text).trim() === '') return;
    if (!direction.test(loaded.text))
      ctx.report('`README.md` never states the metric direction, expected a phrase such as "higher is better"', {file: 'README.md'});
  },
};
