// Cheating must not pay: every adversarial solution scores 0.0 or no more than
// its honest worth, never crashes the harness, never leaves anything behind, and
// stdout is always exactly one score line. Each solution under
// test/fixtures/eval/solutions says in its docstring what it tries.
import {spawn, spawnSync} from 'node:child_process';
import {cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {createHash, randomBytes} from 'node:crypto';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {cliPath, fixtures, repoRoot, runCli, tempDir} from '../helpers/cli.js';

const hasBundle = existsSync(path.join(repoRoot, 'lib/bundle/index.ts'));
const solutions = path.join(fixtures, 'eval/solutions');
const sandboxed = spawnSync('bwrap', ['--ro-bind', '/', '/', 'true']).status === 0;

interface Evaluated {
  score: number;
  stdout: string;
  stderr: string;
  report: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  dir: string;
}

/** A fresh marker for the command lines of processes a solution starts, so the test can look for survivors. */
function marker(): string {
  return `arbor-marker-${randomBytes(6).toString('hex')}`;
}

/** Processes whose command line holds the marker. */
function survivors(mark: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
      if (cmdline.includes(mark) && state !== 'Z') found.push(pid);
    } catch {
      // Gone.
    }
  }
  return found;
}

/** Wait up to `ms` for a condition (processes die asynchronously after SIGKILL). */
function eventually(condition: () => boolean, ms = 3000): boolean {
  const until = Date.now() + ms;
  while (!condition() && Date.now() < until) spawnSync('sleep', ['0.05']);
  return condition();
}

/** A private copy of a fixture entry with the candidate inside it, so whatever it damages is the copy. */
function entryCopy(entry: string, solution: string, replace: Record<string, string> = {}): {dir: string; candidate: string} {
  const dir = path.join(tempDir(), entry);
  cpSync(path.join(fixtures, 'eval', entry), dir, {recursive: true});
  let text = readFileSync(path.join(solutions, solution), 'utf8');
  for (const [from, to] of Object.entries(replace)) text = text.split(from).join(to);
  const candidate = path.join(dir, 'candidate.py');
  writeFileSync(candidate, text);
  return {dir, candidate};
}

function evaluate(entry: string, solution: string, options: {split?: string; replace?: Record<string, string>; args?: string[]; env?: Record<string, string>} = {}): Evaluated {
  const {dir, candidate} = entryCopy(entry, solution, options.replace);
  const json = path.join(path.dirname(dir), 'report.json');
  const result = runCli(['benchmark', 'eval', dir, options.split ?? 'dev', '--solution', candidate, '--json', json, ...(options.args ?? [])], {env: options.env});
  expect(result.stderr).not.toMatch(/internal error|Traceback/);
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/^score: \S+\n$/);
  return {score: Number(result.stdout.slice(7)), stdout: result.stdout, stderr: result.stderr, report: JSON.parse(readFileSync(json, 'utf8')), dir};
}

describe.skipIf(!hasBundle)('simple cheats (speed fixture)', () => {
  it.each([
    ['nothing.py', 'no-answer'],
    ['empty-dict.py', 'no-answer'],
    ['inputs.py', 'failed'],
    ['crash.py', 'crashed'],
    ['exit.py', 'crashed'],
    ['import-error.py', 'crashed'],
    ['nan.py', 'no-answer'],
    ['wrong-shape.py', 'no-answer'],
    ['score-print.py', 'no-answer'],
    ['search-expected.py', 'failed'],
    ['tamper-bundle.py', 'failed'],
    ['array-hook.py', 'no-answer'],
    ['forge-channel.py', 'crashed'],
  ])('%s scores 0.0 (%s)', (solution, status) => {
    const {score, report, stderr} = evaluate('prefix-speed', solution);
    expect(score).toBe(0);
    expect(report.points[0].cases[0].status).toBe(status);
    expect(stderr).toMatch(/score is 0\.0: case 0/);
  });

  it('an answer whose __array__ would do the work after the clock stopped is refused, with the reason', () => {
    const {report} = evaluate('prefix-speed', 'array-hook.py');
    expect(report.points[0].cases[0].note).toMatch(/result 's': Lazy is not a numpy array, scalar or list/);
  });

  it('a fake score line on stdout does not replace the real score', () => {
    const {score, report} = evaluate('prefix-speed', 'score-print-correct.py');
    expect(score).toBeGreaterThan(1);
    expect(report.score).toBe(score);
  });

  it('rebinding time.perf_counter does not make a slow solution fast', () => {
    const {score} = evaluate('prefix-speed', 'fake-timer.py');
    expect(score).toBeGreaterThan(0);
    expect(score).toBeLessThan(3);
  });

  it('sleep-timed.py is killed at the per-case limit, max(1 s, 10 x reference)', () => {
    const {score, report} = evaluate('prefix-speed', 'sleep-timed.py');
    expect(score).toBe(0);
    // The limit is on wall time: max(1 s, 10 x the reference's fastest wall time for the case).
    expect(report.points[0].cases[0]).toMatchObject({status: 'timeout', note: expect.stringMatching(/^killed at the case time limit of \d+\.\d{3} s$/)});
    expect(Number(/limit of ([\d.]+)/.exec(report.points[0].cases[0].note)![1])).toBeGreaterThanOrEqual(1);
    expect(report.points[0].cases[1]).toMatchObject({status: 'not-run'});
  });

  it('a failing point ends a speedup eval: later points are reported as not run', () => {
    const {score, report} = evaluate('prefix-speed', 'crash.py', {split: 'test'});
    expect(score).toBe(0);
    expect(report.points.map((p: {cases: Array<{status: string}>}) => p.cases.map((c) => c.status))).toEqual([
      ['crashed', 'crashed', 'crashed'],
      ['not-run', 'not-run', 'not-run'],
    ]);
  });
});

describe.skipIf(!hasBundle || !sandboxed)('the sandbox: what an adversarial solution cannot reach', () => {
  it('reports how the runs were isolated', () => {
    const {report} = evaluate('prefix-speed', 'score-print-correct.py');
    expect(report).toMatchObject({sandbox: 'bwrap', lock: 'ok'});
    expect(typeof report.cgroup).toBe('boolean');
    for (const rep of report.points[0].cases[0].repetitions) expect(rep.seconds).toBeGreaterThan(0);
  });

  it('sleep.py is killed at the warm-up limit, and the child it left in its own session dies with the run', () => {
    const mark = marker();
    const started = Date.now();
    const {score, report} = evaluate('prefix-speed', 'sleep.py', {replace: {ARBOR_PROCESS_MARKER: mark}});
    expect(score).toBe(0);
    expect(report.points[0].cases[0]).toMatchObject({status: 'timeout', note: 'killed at the warm-up case time limit of 4.000 s'});
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(eventually(() => survivors(mark).length === 0)).toBe(true);
  });

  it('a double-forked daemon in its own session neither survives the run nor reaches the cases or expected answers', () => {
    const mark = marker();
    const {score, report} = evaluate('prefix-speed', 'daemon.py', {replace: {ARBOR_PROCESS_MARKER: mark}});
    expect(score).toBe(0);
    expect(report.points[0].cases[0].status).toBe('failed');
    expect(eventually(() => survivors(mark).length === 0)).toBe(true);
  });

  it("signalling the harness (SIGUSR1 opens Node's inspector) prints no second score line", () => {
    for (const args of [[], ['--unsandboxed']]) {
      const {stdout, score} = evaluate('prefix-speed', 'signal-harness.py', {args});
      expect(stdout).toMatch(/^score: \S+\n$/);
      expect(score).toBeGreaterThan(0);
      expect(score).not.toBe(999);
    }
  });

  it("writing to every visible process's stdout (/proc/<pid>/fd/1) prints no second score line", () => {
    const {stdout, score} = evaluate('prefix-speed', 'proc-stdout.py');
    expect(stdout).toMatch(/^score: \S+\n$/);
    expect(score).toBeGreaterThan(0);
  });

  it('answers saved to /tmp or HOME are gone by the next repetition and the next eval', () => {
    const first = evaluate('prefix-speed', 'cache-tmp.py');
    const second = evaluate('prefix-speed', 'cache-tmp.py');
    // Computing with a Python loop is the reference's own speed: about 1, far below numpy's baseline.
    for (const {score} of [first, second]) {
      expect(score).toBeGreaterThan(0);
      expect(score).toBeLessThan(3);
    }
    expect(readdirSync('/tmp').filter((name) => name.startsWith('arbor-cache-'))).toEqual([]);
  });

  it('hunting for the case files in the untimed init() finds nothing to precompute', () => {
    const {score} = evaluate('prefix-speed', 'hunt-cases.py');
    expect(score).toBeGreaterThan(0);
    expect(score).toBeLessThan(3);
  });

  it("forging an answer on the runner's channel gains nothing: the real answer that follows ends the run as a crash", () => {
    const {report} = evaluate('prefix-speed', 'forge-channel.py');
    expect(report.points[0].cases[0]).toMatchObject({status: 'crashed', passed: false, note: expect.stringMatching(/before case 0 was delivered|the runner's channel carried an unexpected message/)});
  });

  it('ARBOR_TEST_SALT (and every ARBOR_ variable) is invisible to the solution', () => {
    const {score, report} = evaluate('prefix-speed', 'salt-env.py', {split: 'test', env: {ARBOR_TEST_SALT: 'platform-secret', ARBOR_SOMETHING: 'x'}});
    expect(report.seeds.source).toBe('derived');
    expect(score).toBe(0);
    expect(report.points[0].cases[0].note).toMatch(/run\(\) returned None/);
  });

  it("no solution can change its benchmark's protected files, arbor, or a Python site, so a later honest eval is unaffected", () => {
    const {dir, candidate} = entryCopy('prefix-speed', 'vandal.py');
    writeFileSync(path.join(dir, 'VANDAL_OK'), '');
    const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
    const before = ['eval.sh', 'plan.toml'].map((name) => digest(path.join(dir, name)));
    const python = spawnSync('python3', ['-c', 'import json, site, sys; print(json.dumps([p for p in sys.path if p] + [site.getusersitepackages()]))'], {encoding: 'utf8'});
    const sites: string[] = JSON.parse(python.stdout);
    const planted = () => sites.flatMap((site) => ['arbor_vandal_probe.pth', 'usercustomize.py'].map((name) => path.join(site, name))).filter((file) => existsSync(file) && readFileSync(file, 'utf8').includes('arbor vandal probe'));
    try {
      const result = runCli(['benchmark', 'eval', dir, 'dev', '--solution', candidate]);
      expect(result.stdout).toBe('score: 0.0\n');
      expect(['eval.sh', 'plan.toml'].map((name) => digest(path.join(dir, name)))).toEqual(before);
      expect(planted()).toEqual([]);
    } finally {
      for (const file of planted()) rmSync(file);
    }
    const honestRun = runCli(['benchmark', 'eval', dir, 'dev']);
    expect(Number(honestRun.stdout.slice(7))).toBeGreaterThan(1);
  });

  it('the accuracy fixture holds against the same cheats', () => {
    // Zeros are within 1e-3 of |x| for about 1 point in 1000: that is what these answers are worth.
    for (const solution of ['search-expected.py', 'tamper-bundle.py']) expect(evaluate('accuracy-abs', solution).score).toBeLessThan(0.005);
    for (const solution of ['nothing.py', 'crash.py', 'nan.py', 'sleep.py', 'score-print.py']) {
      expect(evaluate('accuracy-abs', solution, {replace: {ARBOR_PROCESS_MARKER: marker()}}).score).toBe(0);
    }
  });
});

describe.skipIf(!hasBundle || !sandboxed)('faults: a killed eval leaves nothing behind', () => {
  it('kill -9 of an eval ends its runs, and the next eval removes its work folder', async () => {
    const tmp = tempDir();
    const mark = marker();
    const {dir, candidate} = entryCopy('prefix-speed', 'sleep.py', {ARBOR_PROCESS_MARKER: mark});
    const env = {...process.env, TMPDIR: tmp, NO_COLOR: '1'};
    const child = spawn(process.execPath, [cliPath, 'benchmark', 'eval', dir, 'dev', '--solution', candidate], {env, stdio: 'ignore'});
    // Wait until the solution's child is running, then kill the eval outright.
    expect(eventually(() => survivors(mark).length > 0, 10_000)).toBe(true);
    expect(readdirSync(tmp).filter((name) => name.startsWith('arbor-eval-'))).toHaveLength(1);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('exit', resolve));
    expect(eventually(() => survivors(mark).length === 0)).toBe(true);
    // The next eval clears the dead eval's folder (and its own).
    const next = runCli(['benchmark', 'eval', dir, 'dev', '--quiet'], {env});
    expect(next.stdout).toMatch(/^score: /);
    expect(readdirSync(tmp).filter((name) => name.startsWith('arbor-eval-'))).toEqual([]);
  });

  it('--json refuses a path that exists and is not a regular file (exit 2), and leaves it alone', () => {
    const dir = tempDir();
    const fifo = path.join(dir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const result = runCli(['benchmark', 'eval', path.join(fixtures, 'eval/prefix-speed'), 'dev', '--json', fifo]);
    expect(result).toEqual({code: 2, stdout: '', stderr: `arbor: --json ${fifo}: exists and is not a regular file, expected a new path or a regular file\n`});
    expect(readdirSync(dir)).toEqual(['fifo']);
  });
});

describe.skipIf(!hasBundle)('arbor.lock', () => {
  it('an eval whose protected files differ from arbor.lock scores 0.0 and says which file; lock refreshes it', () => {
    const dir = path.join(tempDir(), 'entry');
    cpSync(path.join(fixtures, 'eval/prefix-speed'), dir, {recursive: true});
    writeFileSync(path.join(dir, 'plan.toml'), readFileSync(path.join(dir, 'plan.toml'), 'utf8').replace('repetitions = 2', 'repetitions = 3'));
    const result = runCli(['benchmark', 'eval', dir, 'dev']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('score: 0.0\n');
    expect(result.stderr).toMatch(/score is 0\.0: a protected file differs from arbor\.lock: plan\.toml changed/);
    expect(runCli(['benchmark', 'lock', '--check', dir])).toMatchObject({code: 1, stdout: `${dir}: differs from arbor.lock: plan.toml changed\n`});
    expect(runCli(['benchmark', 'lock', dir])).toMatchObject({code: 0, stdout: `${dir}: wrote arbor.lock (7 protected files)\n`});
    expect(runCli(['benchmark', 'lock', '--check', dir])).toMatchObject({code: 0});
    expect(Number(runCli(['benchmark', 'eval', dir, 'dev']).stdout.slice(7))).toBeGreaterThan(1);
  });

  it('an added bundle file or a changed reference differs too; editing the solution does not', () => {
    const dir = path.join(tempDir(), 'entry');
    cpSync(path.join(fixtures, 'eval/prefix-speed'), dir, {recursive: true});
    writeFileSync(path.join(dir, 'solution.py'), `${readFileSync(path.join(dir, 'solution.py'), 'utf8')}\n# edited\n`);
    mkdirSync(path.join(dir, 'bundle/__pycache__'));
    writeFileSync(path.join(dir, 'bundle/__pycache__/x.pyc'), '');
    expect(runCli(['benchmark', 'lock', '--check', dir]).code).toBe(0);
    writeFileSync(path.join(dir, 'bundle/extra.mjs'), '');
    expect(runCli(['benchmark', 'lock', '--check', '--json', dir]).stdout).toContain('"difference": "bundle/extra.mjs was added"');
    rmSync(path.join(dir, 'bundle/extra.mjs'));
    writeFileSync(path.join(dir, 'reference.py'), 'def run(state, inputs):\n    return None\n');
    expect(runCli(['benchmark', 'lock', '--check', dir]).stdout).toBe(`${dir}: differs from arbor.lock: reference.py changed\n`);
  });

  it('a benchmark without arbor.lock is scored, with a warning naming the fix', () => {
    const dir = path.join(tempDir(), 'entry');
    cpSync(path.join(fixtures, 'eval/prefix-speed'), dir, {recursive: true});
    rmSync(path.join(dir, 'arbor.lock'));
    const json = path.join(path.dirname(dir), 'report.json');
    const result = runCli(['benchmark', 'eval', dir, 'dev', '--json', json]);
    expect(Number(result.stdout.slice(7))).toBeGreaterThan(1);
    expect(result.stderr).toContain(`warning: entry has no arbor.lock, so changes to its protected files go unnoticed; write one with 'arbor benchmark lock ${dir}'`);
    expect(JSON.parse(readFileSync(json, 'utf8')).lock).toBe('missing');
  });
});

describe.skipIf(!hasBundle)('where the sandbox cannot start', () => {
  it('dev runs without it, loudly; test refuses unless --unsandboxed; the report says "none"', () => {
    const env = {ARBOR_BWRAP: '/nonexistent/bwrap'};
    const dev = evaluate('prefix-speed', '../prefix-speed/solution.py', {env});
    expect(dev.stderr).toMatch(/warning: bubblewrap \(bwrap\) is not installed; running the solution WITHOUT a sandbox/);
    expect(dev.report.sandbox).toBe('none');
    expect(dev.score).toBeGreaterThan(1);
    const test = runCli(['benchmark', 'eval', path.join(fixtures, 'eval/prefix-speed'), 'test'], {env});
    expect(test).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'arbor: bubblewrap (bwrap) is not installed: the test split is scored only in the sandbox; install bubblewrap (e.g. apt-get install bubblewrap), or pass --unsandboxed to score it without one\n',
    });
    const forced = evaluate('prefix-speed', '../prefix-speed/solution.py', {split: 'test', env, args: ['--unsandboxed']});
    expect(forced.report.sandbox).toBe('none');
    expect(forced.stderr).toMatch(/warning: --unsandboxed/);
  });

  it('without a sandbox, the tamper checks still catch a solution that rewrites the bundle snapshot', () => {
    const {score, report} = evaluate('prefix-speed', 'tamper-bundle.py', {args: ['--unsandboxed']});
    expect(score).toBe(0);
    expect(report.points[0].cases[0].status).toBe('tampered');
  });
});

describe.skipIf(!hasBundle || !sandboxed)('offloading work on the CPU clock', () => {
  // The reference is the same pure Python loop: doing that work elsewhere (a thread, a pool, a
  // daemon, started in the untimed init()) must cost the same CPU, so the score stays about 1
  // (the pool and the daemon would score about 2 on a wall clock with two cores).
  it.each(['thread-init.py', 'pool-init.py', 'daemon-socket.py'])('%s scores no more than doing the work itself', (solution) => {
    const {score, report} = evaluate('prefix-speed', solution);
    expect(report).toMatchObject({clock: 'cpu', cgroup: true});
    expect(report.points[0].cases.every((c: {passed: boolean}) => c.passed)).toBe(true);
    expect(score).toBeGreaterThan(0);
    expect(score).toBeLessThan(1.3);
  });
});
