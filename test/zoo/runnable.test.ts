// verify's runnable rules: every benchmark that cannot run is caught without running it, list shows
// it (and its cache notices a change to any file a finding depends on), lock refuses what verify
// refuses, and a stale lock is one outcome (exit 3, no score line) in every command that evaluates.
import {cpSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {repoRoot, runCli, tempDir} from '../helpers/cli.js';
import {lib} from './helpers/zoo.js';

const knn = path.join(repoRoot, 'zoo/algotune_knn');

/** A copy of zoo/algotune_knn named `entry` in a fresh zoo, with `change` applied to its files. */
function entry(change: (file: (rel: string, edit: (text: string) => string) => void) => void = () => {}): {zoo: string; dir: string} {
  const zoo = tempDir();
  const dir = path.join(zoo, 'entry');
  cpSync(knn, dir, {recursive: true});
  change((rel, edit) => writeFileSync(path.join(dir, rel), edit(readFileSync(path.join(dir, rel), 'utf8'))));
  return {zoo, dir};
}

/** `arbor benchmark verify entry` from the zoo: exit code and the finding lines. */
function verify(zoo: string): {code: number | null; lines: string[]} {
  const result = runCli(['benchmark', 'verify', 'entry'], {cwd: zoo});
  return {code: result.code, lines: result.stdout.trim().split('\n')};
}

const lockHint = 'every eval refuses to run until they are restored or, if the change is on purpose, `arbor benchmark lock entry` is run (lock-current)';
/** verify's lock-current message for a difference. */
const staleLock = (difference: string) => `The protected files differ from \`arbor.lock\` (${difference}); ${lockHint}`;

describe('verify: benchmarks that cannot run', () => {
  it('a shipped entry is clean', () => {
    expect(verify(entry().zoo)).toEqual({code: 0, lines: ['entry: ok']});
  });

  it('a TOML mistake is reported where it is: an unclosed array at its bracket, not lines later', () => {
    const {zoo} = entry((file) =>
      file('plan.toml', (text) =>
        text.replace('points = [ { N = 4096, Q = 256, D = 16, K = 10 } ]\n\n[test]', 'points = [ { N = 4096, Q = 256, D = 16, K = 10 }\n\n[test]'),
      ),
    );
    expect(verify(zoo)).toEqual({
      code: 1,
      lines: [
        'entry/plan.toml:13:10: error: `plan.toml` is not valid TOML: an array opened here is not closed (close it with "]" before line 15) (plan-toml)',
        'entry: 1 error',
      ],
    });
  });

  it('an unknown key gets a did-you-mean at its line; a wrong metric is named', () => {
    const misspelt = entry((file) => file('plan.toml', (text) => text.replace('repetitions = 5', 'repetitons = 5')));
    expect(verify(misspelt.zoo)).toEqual({
      code: 1,
      lines: ['entry/plan.toml:6:1: error: `plan.toml`: unknown key "repetitons", did you mean "repetitions"? (plan-valid)', 'entry: 1 error'],
    });
    const metric = entry((file) => file('plan.toml', (text) => text.replace('metric = "speedup"', 'metric = "speed"')));
    expect(verify(metric.zoo).lines[0]).toBe('entry/plan.toml:4:1: error: `plan.toml`: "metric" must be "speedup" or "accuracy", got "speed" (plan-valid)');
  });

  it('every problem of a plan at once, each at its line; the eval names them all in one line', () => {
    const {zoo} = entry((file) =>
      file('plan.toml', (text) =>
        text.replace('repetitions = 5', 'repetitons = 5').replace('clock = "cpu"', 'clock = "sundial"').replace('precision = 0.02', 'precision = "tight"'),
      ),
    );
    const found = verify(zoo);
    expect(found.code).toBe(1);
    expect(found.lines.filter((line) => line.endsWith('(plan-valid)'))).toEqual([
      'entry/plan.toml:6:1: error: `plan.toml`: unknown key "repetitons", did you mean "repetitions"? (plan-valid)',
      'entry/plan.toml:7:1: error: `plan.toml`: "clock" must be "cpu", "wall" or "instructions", got "sundial" (plan-valid)',
      'entry/plan.toml:8:1: error: `plan.toml`: "precision" must be a number >= 0, got "tight" (plan-valid)',
    ]);
    const evaluated = runCli(['benchmark', 'eval', 'entry', 'dev'], {cwd: zoo});
    expect(evaluated.code).not.toBe(0);
    expect(evaluated.stderr.trim().split('\n').at(-1)).toBe(
      `arbor: ${path.join(zoo, 'entry/plan.toml')}: line 6: unknown key "repetitons", did you mean "repetitions"?; line 7: "clock" must be "cpu", "wall" or "instructions", got "sundial"; line 8: "precision" must be a number >= 0, got "tight"`,
    );
  });

  it('overlapping seeds and a point the bundle lacks are findings of their own, and the lock is stale too', () => {
    const {zoo} = entry((file) =>
      file('plan.toml', (text) =>
        text
          .replace('seeds = "1000-1007"', 'seeds = "3-9"')
          .replace('points = [ { N = 4096, Q = 256, D = 16, K = 10 } ]', 'points = [ { N = 4096, Q = 256, D = 16, K = 10, R = 2 } ]'),
      ),
    );
    expect(verify(zoo)).toEqual({
      code: 1,
      lines: [
        'entry/plan.toml:16:1: error: `plan.toml`: dev and test seeds overlap (seed 3); test seeds must be disjoint from dev (plan-seeds)',
        'entry/plan.toml:11:1: error: `plan.toml`: dev.points[0] {"N":4096,"Q":256,"D":16,"K":10,"R":2} does not fit the bundle\'s signature: it has unknown parameter R; the point parameters are N, Q, D, K (plan-points)',
        `entry/arbor.lock: error: ${staleLock('plan.toml changed')}`,
        'entry: 3 errors',
      ],
    });
  });

  it("a signature changed without its fingerprint names the author's file and the command that fixes it; --write fixes it", () => {
    const {zoo, dir} = entry((file) => {
      file('bundle/fherma.toml', (text) => text.replace('name = "K"', 'name = "KK"').replace('dims = ["Q", "K"]', 'dims = ["Q", "KK"]'));
      file('plan.toml', (text) => text.replaceAll('K = 10', 'KK = 10'));
      // The bundle's code reads the renamed parameter too: lock makes its cases (bundle-deterministic).
      for (const code of ['bundle/generate.mjs', 'bundle/oracle.mjs'])
        file(code, (text) => text.replace('const {N, Q, D, K} = point;', 'const {N, Q, D, KK: K} = point;'));
      // And the reference: lock runs it twice on the same cases (reference-deterministic).
      file('reference.py', (text) => text.replace('int(point["K"])', 'int(point["KK"])'));
    });
    const found = verify(zoo);
    expect(found.code).toBe(1);
    expect(found.lines[0]).toMatch(
      /^entry\/bundle\/fherma\.toml: error: `bundle\/fherma\.toml` says fingerprint = "sha256:08d1[0-9a-f]{60}", but its signature's fingerprint is "sha256:[0-9a-f]{64}": if the signature changed on purpose, run `arbor bundle entry\/bundle fingerprint --write`, then `arbor benchmark lock entry` \(bundle-fingerprint\)$/,
    );
    // lock refuses it, and writes nothing.
    const lockBefore = readFileSync(path.join(dir, 'arbor.lock'));
    const refused = runCli(['benchmark', 'lock', 'entry'], {cwd: zoo});
    expect(refused.code).toBe(1);
    expect(refused.stdout.trim().split('\n').at(-1)).toBe('entry: not locked: fix the error(s) above first (a lock vouches that the eval can run)');
    expect(readFileSync(path.join(dir, 'arbor.lock'))).toEqual(lockBefore);
    // The fix as printed: the marker's fingerprint line changes and nothing else does.
    const before = readFileSync(path.join(dir, 'bundle/fherma.toml'), 'utf8');
    const written = runCli(['bundle', 'entry/bundle', 'fingerprint', '--write'], {cwd: zoo});
    expect(written.code).toBe(0);
    // The next step names the benchmark holding the bundle, as it can be pasted here.
    expect(written.stderr).toMatch(/; lock the benchmark again: .+ benchmark lock entry\n$/);
    const fingerprint = written.stdout.trim();
    expect(fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(readFileSync(path.join(dir, 'bundle/fherma.toml'), 'utf8')).toBe(before.replace(/^fingerprint = ".*"$/m, `fingerprint = "${fingerprint}"`));
    expect(runCli(['bundle', 'entry/bundle', 'fingerprint', '--check'], {cwd: zoo}).code).toBe(0);
    expect(runCli(['benchmark', 'lock', 'entry'], {cwd: zoo}).code).toBe(0);
    expect(verify(zoo)).toEqual({code: 0, lines: ['entry: ok']});
  });

  it('a missing baseline, an unlocked benchmark (a warning) and --json', () => {
    const {zoo, dir} = entry();
    rmSync(path.join(dir, 'solution.py'));
    rmSync(path.join(dir, 'arbor.lock'));
    const result = runCli(['benchmark', 'verify', '--json', 'entry'], {cwd: zoo});
    expect(result.code).toBe(1);
    const findings = (JSON.parse(result.stdout) as {benchmarks: {findings: {ruleId: string; severity: string; message: string}[]}[]}).benchmarks[0]!.findings;
    expect(findings.map((f) => [f.ruleId, f.severity])).toEqual([
      ['entry-points', 'error'],
      ['lock-present', 'warning'],
    ]);
    expect(findings[0]!.message).toBe(
      'The baseline solution `solution.py` named by `plan.toml` is missing; write it (the eval scores it as the starting point)',
    );
  });
});

describe('list: the same findings, cached by every file they read', () => {
  it('a warm list notices a changed bundle file (not a top-level file) and the lock written again', async () => {
    const {zoo, dir} = entry();
    const cacheDir = tempDir('arbor-cache-');
    // Files changed in the last moments before a list are not cached (the file system clock is coarse).
    const settle = () => new Promise((resolve) => setTimeout(resolve, 150));
    const list = () => lib.listZoo({zoo: '.', cwd: zoo, cacheDir, workers: 0});
    await settle();
    expect(await list()).toMatchObject({benchmarks: [{name: 'entry', status: 'ok'}], cache: {hits: 0, misses: 1}});
    expect(await list()).toMatchObject({benchmarks: [{name: 'entry', status: 'ok'}], cache: {hits: 1, misses: 0}});
    writeFileSync(path.join(dir, 'bundle/generate.mjs'), `${readFileSync(path.join(dir, 'bundle/generate.mjs'), 'utf8')}\n// edited\n`);
    await settle();
    const stale = await list();
    expect(stale).toMatchObject({benchmarks: [{name: 'entry', status: 'failing'}], cache: {hits: 0, misses: 1}});
    expect(stale.benchmarks[0]!.problem).toBe(staleLock('bundle/generate.mjs changed'));
    expect(await list()).toMatchObject({benchmarks: [{name: 'entry', status: 'failing'}], cache: {hits: 1, misses: 0}});
    expect(runCli(['benchmark', 'lock', 'entry'], {cwd: zoo}).code).toBe(0);
    await settle();
    expect(await list()).toMatchObject({benchmarks: [{name: 'entry', status: 'ok'}], cache: {hits: 0, misses: 1}});
    // A new file in a protected folder is a change too.
    writeFileSync(path.join(dir, 'bundle/extra.mjs'), '');
    await settle();
    expect((await list()).benchmarks[0]!.problem).toBe(staleLock('bundle/extra.mjs added'));
  });
});

describe('a stale lock: one outcome everywhere', () => {
  it('eval, compare, calibrate and run all refuse it with exit 3, one line, no score line', () => {
    const {zoo, dir} = entry();
    writeFileSync(path.join(dir, 'reference.py'), `${readFileSync(path.join(dir, 'reference.py'), 'utf8')}\n# edited\n`);
    const line =
      "arbor: entry: its protected files differ from arbor.lock (reference.py changed), so nothing was evaluated: restore them (e.g. with git checkout), or if the change is on purpose run 'arbor benchmark lock entry'\n";
    const env = {ARBOR_LEDGER: path.join(tempDir(), 'runs.db')};
    expect(runCli(['benchmark', 'eval', 'entry', 'dev'], {cwd: zoo, env})).toEqual({code: 3, stdout: '', stderr: line});
    expect(runCli(['benchmark', 'compare', 'entry', 'entry/solution.py', 'entry/solution.py'], {cwd: zoo, env})).toMatchObject({
      code: 3,
      stdout: '',
      stderr: line,
    });
    expect(runCli(['benchmark', 'calibrate', 'entry', '--runs', '2'], {cwd: zoo, env})).toMatchObject({code: 3, stdout: '', stderr: line});
    const run = runCli(['benchmark', 'run', 'entry', '--json'], {cwd: zoo, env});
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout).results).toEqual([
      expect.objectContaining({status: 'error', errorCode: 'stale-lock', failure: line.slice('arbor: '.length, -1)}),
    ]);
    expect(run.stderr).toContain('reference.py changed');
    // Nothing was recorded.
    expect(runCli(['benchmark', 'runs', '--ledger', env.ARBOR_LEDGER, '--json'], {cwd: zoo}).stdout).toMatch(/"runs": \[\]/);
  });

  it('lock --check, verify, list and eval each name every file that differs: three changed, one added, one removed', async () => {
    const {zoo, dir} = entry((file) => {
      for (const rel of ['bundle/oracle.mjs', 'bundle/fherma.toml', 'bundle/generate.mjs'])
        file(rel, (text) => `${text}\n${rel.endsWith('.mjs') ? '//' : '#'} edited\n`);
    });
    mkdirSync(path.join(dir, 'data'));
    writeFileSync(path.join(dir, 'data/x'), 'planted\n');
    rmSync(path.join(dir, 'bundle/vectors/README.md'));
    // Each kind in path order; changed, then added, then removed.
    const difference = 'bundle/fherma.toml, bundle/generate.mjs, bundle/oracle.mjs changed; data/x added; bundle/vectors/README.md removed';
    expect(runCli(['benchmark', 'lock', '--check', 'entry'], {cwd: zoo})).toMatchObject({code: 1, stdout: `entry: differs from arbor.lock: ${difference}\n`});
    expect(verify(zoo)).toEqual({code: 1, lines: [`entry/arbor.lock: error: ${staleLock(difference)}`, 'entry: 1 error']});
    // list (and so the MCP server's list_benchmarks) shows the same message as its problem.
    expect((await lib.listZoo({zoo: '.', cwd: zoo, workers: 0, cache: false})).benchmarks[0]).toMatchObject({
      status: 'failing',
      problem: staleLock(difference),
    });
    const env = {ARBOR_LEDGER: path.join(tempDir(), 'runs.db')};
    expect(runCli(['benchmark', 'eval', 'entry', 'dev'], {cwd: zoo, env})).toEqual({
      code: 3,
      stdout: '',
      stderr: `arbor: entry: its protected files differ from arbor.lock (${difference}), so nothing was evaluated: restore them (e.g. with git checkout), or if the change is on purpose run 'arbor benchmark lock entry'\n`,
    });
  });
});
