// The determinism check holds in the eval too (issue 51, item 7): a generator that is deterministic
// only when made the way verify and lock make it (one seed, a fresh process) passes both, and its
// first eval stops with the check's words instead of scoring cases no other eval would see.
import {cpSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';

const base = path.join(fixtures, 'determinism');

describe('the eval makes one case of each point again, as the determinism check does', () => {
  it('a generator that adds noise from its second case in a process: lock and verify pass, the eval fails with the check message', {timeout: 120_000}, () => {
    const zoo = tempDir('arbor-eval-determinism-');
    const dir = path.join(zoo, 'entry');
    cpSync(path.join(base, 'entry'), dir, {recursive: true});
    cpSync(path.join(base, 'call-count'), dir, {recursive: true});
    const env = {ARBOR_CACHE_DIR: path.join(zoo, '.cache')};
    const lock = runCli(['benchmark', 'lock', 'entry'], {cwd: zoo, env});
    expect(lock.code, lock.stdout + lock.stderr).toBe(0);
    const verify = runCli(['benchmark', 'verify', 'entry'], {cwd: zoo, env});
    expect(verify.stdout).not.toContain('not deterministic');
    expect(verify.code, verify.stdout).toBe(0);

    const json = path.join(zoo, 'report.json');
    const evaluated = runCli(['benchmark', 'eval', 'entry', 'dev', '--json-file', json], {cwd: zoo, env});
    expect(evaluated.stdout).toBe('');
    expect(evaluated.code).toBe(1);
    // dev seeds 0-1: the second case, seed 1, is the one made again (alone, in a fresh process).
    expect(evaluated.stderr).toMatch(
      /^arbor: the generator is not deterministic: point \{"M":16\} seed 1 made cases\/000000\/x\.bin twice and the bytes differ from offset \d+ \(use the seeded random stream the bundle gets, never Math\.random or the clock\); found by the eval, which makes one case of each point again as verify's determinism check does$/m,
    );
  });

  it('a deterministic bundle evaluates as before', {timeout: 60_000}, () => {
    const zoo = tempDir('arbor-eval-determinism-');
    cpSync(path.join(base, 'entry'), path.join(zoo, 'entry'), {recursive: true});
    const evaluated = runCli(['benchmark', 'eval', 'entry', 'dev'], {cwd: zoo, env: {ARBOR_CACHE_DIR: path.join(zoo, '.cache')}});
    expect(evaluated.code, evaluated.stderr).toBe(0);
    expect(evaluated.stdout).toMatch(/^score: \S+\n$/);
  });
});
