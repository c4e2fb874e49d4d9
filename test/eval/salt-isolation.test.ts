/**
 * A local eval, compare, calibration or verify never runs the bundle's code in
 * a process holding ARBOR_TEST_SALT: a relocked bundle whose generator copies
 * whatever of the salt it can reach (its environment, /proc/self/environ, its
 * parent's /proc/<ppid>/environ, and those of a process it starts, as a
 * Python bundle's host is) finds none of it, the eval still scores on the
 * salted seeds, and no derived seed shows in what arbor says.
 */
import {spawn} from 'node:child_process';
import {cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {loadPlan} from '../../lib/benchmark/plan.js';
import {derivedTestSeeds} from '../../lib/run/eval-process.js';
import {cliPath, fixtures, repoRoot, runCli, tempDir} from '../helpers/cli.js';
import {sandboxed} from './adversaries.js';

const salt = 'salt-isolation-secret-7f3a';

/** The accuracy fixture's generator, with a spy writing what the salt's places hold to `spy` (one JSON line a call); with ARBOR_SPY_HOLD it then waits that many ms. */
function spyGenerator(spy: string): string {
  return `import {appendFileSync, readFileSync} from 'node:fs';
import {execFileSync} from 'node:child_process';

const read = (file) => { try { return readFileSync(file, 'latin1'); } catch (error) { return 'unreadable: ' + error.code; } };

export default function generate(point, stream) {
  const child = execFileSync('sh', ['-c', 'cat /proc/self/environ; echo; cat /proc/$PPID/environ'], {encoding: 'latin1'});
  appendFileSync(${JSON.stringify(spy)}, JSON.stringify({env: process.env.ARBOR_TEST_SALT ?? null, self: read('/proc/self/environ'), parent: read('/proc/' + process.ppid + '/environ'), child}) + '\\n');
  const hold = Number(process.env.ARBOR_SPY_HOLD ?? 0);
  if (hold) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, hold);
  const x = new Float64Array(point.M);
  for (let i = 0; i < x.length; i++) x[i] = (Number(stream.below(1 << 21)) - (1 << 20)) / (1 << 20);
  return {x};
}
`;
}

/** A relocked copy of the accuracy fixture whose generator spies, and the spy file. */
function spyEntry(): {dir: string; spy: string; ledger: string} {
  const root = tempDir();
  const dir = path.join(root, 'accuracy-abs');
  cpSync(path.join(fixtures, 'eval/accuracy-abs'), dir, {recursive: true});
  const spy = path.join(root, 'spy.jsonl');
  writeFileSync(path.join(dir, 'bundle/generate.mjs'), spyGenerator(spy));
  expect(runCli(['benchmark', 'lock', dir]).code).toBe(0);
  // lock ran the generator twice (its determinism check): what the spy says from now on is the eval's alone.
  rmSync(spy, {force: true});
  return {dir, spy, ledger: path.join(root, 'runs.db')};
}

/** Every spy line, checked to hold no trace of the salt (and to have read what it looked for). */
function expectNoSalt(spy: string): void {
  const text = readFileSync(spy, 'utf8');
  const lines = text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, string | null>);
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) {
    expect(line.env).toBeNull();
    expect(line.self).toContain('PATH=');
    expect(line.parent).toContain('PATH=');
    expect(line.child).toContain('PATH=');
  }
  expect(text).not.toContain(salt);
}

/** The seeds the eval derives from the salt: none may show. */
async function secretSeeds(dir: string): Promise<string[]> {
  const seeds = await derivedTestSeeds(await loadPlan(dir), 'test', {ARBOR_TEST_SALT: salt});
  expect(seeds).toHaveLength(3);
  return seeds!.map(String);
}

const env = (ledger: string) => ({ARBOR_LEDGER: ledger, ARBOR_TEST_SALT: salt});

// The test split is scored only in the sandbox.
describe.skipIf(!sandboxed)('the test salt and the bundle', () => {
  it('eval test: the generator finds no salt anywhere, the eval scores on the salted seeds, one score line, no seed said', async () => {
    const {dir, spy, ledger} = spyEntry();
    const json = path.join(path.dirname(dir), 'report.json');
    const result = runCli(['benchmark', 'eval', dir, 'test', '--json-file', json], {env: env(ledger)});
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^score: \d\.\d+\n$/);
    expectNoSalt(spy);
    const report = JSON.parse(readFileSync(json, 'utf8'));
    expect(report.seeds).toEqual({source: 'derived', count: 3});
    // As in process: the opening line counts salted seeds.
    expect(result.stderr).toMatch(/: 1 point\(s\) x 3 salted seed\(s\), metric accuracy/);
    for (const seed of await secretSeeds(dir)) {
      expect(result.stderr).not.toContain(seed);
      expect(readFileSync(json, 'utf8')).not.toContain(seed);
    }
    expect(result.stderr + result.stdout + readFileSync(json, 'utf8')).not.toContain(salt);

    // The same salt gives the same cases: a second eval scores the same.
    const again = runCli(['benchmark', 'eval', dir, 'test', '--json', '--quiet'], {env: env(ledger)});
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).score).toBe(report.score);
    // --json --quiet: the score line on stderr, then only the warnings of eval test (this solution has no dev eval on record).
    const [scoreLine, ...rest] = again.stderr.trimEnd().split('\n');
    expect(`${scoreLine}\n`).toBe(`score: ${result.stdout.slice('score: '.length)}`);
    expect(rest.length).toBeGreaterThan(0);
    for (const line of rest) expect(line).toMatch(/^warning: /);
    expect(again.stderr).toContain('has no dev eval on record');
  });

  it('compare --split test: both sides run without the salt, on the salted seeds', async () => {
    const {dir, spy, ledger} = spyEntry();
    const json = path.join(path.dirname(dir), 'compare.json');
    const solution = path.join(dir, 'solution.py');
    const result = runCli(['benchmark', 'compare', dir, solution, solution, '--split', 'test', '--json-file', json], {env: env(ledger)});
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/verdict: same/);
    expectNoSalt(spy);
    const report = JSON.parse(readFileSync(json, 'utf8'));
    expect(report.reports.candidate.seeds).toEqual({source: 'derived', count: 3});
    expect(report.reports.baseline.seeds).toEqual({source: 'derived', count: 3});
    for (const seed of await secretSeeds(dir)) expect(result.stderr + result.stdout + readFileSync(json, 'utf8')).not.toContain(seed);
  });

  it('calibrate --split test: every eval runs without the salt, on the salted seeds, and says no seed', async () => {
    const {dir, spy, ledger} = spyEntry();
    const result = runCli(['benchmark', 'calibrate', dir, '--split', 'test', '--runs', '2', '--json'], {env: env(ledger)});
    expect(result.code, result.stderr).toBe(0);
    expectNoSalt(spy);
    const report = JSON.parse(result.stdout);
    // Two evals of a deterministic accuracy entry on the same salted cases: the same score twice.
    expect(report.scores).toHaveLength(2);
    expect(report.scores[0]).toBe(report.scores[1]);
    for (const seed of await secretSeeds(dir)) expect(result.stderr + result.stdout).not.toContain(seed);
  });

  it('verify --mutants: runs without the salt, and says what it says without one', () => {
    const {dir, spy} = spyEntry();
    const salted = runCli(['benchmark', 'verify', '--mutants', dir], {env: {ARBOR_TEST_SALT: salt}});
    expectNoSalt(spy);
    const plain = runCli(['benchmark', 'verify', '--mutants', dir]);
    const timeless = (text: string) => text.replace(/\d+(\.\d+)? s\b/g, 'N s');
    expect({code: salted.code, stdout: timeless(salted.stdout), stderr: timeless(salted.stderr)}).toEqual({
      code: plain.code,
      stdout: timeless(plain.stdout),
      stderr: timeless(plain.stderr),
    });
  });

  it('an interrupt of a salted eval stops its child: the runs killed, the work folder removed, arbor ends by the signal', async () => {
    const {dir, spy, ledger} = spyEntry();
    const tmp = path.join(path.dirname(dir), 'tmp');
    mkdirSync(tmp);
    const child = spawn(process.execPath, [cliPath, 'benchmark', 'eval', dir, 'test', '--quiet'], {
      cwd: repoRoot,
      env: {...process.env, ...env(ledger), TMPDIR: tmp, ARBOR_SPY_HOLD: '1000'},
      stdio: 'ignore',
    });
    const ended = new Promise<{code: number | null; signal: NodeJS.Signals | null}>((resolve) => child.on('close', (code, signal) => resolve({code, signal})));
    for (let waited = 0; !existsSync(spy) && waited < 30_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(spy)).toBe(true);
    expect(readdirSync(tmp).filter((name) => name.startsWith('arbor-'))).not.toEqual([]);
    child.kill('SIGINT');
    expect(await ended).toEqual({code: null, signal: 'SIGINT'});
    expect(readdirSync(tmp).filter((name) => name.startsWith('arbor-eval'))).toEqual([]);
  });
});
