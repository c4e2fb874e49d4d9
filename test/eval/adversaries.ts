// Helpers of the adversarial suites (test/eval/adversarial-*.test.ts): cheating
// must not pay: every adversarial solution scores 0.0 or no more than its honest
// worth, never crashes the harness, never leaves anything behind, and stdout is
// always exactly one score line. Each solution under
// test/fixtures/eval/solutions says in its docstring what it tries.
import {spawnSync} from 'node:child_process';
import {cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {randomBytes} from 'node:crypto';
import path from 'node:path';
import {expect} from 'vitest';
import type {PlanOverride} from '../../lib/eval/index.js';
import {type CliResult, cliPath, fixtures, runCli, runCliAsync, tempDir} from '../helpers/cli.js';

export const solutions = path.join(fixtures, 'eval/solutions');
export const sandboxed = spawnSync('bwrap', ['--ro-bind', '/', '/', 'true']).status === 0;

/**
 * The environment of an eval without the sandbox. Started by root, its runs
 * drop to a uid of their own, which must be able to read the interpreter: a
 * pyenv under a 0700 /root cannot be, so there the system's python3 (with
 * python3-numpy, which .ci/run installs) stands in.
 */
export const unsandboxedEnv: Record<string, string> = (() => {
  if (process.getuid?.() !== 0) return {};
  // The same drop arbor makes (lib/sandbox/sandbox.ts dropCommand), prlimit included: setpriv alone can start an interpreter under a
  // 0700 /root that the dropped uid cannot reach through another program (setpriv resolves it first), and arbor's run cannot.
  const drop = [
    '--reuid=65534',
    '--regid=65534',
    '--clear-groups',
    '--inh-caps=-all',
    '--bounding-set=-all',
    '--no-new-privs',
    '--',
    'prlimit',
    '--core=0',
    '--',
  ];
  const readable = (python: string) => spawnSync('setpriv', [...drop, python, '-I', '-c', 'import numpy'], {cwd: '/'}).status === 0;
  if (readable(process.env.ARBOR_PYTHON ?? 'python3')) return {};
  return readable('/usr/bin/python3') ? {ARBOR_PYTHON: '/usr/bin/python3'} : ({} as Record<string, string>);
})();

export interface Evaluated {
  score: number;
  stdout: string;
  stderr: string;
  report: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  dir: string;
}

/** A fresh marker for the command lines of processes a solution starts, so the test can look for survivors. */
export function marker(): string {
  return `arbor-marker-${randomBytes(6).toString('hex')}`;
}

/** Processes whose command line holds the marker. */
export function survivors(mark: string): string[] {
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
export function eventually(condition: () => boolean, ms = 3000): boolean {
  const until = Date.now() + ms;
  while (!condition() && Date.now() < until) spawnSync('sleep', ['0.05']);
  return condition();
}

/** A private copy of a fixture entry with the candidate inside it (in `parent`, the test's temp folder by default), so whatever it damages is the copy. */
export function entryCopy(entry: string, solution: string, replace: Record<string, string> = {}, parent = tempDir()): {dir: string; candidate: string} {
  const dir = path.join(parent, entry);
  cpSync(path.join(fixtures, 'eval', entry), dir, {recursive: true});
  let text = readFileSync(path.join(solutions, solution), 'utf8');
  for (const [from, to] of Object.entries(replace)) text = text.split(from).join(to);
  const candidate = path.join(dir, 'candidate.py');
  writeFileSync(candidate, text);
  return {dir, candidate};
}

/** Replace text in a copied entry's plan.toml (each `from` must be there) and refresh its lock: a changed plan is the author's. */
export function rewritePlan(dir: string, replace: Record<string, string>): void {
  const plan = path.join(dir, 'plan.toml');
  let text = readFileSync(plan, 'utf8');
  for (const [from, to] of Object.entries(replace)) {
    expect(text).toContain(from);
    text = text.split(from).join(to);
  }
  writeFileSync(plan, text);
  expect(runCli(['benchmark', 'lock', dir]).code).toBe(0);
}

export function evaluate(entry: string, solution: string, options: EvaluateOptions = {}): Evaluated {
  const {dir, candidate} = entryCopy(entry, solution, options.replace);
  if (options.plan) rewritePlan(dir, options.plan);
  const json = path.join(path.dirname(dir), 'report.json');
  return evaluated(runCli(evalArgs(dir, candidate, json, options), {env: options.env}), json, dir);
}

interface EvaluateOptions {
  split?: string;
  replace?: Record<string, string>;
  plan?: Record<string, string>;
  args?: string[];
  env?: Record<string, string>;
}

function evalArgs(dir: string, candidate: string, json: string, options: EvaluateOptions): string[] {
  return ['benchmark', 'eval', dir, options.split ?? 'dev', '--solution', candidate, '--json-file', json, ...(options.args ?? [])];
}

/** An eval's result as every adversarial test reads it: one score line on stdout, exit 0, no internal error. */
function evaluated(result: CliResult, json: string, dir: string): Evaluated {
  expect(result.stderr).not.toMatch(/internal error|Traceback/);
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/^score: \S+\n$/);
  return {score: Number(result.stdout.slice(7)), stdout: result.stdout, stderr: result.stderr, report: JSON.parse(readFileSync(json, 'utf8')), dir};
}

/**
 * `evaluate` of each solution, two at a time (each eval leases a CPU, and a test file's evals share the
 * machine's two), for adversaries whose status no timing decides (a cheat that answers nothing, crashes or
 * fails scores 0 however loaded the machine): each one's eval, by solution, rejected with its own failure.
 * The copies go in `parent`, which the caller removes once every eval has ended.
 */
export function evaluateEach(
  parent: string,
  entry: string,
  names: readonly string[],
  options: Omit<EvaluateOptions, 'plan'> = {},
): Map<string, Promise<Evaluated>> {
  const lanes: Promise<unknown>[] = [Promise.resolve(), Promise.resolve()];
  const evals = new Map<string, Promise<Evaluated>>();
  names.forEach((name, i) => {
    const own = mkdtempSync(path.join(parent, 'eval-'));
    const run = lanes[i % lanes.length]!.then(async () => {
      const {dir, candidate} = entryCopy(entry, name, options.replace, own);
      const json = path.join(own, 'report.json');
      return evaluated(await runCliAsync(evalArgs(dir, candidate, json, options), {env: options.env}), json, dir);
    });
    // A failed eval is its test's failure (the test awaits it), never an unhandled rejection, and it holds up no other.
    lanes[i % lanes.length] = run.catch(() => {});
    evals.set(name, run);
  });
  return evals;
}

/** One side of a shared eval (evaluateSides): its score and its report. */
export interface Side {
  score: number;
  report: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * Several solutions evaluated as the sides of one eval (the library's runSides): the same cases and
 * the same reference runs, so what an eval pays whatever its solution (the start, the makes, the
 * reference's runs; under the instructions clock the counter's probe too) is paid once. Each side's
 * report is its own: a side's run, its statuses and its score are another side's business only in
 * how many repetitions run (until every side failed a case, or the plan's fewest). `progress` is
 * every line the eval said, none of which may be an internal error or a Traceback.
 */
export async function evaluateSides(
  entry: string,
  names: string[],
  options: {plan?: Record<string, string>; planOverride?: PlanOverride} = {},
): Promise<{sides: Map<string, Side>; progress: string[]}> {
  const root = mkdtempSync(path.join(tmpdir(), 'arbor-test-sides-'));
  try {
    const dir = path.join(root, entry);
    cpSync(path.join(fixtures, 'eval', entry), dir, {recursive: true});
    if (options.plan) rewritePlan(dir, options.plan);
    const sides = names.map((name) => {
      const solution = path.join(root, name);
      cpSync(path.join(solutions, name), solution);
      return {label: name, solution};
    });
    const progress: string[] = [];
    const {runSides} = await import('../../lib/eval/index.js');
    const {reports} = await runSides({
      benchmark: dir,
      split: 'dev',
      sides,
      planOverride: options.planOverride,
      onProgress: (kind, text) => kind === 'line' && progress.push(text),
    });
    expect(progress.join('\n')).not.toMatch(/internal error|Traceback/);
    return {sides: new Map(names.map((name, s) => [name, {score: reports[s]!.score, report: reports[s]!}])), progress};
  } finally {
    rmSync(root, {recursive: true, force: true});
  }
}

/** Root shows what an ordinary user's eval does: as nobody, where nobody can read arbor, node and a python3 with numpy. */
const asNobody = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'];
const userPython = unsandboxedEnv.ARBOR_PYTHON ?? process.env.ARBOR_PYTHON ?? 'python3';
export const canRunAsUser =
  sandboxed &&
  process.getuid?.() === 0 &&
  spawnSync(asNobody[0]!, [...asNobody.slice(1), process.execPath, cliPath, '--version'], {cwd: '/'}).status === 0 &&
  spawnSync(asNobody[0]!, [...asNobody.slice(1), userPython, '-I', '-c', 'import numpy'], {cwd: '/'}).status === 0;

/**
 * `arbor benchmark eval <entry> dev` of `entry/candidate.py`, run by nobody in `dir` (which holds
 * the entry, chowned to nobody first): its streams and its report.
 */
export function evaluateAsNobody(dir: string, entry: string): {stdout: string; stderr: string; report: any} {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  spawnSync('chown', ['-R', '65534:65534', dir]);
  const json = path.join(dir, 'report.json');
  const env = {PATH: process.env.PATH, HOME: dir, TMPDIR: dir, ARBOR_PYTHON: userPython, ARBOR_LEDGER: path.join(dir, 'runs.db'), NO_COLOR: '1'};
  const args = [process.execPath, cliPath, 'benchmark', 'eval', entry, 'dev', '--solution', path.join(entry, 'candidate.py'), '--json-file', json, '--quiet'];
  const result = spawnSync(asNobody[0]!, [...asNobody.slice(1), ...args], {cwd: dir, env, encoding: 'utf8'});
  return {stdout: result.stdout, stderr: result.stderr, report: existsSync(json) ? JSON.parse(readFileSync(json, 'utf8')) : undefined};
}
