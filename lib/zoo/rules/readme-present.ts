import type {Rule} from '../rule.js';
import {presence} from './presence.js';

/** README.md exists and is a regular file. */
export const readmePresent: Rule = {
  id: 'readme-present',
  description: '`README.md` is present and is a regular file',
  severity: 'error',
  check: (ctx) => presence(ctx, 'README.md', 'the task description Arbor reads'),
};
