import type {Rule} from '../rule.js';

/** An eval entrypoint `eval.sh` or `eval.py` exists as a regular file. */
export const evalEntrypoint: Rule = {
  id: 'eval-entrypoint',
  description: 'An eval entrypoint `eval.sh` or `eval.py` is present as a regular file',
  severity: 'error',
  check(ctx) {
    const candidates = ['eval.sh', 'eval.py'];
    const loaded = candidates.map((name) => ({name, loaded: ctx.file(name)}));
    if (loaded.some(({loaded}) => loaded.status !== 'missing' && loaded.status !== 'not-file')) return;
    const wrong = loaded.find(({loaded}) => loaded.status === 'not-file');
    if (wrong && wrong.loaded.status === 'not-file')
      ctx.report(`\`${wrong.name}\` is ${wrong.loaded.kind}, expected a regular file (the eval entrypoint)`, {file: wrong.name});
    else ctx.report('Missing eval entrypoint, expected `eval.sh` or `eval.py`');
  },
};
