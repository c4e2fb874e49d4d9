import type {Rule} from '../rule.js';

/** An eval entrypoint `eval.sh` or `eval.py` exists as a regular file. */
export const evalEntrypoint: Rule = {
  id: 'eval-entrypoint',
  description: 'An eval entrypoint `eval.sh` or `eval.py` is present as a regular file',
  severity: 'error',
  check(ctx) {
    const candidates = ['eval.sh', 'eval.py'];
    // In order, stopping at the first usable one: a present `eval.sh` settles it
    // without looking for `eval.py` (a missing file costs an exception to find out).
    const loaded: {name: string; loaded: ReturnType<typeof ctx.file>}[] = [];
    for (const name of candidates) {
      const file = ctx.file(name);
      if (file.status !== 'missing' && file.status !== 'not-file') return;
      loaded.push({name, loaded: file});
    }
    const wrong = loaded.find(({loaded}) => loaded.status === 'not-file');
    if (wrong && wrong.loaded.status === 'not-file')
      ctx.report(`\`${wrong.name}\` is ${wrong.loaded.kind}, expected a regular file (the eval entrypoint)`, {file: wrong.name});
    else ctx.report('Missing eval entrypoint, expected `eval.sh` or `eval.py`');
  },
};
