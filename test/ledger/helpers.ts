/** Shared pieces of the ledger tests: a complete run record, real git repositories. */
import {spawnSync} from 'node:child_process';
import {mkdirSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import type {RunRecord} from '../../lib/ledger/index.js';

/** A complete eval record for a benchmark folder; override any field. */
export function sampleRecord(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    kind: 'eval',
    benchmark: {path: '/zoo/knn', name: 'knn'},
    split: 'dev',
    solutionSha256: 'a'.repeat(64),
    git: {commit: '1'.repeat(40), dirty: false},
    environment: {fingerprint: '0123456789abcdef'},
    metric: 'speedup',
    score: 1.5,
    interval: [1.4, 1.6],
    status: 'ok',
    seeds: {source: 'published', count: 2},
    cases: [
      {i: 0, status: 'ok', passed: true, seconds: 0.01, ratio: 1.4},
      {i: 1, status: 'ok', passed: true, seconds: 0.02, ratio: 1.6},
    ],
    ...overrides,
  };
}

/** A digest for n in 1..9 whose 12-digit prefix differs too (n repeated). */
export function sha(n: number): string {
  return n.toString(16).repeat(64).slice(0, 64);
}

/** Run git in `cwd` with a local identity and no user or system config; throws on failure. */
export function git(cwd: string, ...args: string[]): string {
  const result = spawnSync('git', ['-c', 'user.name=arbor-test', '-c', 'user.email=test@localhost', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
    env: {...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null'},
  });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

/** A git repository at `root` holding `zoo/<name>/plan.toml` (with `extra` plan lines), committed. */
export function repoWithBenchmark(root: string, name = 'knn', extra = ''): string {
  const dir = path.join(root, 'zoo', name);
  mkdirSync(dir, {recursive: true});
  writeFileSync(path.join(dir, 'plan.toml'), `solution = "solution.py"\n${extra}`);
  writeFileSync(path.join(dir, 'solution.py'), 'def run(state, inputs):\n    return {}\n');
  git(root, 'init', '-q');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'baseline');
  return dir;
}
