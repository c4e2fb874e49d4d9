import type {Rule} from '../rule.js';
import {presence} from './presence.js';

/** PROVENANCE.md exists and is a regular file. */
export const provenancePresent: Rule = {
  id: 'provenance-present',
  description: '`PROVENANCE.md` is present and is a regular file',
  severity: 'error',
  check: (ctx) => presence(ctx, 'PROVENANCE.md', 'the human card with the five required sections'),
};
