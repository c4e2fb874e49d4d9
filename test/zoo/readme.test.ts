import {readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {repoRoot} from '../helpers/cli.js';
import {lib} from './helpers/zoo.js';

describe('docs/commands.md', () => {
  it('has the lint rules table of the rule registry', () => {
    const readme = readFileSync(path.join(repoRoot, 'docs/commands.md'), 'utf8');
    const table = /<!-- rules:start -->\n([\s\S]*?)\n<!-- rules:end -->/.exec(readme)?.[1];
    // To update: node -e "import('./dist/lib/zoo/index.js').then(m => console.log(m.lintRulesMarkdown(m.lintRules)))"
    expect(table).toBe(lib.lintRulesMarkdown(lib.lintRules));
  });
});
