/** `verify --probe` on a speedup entry: a quick fixture passes the whole battery. */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {repoRoot, runCli} from '../helpers/cli.js';
import {speedFixture} from './helpers.js';

const fixture = path.relative(repoRoot, speedFixture);

describe('verify --probe on a speedup entry', {timeout: 240_000}, () => {
  it('a correct entry passes: every probe scores 0.0, exit 0', () => {
    const result = runCli(['benchmark', 'verify', '--probe', fixture]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^${fixture}: ok \\(13 probes in \\d+\\.\\d s\\)\\n$`));
    const scored = [...result.stderr.matchAll(/^.*: probe ([a-z-]+) scored (\S+) in .*$/gm)].map((m) => [m[1], m[2]]);
    expect(scored).toHaveLength(13);
    for (const [, score] of scored) expect(score).toBe('0');
    // The trivial answers run with the probes; their line goes to stderr, with --probe alone.
    expect(result.stderr).toMatch(new RegExp(`^${fixture}: trivial answers on 2 dev cases \\(cases passed\\): expected 2/2, zeros 0/2, `, 'm'));
  });
});
