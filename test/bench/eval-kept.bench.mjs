// Verdicts in seconds: the dev eval of fast solutions with runs kept across repetitions (the
// default) against a fresh run every repetition (ARBOR_REPETITIONS_PER_RUN=1, the eval as it ran
// before), evaluated alternately BENCH_EVALS times each (default 5) while BENCH_BUSY busy loops
// (default 2) load both cores: wall time per eval (target: kept <= 0.5x fresh), the scores' CV and
// max/min (targets: CV <= 2%, max/min <= 1.06) and how many evals' 95% intervals hold the median
// of their scores (target: at least 4 of 5).
// With BENCH_PUBLIC_ARBOR=<a clone of github:sub4biz/Arbor (a work tree or a bare git folder)>,
// the public Arbor harness's own arbor-zoo/algotune_knn/eval.sh runs BENCH_EVALS times too, with
// a matrix-product solution of this bench's (solutions/knn-public-gemm.py), in the same
// alternation: its wall time and CV, and arbor's kept eval's wall time over it (target <= 2x).
// Usage: node test/bench/eval-kept.bench.mjs   (BENCH_EVALS, BENCH_BUSY, BENCH_PUBLIC_ARBOR)
import {spawn, spawnSync} from 'node:child_process';
import {copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {target} from './targets.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const cli = path.join(root, 'dist/cli/index.js');
const evals = Number(process.env.BENCH_EVALS ?? 5);
const busy = Number(process.env.BENCH_BUSY ?? 2);
const pairs = [
  ['algotune_knn', 'knn-matmul.py'],
  ['polymul_negacyclic', 'polymul-fft.py'],
];

const tmp = mkdtempSync(path.join(tmpdir(), 'arbor-bench-kept-'));
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const spread = (values) => {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const sd = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, values.length - 1));
  return {mean, cv: sd / mean, ratio: Math.max(...values) / Math.min(...values)};
};
const seconds = (work) => {
  const start = process.hrtime.bigint();
  const result = work();
  return {...result, wall: Number(process.hrtime.bigint() - start) / 1e9};
};
const evaluate = (entry, solution, perRun) =>
  seconds(() => {
    const json = path.join(tmp, 'report.json');
    const env = {...process.env, ...(perRun ? {ARBOR_REPETITIONS_PER_RUN: String(perRun)} : {})};
    const result = spawnSync(
      process.execPath,
      [cli, 'benchmark', 'eval', path.join(root, 'zoo', entry), 'dev', '--quiet', '--json-file', json, '--solution', path.join(here, 'solutions', solution)],
      {encoding: 'utf8', env},
    );
    if (result.status !== 0) throw new Error(`${entry} with ${solution}: eval failed (exit ${result.status}): ${result.stderr.trim().split('\n').pop()}`);
    return {report: JSON.parse(readFileSync(json, 'utf8'))};
  });

/** The public harness's kNN entry, copied out of a clone (work tree or bare), with this bench's solution in place; or undefined. */
function publicEntry() {
  const source = process.env.BENCH_PUBLIC_ARBOR;
  if (!source) return undefined;
  const dir = path.join(tmp, 'public');
  mkdirSync(dir);
  const tree = path.join(source, 'arbor-zoo/algotune_knn');
  if (existsSync(tree)) spawnSync('cp', ['-r', tree, dir]);
  else {
    const archive = spawnSync('git', ['--git-dir', source, 'archive', 'HEAD', 'arbor-zoo/algotune_knn'], {maxBuffer: 1 << 26});
    if (archive.status !== 0) throw new Error(`BENCH_PUBLIC_ARBOR=${source}: neither a work tree with arbor-zoo/algotune_knn nor a git folder that has it`);
    spawnSync('tar', ['-x', '-C', dir], {input: archive.stdout});
  }
  const entry = existsSync(path.join(dir, 'algotune_knn')) ? path.join(dir, 'algotune_knn') : path.join(dir, 'arbor-zoo/algotune_knn');
  copyFileSync(path.join(here, 'solutions/knn-public-gemm.py'), path.join(entry, 'solution.py'));
  return entry;
}
const runPublic = (entry) =>
  seconds(() => {
    const result = spawnSync('bash', [path.join(entry, 'eval.sh'), 'dev'], {cwd: entry, encoding: 'utf8'});
    const score = Number(/^score: (\S+)$/m.exec(result.stdout)?.[1]);
    if (result.status !== 0 || !(score > 0))
      throw new Error(`the public harness failed (exit ${result.status}): ${(result.stderr || result.stdout).trim().split('\n').pop()}`);
    return {score};
  });

const loops = Array.from({length: busy}, () => spawn(process.execPath, ['-e', 'for (;;) {}'], {stdio: 'ignore'}));
try {
  console.log(`${busy} busy loop(s); ${evals} evals of each fast solution on dev, kept runs and fresh runs alternating`);
  const publicKnn = publicEntry();
  for (const [entry, solution] of pairs) {
    const kept = [];
    const fresh = [];
    const outside = [];
    for (let k = 0; k < evals; k++) {
      kept.push(evaluate(entry, solution));
      fresh.push(evaluate(entry, solution, 1));
      if (publicKnn && entry === 'algotune_knn') outside.push(runPublic(publicKnn));
    }
    for (const [label, runs] of [
      ['kept', kept],
      ['fresh', fresh],
    ]) {
      const scores = runs.map((run) => run.report.score);
      const middle = median(scores);
      const held = runs.filter(({report}) => report.interval[0] <= middle && middle <= report.interval[1]).length;
      const {cv, ratio} = spread(scores);
      const name = `eval-kept ${solution} ${label}`;
      const checks =
        label === 'kept'
          ? `CV ${(100 * cv).toFixed(2)}% ${target(`${name} CV`, 100 * cv, '<=', 2, '%')}, max/min ${ratio.toFixed(3)} ${target(`${name} max/min`, ratio, '<=', 1.06, '')}, ` +
            `intervals holding the median ${held}/${evals} ${target(`${name} intervals holding the median`, held, '>=', Math.ceil(0.8 * evals), '')}`
          : `CV ${(100 * cv).toFixed(2)}%, max/min ${ratio.toFixed(3)}, intervals holding the median ${held}/${evals}`;
      console.log(
        `${`${solution} ${label}`.padEnd(24)} on ${entry}: wall ${spread(runs.map((run) => run.wall)).mean.toFixed(1)} s; scores ${scores.map((score) => score.toFixed(2)).join(' ')}; ` +
          `repetitions ${runs.map((run) => run.report.repetitions).join('/')}, runs ${runs.map((run) => run.report.runs).join('/')}; ${checks}`,
      );
    }
    const wall = spread(kept.map((run) => run.wall)).mean / spread(fresh.map((run) => run.wall)).mean;
    console.log(`${''.padEnd(24)} kept / fresh wall time ${wall.toFixed(2)}x ${target(`eval-kept ${solution} wall time kept / fresh`, wall, '<=', 0.5)}`);
    if (outside.length) {
      const scores = outside.map((run) => run.score);
      const {cv, ratio, mean} = spread(outside.map((run) => run.wall));
      const s = spread(scores);
      const against = spread(kept.map((run) => run.wall)).mean / mean;
      console.log(
        `${'public harness'.padEnd(24)} on its algotune_knn: wall ${mean.toFixed(1)} s (CV ${(100 * cv).toFixed(1)}%, max/min ${ratio.toFixed(2)}); scores ${scores.map((score) => score.toFixed(2)).join(' ')} ` +
          `(CV ${(100 * s.cv).toFixed(1)}%, max/min ${s.ratio.toFixed(2)}); arbor's kept eval takes ${against.toFixed(2)}x its wall time ${target('eval-kept arbor over the public harness, wall time', against, '<=', 2)}`,
      );
    } else if (entry === 'algotune_knn') console.log(`${''.padEnd(24)} (the public harness: set BENCH_PUBLIC_ARBOR to a clone of github:sub4biz/Arbor)`);
  }
} finally {
  for (const loop of loops) loop.kill('SIGKILL');
  rmSync(tmp, {recursive: true, force: true});
}
