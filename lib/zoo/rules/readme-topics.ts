/**
 * The README topics the format says a description covers (the task, the
 * metric and its direction, what may be edited, how dev and test differ):
 * the two not covered by readme-metric-direction and readme-split. Warnings
 * only, each naming the section to add: the README is prose, and a phrasing
 * these patterns miss must never fail verify.
 */
import type {Rule} from '../rule.js';
import {stripHtmlComments} from './readme-content.js';

/** The README's text outside HTML comments, or undefined when there is none to judge (other rules report that). */
function readmeText(ctx: Parameters<Rule['check']>[0]): string | undefined {
  const loaded = ctx.file('README.md');
  if (loaded.status !== 'ok') return undefined;
  const text = stripHtmlComments(loaded.text);
  return text.trim() === '' ? undefined : text;
}

/** A heading of the topic, or words a sentence about a task uses: what is given, what a solution returns. */
const taskHeading = /^#{1,6}\s+(?:the\s+)?(?:task|problem|goal|overview|description)\b/im;
const taskWords = /\b(?:task|solutions?|inputs?|outputs?|returns?|given|computes?|finds?|solves?|implements?|approximates?|answers?|sorts?|produces?)\b/i;

/** README says what the task is and what a solution looks like (warning). */
export const readmeTask: Rule = {
  id: 'readme-task',
  description: '`README.md` says what the task is and what a solution looks like',
  severity: 'warning',
  check(ctx) {
    const text = readmeText(ctx);
    // The title aside: a README of a heading alone says nothing of the task.
    const body = text?.replace(/^#{1,6}[^\n]*$/gm, (line) => (taskHeading.test(line) ? line : ''));
    if (body === undefined || taskHeading.test(body) || taskWords.test(body)) return;
    ctx.report(
      '`README.md` never states the task, expected a `## Task` section (or an opening paragraph) saying what a solution is given and what it returns',
      {file: 'README.md'},
    );
  },
};

/** Words that say what may be changed and what may not. */
const editWords = /\b(?:edit(?:s|ed|ing|able)?|modif(?:y|ies|ied|ying|iable)|rewrit(?:e|es|ing|ten)|protected|read-only)\b/i;

/** README says what may be edited (warning). */
export const readmeEditable: Rule = {
  id: 'readme-editable',
  description: '`README.md` says what may be edited (the baseline files) and what is protected',
  severity: 'warning',
  check(ctx) {
    const text = readmeText(ctx);
    if (text === undefined || editWords.test(text)) return;
    ctx.report(
      '`README.md` never states what may be edited, expected a `## What may be edited` section naming the baseline file(s) (e.g. `solution.py`) and saying the eval, reference and data are protected',
      {file: 'README.md'},
    );
  },
};
