// What the sandbox keeps out of an adversarial solution's reach (helpers in ./adversaries.ts).
import {spawnSync} from 'node:child_process';
import {existsSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {createHash} from 'node:crypto';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {runCli, tempDir} from '../helpers/cli.js';
import {entryCopy, evaluate, evaluateEach, eventually, marker, sandboxed, survivors, unsandboxedEnv} from './adversaries.js';

/** Debian's python3 with python3-numpy (.ci/run installs it), whose BLAS is a link through /etc/alternatives. */
const debianNumpy = spawnSync('/usr/bin/python3', ['-I', '-c', 'import numpy']).status === 0;

describe.skipIf(!sandboxed)('the sandbox: what an adversarial solution cannot reach', () => {
  it('reports how the runs were isolated', () => {
    const {report} = evaluate('prefix-speed', 'score-print-correct.py');
    expect(report).toMatchObject({sandbox: 'bwrap', lock: 'ok'});
    expect(typeof report.cgroup).toBe('boolean');
    for (const rep of report.points[0].cases[0].repetitions) expect(rep.seconds).toBeGreaterThan(0);
  });

  it.skipIf(!debianNumpy)(
    "runs Debian's python3, whose numpy reaches its BLAS through /etc/alternatives, also as the uid a run started by root drops to",
    () => {
      const result = runCli(['benchmark', 'eval', 'test/fixtures/eval/accuracy-abs', 'dev', '--quiet'], {env: {ARBOR_PYTHON: '/usr/bin/python3'}});
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(Number(result.stdout.match(/^score: (\S+)\n$/)?.[1])).toBeGreaterThan(0);
    },
  );

  it("sleep.py is killed at the warm-up limit, max(1 s, 10 x the reference's warm-up), and the child it left in its own session dies with the run", () => {
    const mark = marker();
    const started = Date.now();
    const {score, report} = evaluate('prefix-speed', 'sleep.py', {replace: {ARBOR_PROCESS_MARKER: mark}});
    expect(score).toBe(0);
    expect(report.points[0].cases[0].status).toBe('timeout');
    // The reference's first warm-up call takes tens of ms: the limit is min_timeout, far under init_timeout (4 s here).
    const limit = Number(/^killed at the warm-up case time limit of (\d+\.\d{3}) s$/.exec(report.points[0].cases[0].note)?.[1]);
    expect(limit).toBeGreaterThanOrEqual(1);
    expect(limit).toBeLessThan(4);
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
      const {stdout, score} = evaluate('prefix-speed', 'signal-harness.py', {args, env: args.length ? unsandboxedEnv : {}});
      expect(stdout).toMatch(/^score: \S+\n$/);
      expect(score).toBeGreaterThan(0);
      expect(score).not.toBe(999);
    }
  });

  it('stopping the run that waits for its turn (the next reference) is out of reach, with and without the sandbox', () => {
    // With the sandbox the waiting run is in another PID namespace; without it, no run starts ahead.
    for (const args of [[], ['--unsandboxed']]) {
      const {score, report} = evaluate('prefix-speed', 'stop-neighbours.py', {args, env: args.length ? unsandboxedEnv : {}});
      expect(report.repetitions).toBeGreaterThanOrEqual(2);
      expect(report.points[0].cases.every((c: {passed: boolean}) => c.passed)).toBe(true);
      expect(score).toBeGreaterThan(1);
    }
  });

  it("writing to every visible process's stdout (/proc/<pid>/fd/1) prints no second score line", () => {
    const {stdout, score} = evaluate('prefix-speed', 'proc-stdout.py');
    expect(stdout).toMatch(/^score: \S+\n$/);
    expect(score).toBeGreaterThan(0);
  });

  it('answers saved to /tmp or HOME answer no later case (every repetition draws fresh ones) and are gone by the next eval', () => {
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
    expect(report.points[0].cases[0]).toMatchObject({
      status: 'crashed',
      passed: false,
      note: expect.stringMatching(/before case 0 was delivered|the runner's channel carried an unexpected message/),
    });
  });

  it('ARBOR_TEST_SALT (and every ARBOR_ variable) is invisible to the solution', () => {
    const {score, report} = evaluate('prefix-speed', 'salt-env.py', {split: 'test', env: {ARBOR_TEST_SALT: 'platform-secret', ARBOR_SOMETHING: 'x'}});
    // A speed entry's test cases are fresh (the salt keys only fixed seeds); the salt is in arbor's environment all the same.
    expect(report.seeds.source).toBe('fresh');
    expect(score).toBe(0);
    // It answered (None) rather than crashed; what its answer was is withheld on secret cases (lib/eval/redact.ts).
    expect(report.points[0].cases[0]).toMatchObject({status: 'no-answer', note: 'no answer could be read; details withheld (secret test cases)'});
  });

  it("no solution can change its benchmark's protected files, arbor, or a Python site, so a later honest eval is unaffected", () => {
    const {dir, candidate} = entryCopy('prefix-speed', 'vandal.py');
    writeFileSync(path.join(dir, 'VANDAL_OK'), '');
    const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
    const before = ['eval.sh', 'plan.toml'].map((name) => digest(path.join(dir, name)));
    const python = spawnSync('python3', ['-c', 'import json, site, sys; print(json.dumps([p for p in sys.path if p] + [site.getusersitepackages()]))'], {
      encoding: 'utf8',
    });
    const sites: string[] = JSON.parse(python.stdout);
    const planted = () =>
      sites
        .flatMap((site) => ['arbor_vandal_probe.pth', 'usercustomize.py'].map((name) => path.join(site, name)))
        .filter((file) => existsSync(file) && readFileSync(file, 'utf8').includes('arbor vandal probe'));
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

  it("arbor's cache folder is out of reach: an eval after one that tried to forge it records the python's own answer", () => {
    const cache = tempDir();
    const env = {ARBOR_CACHE_DIR: cache};
    const honest = evaluate('prefix-speed', 'score-print-correct.py', {env});
    const kept = () => Object.fromEntries(readdirSync(cache).map((name) => [name, readFileSync(path.join(cache, name), 'utf8')]));
    const before = kept();
    expect(Object.keys(before).some((name) => /^python-[0-9a-f]{16}\.json$/.test(name))).toBe(true);
    // Without the sandbox, a run started by root drops to a uid of its own, which cannot write root's cache either.
    const ways = process.getuid?.() === 0 ? [[], ['--unsandboxed']] : [[]];
    for (const args of ways) {
      const {score} = evaluate('prefix-speed', 'poison-cache.py', {
        args,
        replace: {ARBOR_CACHE_FOLDER: cache},
        env: {...env, ...(args.length ? unsandboxedEnv : {})},
      });
      expect(score).toBeGreaterThan(1);
      // Each entry as it was (without the sandbox, the run's own python, Debian's, adds its honest entry), none forged.
      const now = kept();
      expect(now).toMatchObject(before);
      for (const [name, text] of Object.entries(now)) {
        expect(name).toMatch(/^python-[0-9a-f]{16}\.json$/);
        expect(text).not.toContain('forged');
      }
    }
    const after = evaluate('prefix-speed', 'score-print-correct.py', {env});
    expect(after.report.environment.python.numpy).toBe(honest.report.environment.python.numpy);
    expect(after.report.environment.python.numpy).not.toBe('forged');
  });

  it('the accuracy fixture holds against the same cheats', async () => {
    // Two at a time: what these answers are worth depends on no timing (sleep.py is killed, whenever, and scores 0).
    const [near, none] = [
      ['search-expected.py', 'tamper-bundle.py'],
      ['nothing.py', 'crash.py', 'nan.py', 'sleep.py', 'score-print.py'],
    ];
    const evals = evaluateEach(tempDir(), 'accuracy-abs', [...near, ...none], {replace: {ARBOR_PROCESS_MARKER: marker()}});
    const scores = new Map(await Promise.all([...evals].map(async ([name, run]) => [name, (await run).score] as const)));
    // Zeros are within 1e-3 of |x| for about 1 point in 1000: that is what these answers are worth.
    for (const solution of near) expect(scores.get(solution), solution).toBeLessThan(0.005);
    for (const solution of none) expect(scores.get(solution), solution).toBe(0);
  });
});
