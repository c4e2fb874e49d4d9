// bundle-deterministic: verify and lock make the first seed of each point twice in fresh processes
// and compare the bytes of cases/ (the generator) and expected/ (the oracle); a bundle that makes
// different bytes fails verify with the point, seed, file and first differing offset, and lock
// refuses it. list never makes: it reports the outcome a verify or lock cached under the bundle's
// fingerprint and the bytes of its files.
import {spawn, spawnSync} from 'node:child_process';
import {cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {cliPath, fixtures, repoRoot, runCli, tempDir} from '../helpers/cli.js';

const base = path.join(fixtures, 'determinism');
const fingerprint = '360c9a19cf142f94';

/** A zoo holding a copy of the fixture entry as `entry`, with a variant's bundle files laid over it; and its own cache folder. */
function entry(...variants: Array<'math-random' | 'random-oracle' | 'python-hash' | 'speedup' | 'random-reference' | 'wrong-reference'>): {
  zoo: string;
  dir: string;
  env: Record<string, string>;
} {
  const zoo = tempDir('arbor-determinism-');
  const dir = path.join(zoo, 'entry');
  cpSync(path.join(base, 'entry'), dir, {recursive: true});
  for (const variant of variants) cpSync(path.join(base, variant), dir, {recursive: true});
  const variant = variants[0];
  if (variant === 'python-hash') rmSync(path.join(dir, 'bundle/generate.mjs'));
  return {zoo, dir, env: {ARBOR_CACHE_DIR: path.join(zoo, '.cache')}};
}

const jsFix = '(use the seeded random stream the bundle gets, never Math.random or the clock) (bundle-deterministic)';

describe('verify and lock: the same bytes twice', () => {
  it('Math.random in the generator: verify names the point, seed, case file and offset; lock refuses and writes nothing', () => {
    const {zoo, dir, env} = entry('math-random');
    const verify = runCli(['benchmark', 'verify', 'entry'], {cwd: zoo, env});
    expect(verify.code).toBe(1);
    // Two draws of Math.random differ in their first double, almost always in its low byte: bytes 0-7.
    const lines = verify.stdout.split('\n');
    const offsets = lines.map(
      (line) =>
        /^entry\/bundle: error: the generator is not deterministic: point \{"M":16\} seed 0 made cases\/000000\/x\.bin twice and the bytes differ from offset (\d+) (.*)$/.exec(
          line,
        ) ?? [],
    );
    const found = offsets.find((match) => match.length > 0);
    expect(found, verify.stdout).toBeDefined();
    expect(Number(found![1])).toBeLessThan(8);
    expect(found![2]).toBe(jsFix);
    // The test split's own point is made with its first seed.
    expect(verify.stdout).toContain('point {"M":4} seed 10 made cases/000000/x.bin twice');
    const lock = runCli(['benchmark', 'lock', 'entry'], {cwd: zoo, env});
    expect(lock.code).toBe(1);
    expect(lock.stdout).toContain('entry/bundle: error: the generator is not deterministic: point {"M":16} seed 0 made cases/000000/x.bin');
    expect(lock.stdout).toContain('entry: not locked: fix the error(s) above first');
    expect(existsSync(path.join(dir, 'arbor.lock'))).toBe(false);
  });

  it('an oracle that is not deterministic: the expected file and its first differing byte, from the same cases', () => {
    const {zoo, dir, env} = entry('random-oracle');
    const verify = runCli(['benchmark', 'verify', '--json', 'entry'], {cwd: zoo, env});
    expect(verify.code).toBe(1);
    const report = (JSON.parse(verify.stdout) as {benchmarks: Array<{findings: Array<{file: string; ruleId: string; message: string}>; determinism: object}>})
      .benchmarks[0]!;
    const finding = report.findings.find((f) => f.ruleId === 'bundle-deterministic')!;
    expect(finding.file).toBe('entry/bundle');
    // Noise of 1e-9 on values near 0.5 changes low mantissa bytes: the first difference is in the first element (bytes 0-7).
    expect(finding.message).toMatch(
      /^the oracle is not deterministic: point \{"M":16\} seed 0 made expected\/000000\/y\.bin twice from the same cases and the bytes differ from offset [0-7] \(compute the expected results from the case's arguments alone, without Math\.random or the clock\)$/,
    );
    expect(report.determinism).toMatchObject({
      checked: [
        {point: {M: 16}, seed: 0},
        {point: {M: 4}, seed: 10},
      ],
      identical: false,
    });
    expect(runCli(['benchmark', 'lock', 'entry'], {cwd: zoo, env}).code).toBe(1);
    expect(existsSync(path.join(dir, 'arbor.lock'))).toBe(false);
  });

  it('a Python generator ordering values by a set of strings differs between two makes (each its own hash seed)', () => {
    const {zoo, dir, env} = entry('python-hash');
    const verify = runCli(['benchmark', 'verify', 'entry'], {cwd: zoo, env});
    expect(verify.code).toBe(1);
    // Two hash seeds order the 16 values differently, though they may put the same values first: the offset is within the 16.
    const line = verify.stdout.split('\n').find((text) => text.startsWith('entry/bundle: error: the generator is not deterministic: point {"M":16}'));
    expect(line, verify.stdout).toBeDefined();
    const offset =
      /^entry\/bundle: error: the generator is not deterministic: point \{"M":16\} seed 0 made cases\/000000\/x\.bin twice and the bytes differ from offset (\d+) /.exec(
        line!,
      )?.[1];
    expect(Number(offset)).toBeLessThan(16 * 8);
    expect(
      line!.endsWith(
        "(use the seeded random stream the bundle gets, never random, numpy.random or the clock, and sort what you take from a set or dict of strings (its order changes with Python's hash seed)) (bundle-deterministic)",
      ),
    ).toBe(true);
    expect(runCli(['benchmark', 'lock', 'entry'], {cwd: zoo, env}).code).toBe(1);
    expect(existsSync(path.join(dir, 'arbor.lock'))).toBe(false);
  });

  it('the deterministic fixture entry passes verify and is locked; the JSON says what was made twice', () => {
    const {zoo, dir, env} = entry();
    const verify = runCli(['benchmark', 'verify', '--json', 'entry'], {cwd: zoo, env});
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    const report = (JSON.parse(verify.stdout) as {benchmarks: Array<{findings: unknown[]; determinism: {identical: boolean; checked: unknown[]}}>})
      .benchmarks[0]!;
    expect(report.determinism).toMatchObject({
      identical: true,
      checked: [
        {point: {M: 16}, seed: 0},
        {point: {M: 4}, seed: 10},
      ],
    });
    const lock = runCli(['benchmark', 'lock', 'entry'], {cwd: zoo, env});
    expect(lock).toMatchObject({code: 0, stdout: 'entry: wrote arbor.lock (6 protected files)\n'});
    expect(existsSync(path.join(dir, 'arbor.lock'))).toBe(true);
  });

  it('a shipped zoo entry and a shipped eval fixture make the same bytes twice', () => {
    const env = {ARBOR_CACHE_DIR: tempDir('arbor-cache-')};
    const result = runCli(['benchmark', 'verify', '--json', 'zoo/algotune_knn', 'test/fixtures/eval/accuracy-abs'], {env});
    const reports = (
      JSON.parse(result.stdout) as {
        benchmarks: Array<{dir: string; ok: boolean; findings: Array<{ruleId: string}>; determinism: {identical: boolean; checked: unknown[]}}>;
      }
    ).benchmarks;
    for (const report of reports) {
      expect(
        report.findings.filter((f) => f.ruleId === 'bundle-deterministic'),
        report.dir,
      ).toEqual([]);
      expect(report.determinism.identical, report.dir).toBe(true);
    }
    expect(reports[0]).toMatchObject({dir: 'zoo/algotune_knn', ok: true, determinism: {checked: [{point: {N: 4096, Q: 256, D: 16, K: 10}, seed: 0}]}});
    // accuracy-abs has no PROVENANCE (an eval fixture): only its bundle is of interest here.
    expect(reports[1]!.determinism.checked).toEqual([{point: {M: 1000}, seed: 0}]);
  });
});

describe("verify and lock: a speedup plan's reference answers the same bytes twice", () => {
  const referenceFix =
    "(compute the expected results from the case's arguments alone, without random, numpy.random or the clock, and sort what you take from a set or dict of strings (its order changes with Python's hash seed)) (reference-deterministic)";

  it('a reference with unseeded noise: verify names the point, seed, result and offset; lock refuses; a deterministic one passes and its pass is reused', () => {
    const {zoo, dir, env} = entry('speedup', 'random-reference');
    const verify = runCli(['benchmark', 'verify', '--json', 'entry'], {cwd: zoo, env});
    expect(verify.code, verify.stderr).toBe(1);
    const report = (
      JSON.parse(verify.stdout) as {benchmarks: Array<{findings: Array<{file: string; ruleId: string; message: string}>; determinism: Record<string, unknown>}>}
    ).benchmarks[0]!;
    const findings = report.findings.filter((f) => f.ruleId === 'reference-deterministic');
    // Both dev cases differ: one finding for the point, the first case's seed, result and offset. Noise of 1e-9 on values below 1 changes low mantissa bytes of the first element.
    expect(findings.map((f) => f.file)).toEqual(['entry/reference.py']);
    expect(findings[0]!.message).toMatch(
      /^the reference reference\.py is not deterministic: point \{"M":16\} seed \d+: two fresh runs on the same case answered `y` with bytes that differ from offset [0-7] \(and 1 other case\) \(compute the expected results/,
    );
    expect(report.findings.filter((f) => f.ruleId === 'bundle-deterministic')).toEqual([]);
    expect(report.determinism).toMatchObject({identical: true, reference: {identical: false, reused: false}});
    const lock = runCli(['benchmark', 'lock', 'entry'], {cwd: zoo, env});
    expect(lock.code).toBe(1);
    expect(lock.stdout).toContain('entry/reference.py: error: the reference reference.py is not deterministic: point {"M":16} seed');
    expect(
      lock.stdout
        .split('\n')
        .find((line) => line.includes('(reference-deterministic)'))!
        .endsWith(referenceFix),
    ).toBe(true);
    expect(existsSync(path.join(dir, 'arbor.lock'))).toBe(false);

    // The deterministic reference passes; its pass is reused by the next verify of the same bytes (list shows it too).
    cpSync(path.join(base, 'speedup/reference.py'), path.join(dir, 'reference.py'));
    const first = runCli(['benchmark', 'verify', '--json', 'entry'], {cwd: zoo, env});
    expect(first.code, first.stdout).toBe(0);
    expect((JSON.parse(first.stdout) as {benchmarks: Array<{determinism: unknown}>}).benchmarks[0]!.determinism).toMatchObject({
      identical: true,
      reference: {identical: true, reused: false},
    });
    const again = runCli(['benchmark', 'verify', '--json', 'entry'], {cwd: zoo, env});
    expect((JSON.parse(again.stdout) as {benchmarks: Array<{determinism: unknown}>}).benchmarks[0]!.determinism).toMatchObject({
      reference: {identical: true, reused: true, seconds: 0},
    });
    expect(runCli(['benchmark', 'lock', 'entry'], {cwd: zoo, env})).toMatchObject({code: 0});
  });

  it("a reference that answers the same wrong bytes every time fails verify: the bundle's verifier refuses it", () => {
    const {zoo, env} = entry('speedup', 'wrong-reference');
    const verify = runCli(['benchmark', 'verify', 'entry'], {cwd: zoo, env});
    expect(verify.code).toBe(1);
    expect(verify.stdout).toMatch(
      /^entry\/reference\.py: error: the reference reference\.py fails an eval of itself \(its copy as the solution, on the same cases\): case 0 \(seed \d+\): failed .+ \(run `arbor benchmark eval entry --solution entry\/reference\.py`\) \(reference-deterministic\)$/m,
    );
    expect(verify.stdout).not.toContain('is not deterministic');
  });
});

describe('verify says why it waits', () => {
  it('while every CPU is leased by other evals, the reference check says it waits for one, on stderr', async () => {
    const {zoo, env} = entry('speedup');
    const {tryLease} = (await import(path.join(repoRoot, 'dist/lib/sandbox/cpu-lease.js'))) as typeof import('../../lib/sandbox/cpu-lease.js');
    const leases = tempDir('arbor-leases-');
    const cpus = Number(spawnSync('nproc', {encoding: 'utf8'}).stdout.trim());
    const held = await Promise.all(Array.from({length: cpus}, (_, cpu) => tryLease(leases, cpu)));
    expect(held.every((lease) => lease !== undefined)).toBe(true);
    const verify = new Promise<{code: number | null; stderr: string}>((resolve) => {
      const child = spawn(process.execPath, [cliPath, 'benchmark', 'verify', 'entry'], {
        cwd: zoo,
        env: {...process.env, ...env, ARBOR_CPU_LEASES: leases, NO_COLOR: '1'},
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        // Released once the wait was said: the check then runs and passes.
        if (stderr.includes('waiting for a CPU')) for (const lease of held) lease?.release();
      });
      // Released anyway after 20 s, so a verify that never says it waits fails the assertion below instead of hanging.
      const fallback = setTimeout(() => held.forEach((lease) => lease?.release()), 20_000);
      child.on('exit', (code) => {
        clearTimeout(fallback);
        resolve({code, stderr});
      });
    });
    const {code, stderr} = await verify;
    expect(stderr).toMatch(/^entry: waiting for a CPU: every allowed CPU \([0-9,]+\) is leased by another eval on this host/m);
    expect(code, stderr).toBe(0);
  });
});

describe('list: the cached outcome, never a make', () => {
  it("reports verify's outcome from the cache file named by the bundle's fingerprint, and a changed bundle file is a miss", () => {
    const {zoo, dir, env} = entry('math-random');
    // Before any verify, list has no outcome to show and runs no make: the entry is ok.
    expect(runCli(['benchmark', 'list', '.', '--no-cache'], {cwd: zoo, env}).stdout).toMatch(/^entry +ok /m);
    expect(runCli(['benchmark', 'verify', 'entry'], {cwd: zoo, env}).code).toBe(1);
    const cached = readdirSync(path.join(env.ARBOR_CACHE_DIR!, 'determinism'));
    expect(cached).toHaveLength(1);
    expect(cached[0]).toMatch(new RegExp(`^${fingerprint}-[0-9a-f]{32}\\.json$`));
    const outcome = JSON.parse(readFileSync(path.join(env.ARBOR_CACHE_DIR!, 'determinism', cached[0]!), 'utf8')) as {fingerprint: string; problems: unknown[]};
    expect(outcome.fingerprint.startsWith(`sha256:${fingerprint}`)).toBe(true);
    expect(outcome.problems).toHaveLength(2);
    // Both lists (the first after verify, the second warm) show verify's finding: it comes from the cache.
    for (let k = 0; k < 2; k++) {
      const list = runCli(['benchmark', 'list', '.', '--json'], {cwd: zoo, env});
      const row = (JSON.parse(list.stdout) as {benchmarks: Array<{name: string; errors: number; findings?: Array<{ruleId: string}>}>}).benchmarks.find(
        (b) => b.name === 'entry',
      )!;
      expect(row.errors, list.stdout).toBe(2);
    }
    // The same fingerprint with a fixed generator is another key: nothing cached for it, so list shows no finding.
    cpSync(path.join(base, 'entry/bundle/generate.mjs'), path.join(dir, 'bundle/generate.mjs'));
    expect(runCli(['benchmark', 'list', '.'], {cwd: zoo, env}).stdout).toMatch(/^entry +ok /m);
    // Removing the cached outcome of the broken generator and putting it back: list follows the cache file alone.
    writeFileSync(path.join(dir, 'bundle/generate.mjs'), readFileSync(path.join(base, 'math-random/bundle/generate.mjs')));
    expect(runCli(['benchmark', 'list', '.'], {cwd: zoo, env}).stdout).toMatch(/^entry +2 errors /m);
    rmSync(path.join(env.ARBOR_CACHE_DIR!, 'determinism', cached[0]!));
    expect(runCli(['benchmark', 'list', '.'], {cwd: zoo, env}).stdout).toMatch(/^entry +ok /m);
  });
});
