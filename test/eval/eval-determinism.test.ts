// The determinism check holds in the eval too (issue 51, item 7): a generator that is deterministic
// only when made the way verify and lock make it (one seed, a fresh process) passes both, and its
// first eval stops with the check's words instead of scoring cases no other eval would see.
import {cpSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';

const base = path.join(fixtures, 'determinism');

describe('the eval makes one case of each point again, as the determinism check does', () => {
  /** A copy of the tiny entry with the given overlays and the call-counting generator, in a zoo of its own. */
  function noisyEntry(overlays: string[]) {
    const zoo = tempDir('arbor-eval-determinism-');
    const dir = path.join(zoo, 'entry');
    cpSync(path.join(base, 'entry'), dir, {recursive: true});
    for (const overlay of [...overlays, 'call-count']) cpSync(path.join(base, overlay), dir, {recursive: true});
    return {zoo, env: {ARBOR_CACHE_DIR: path.join(zoo, '.cache')}};
  }

  /** The check's words, as the eval says them (the last case of the point's first set is made again: dev seed 1, or a fresh seed). */
  const checkWords =
    /the generator is not deterministic: point \{"M":16\} seed \d+ made cases\/000000\/x\.bin twice and the bytes differ from offset \d+ \(use the seeded random stream the bundle gets, never Math\.random or the clock\); found by the eval, which makes one case of each point again as verify's determinism check does/;

  it('accuracy (the check beside the runs, waited for before verify): lock and verify pass, the eval fails with the check message', {timeout: 120_000}, () => {
    const {zoo, env} = noisyEntry([]);
    const lock = runCli(['benchmark', 'lock', 'entry'], {cwd: zoo, env});
    expect(lock.code, lock.stdout + lock.stderr).toBe(0);
    const verify = runCli(['benchmark', 'verify', 'entry'], {cwd: zoo, env});
    expect(verify.stdout).not.toContain('not deterministic');
    expect(verify.code, verify.stdout).toBe(0);

    const evaluated = runCli(['benchmark', 'eval', 'entry', 'dev'], {cwd: zoo, env});
    expect(evaluated.stdout).toBe('');
    expect(evaluated.code).toBe(1);
    expect(evaluated.stderr).toMatch(new RegExp(`^arbor: ${checkWords.source}$`, 'm'));
  });

  it('speedup (the check before the first timed case): lock, whose reference check runs the eval, refuses with the same words, and so does the eval', {
    timeout: 120_000,
  }, () => {
    const {zoo, env} = noisyEntry(['speedup']);
    const lock = runCli(['benchmark', 'lock', 'entry'], {cwd: zoo, env});
    expect(lock.code).not.toBe(0);
    expect(lock.stdout + lock.stderr).toMatch(checkWords);
    const evaluated = runCli(['benchmark', 'eval', 'entry', 'dev'], {cwd: zoo, env});
    expect(evaluated.stdout).toBe('');
    expect(evaluated.code).toBe(1);
    expect(evaluated.stderr).toMatch(new RegExp(`^arbor: ${checkWords.source}$`, 'm'));
  });

  it('a deterministic bundle evaluates as before', {timeout: 60_000}, () => {
    const zoo = tempDir('arbor-eval-determinism-');
    cpSync(path.join(base, 'entry'), path.join(zoo, 'entry'), {recursive: true});
    const evaluated = runCli(['benchmark', 'eval', 'entry', 'dev'], {cwd: zoo, env: {ARBOR_CACHE_DIR: path.join(zoo, '.cache')}});
    expect(evaluated.code, evaluated.stderr).toBe(0);
    expect(evaluated.stdout).toMatch(/^score: \S+\n$/);
  });
});
