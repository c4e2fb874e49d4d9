// Precision of speed scores under load: each speed entry's own baseline,
// evaluated BENCH_EVALS times (default 5) on dev while two busy loops load both
// cores, and the spread of its scores (CV, max/min; targets: CV <= 1%,
// max/min <= 1.03). Reference in the same run: the same entry with its
// repetitions fixed at the plan's minimum (precision 1000 stops at once), the
// eval as it ran before adaptive repetitions; the wall time of an adaptive
// eval is printed against it. With BENCH_BUSY=0 (an idle machine) the target is
// the wall time instead: an adaptive eval takes at most 1.5x the fixed one.
// Usage: node test/bench/eval-noise.bench.mjs [entry-dir ...]   (BENCH_EVALS, BENCH_BUSY = number of busy loops, default 2)
import {spawn, spawnSync} from 'node:child_process';
import {cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {target} from './targets.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist/cli/index.js');
const evals = Number(process.env.BENCH_EVALS ?? 5);
const busy = Number(process.env.BENCH_BUSY ?? 2);
const zoo = path.join(root, 'zoo');
const speedEntries = () =>
  readdirSync(zoo)
    .map((name) => path.join(zoo, name))
    .filter((dir) => existsSync(path.join(dir, 'plan.toml')) && /metric = "speedup"/.test(readFileSync(path.join(dir, 'plan.toml'), 'utf8')));
const entries = process.argv.length > 2 ? process.argv.slice(2).map((dir) => path.resolve(dir)) : speedEntries();

const tmp = mkdtempSync(path.join(tmpdir(), 'arbor-bench-noise-'));
const loops = Array.from({length: busy}, () => spawn(process.execPath, ['-e', 'for (;;) {}'], {stdio: 'ignore'}));
const stats = (values) => {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const sd = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, values.length - 1));
  return {mean, cv: sd / mean, ratio: Math.max(...values) / Math.min(...values)};
};
const evaluate = (dir) => {
  const json = path.join(tmp, 'report.json');
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [cli, 'benchmark', 'eval', dir, 'dev', '--quiet', '--json-file', json], {encoding: 'utf8'});
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  if (result.status !== 0) throw new Error(`${dir}: eval failed (exit ${result.status}): ${result.stderr.trim().split('\n').pop()}`);
  const report = JSON.parse(readFileSync(json, 'utf8'));
  return {score: report.score, wall, repetitions: report.repetitions, reached: report.precision?.reached, clock: report.clock};
};
try {
  console.log(
    `${busy} busy loop(s) on ${
      readFileSync('/proc/cpuinfo', 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('processor')).length
    } core(s); ${evals} evals per entry on dev`,
  );
  for (const entry of entries) {
    const name = path.basename(entry);
    // The fixed-repetition reference: a copy whose plan stops at its minimum repetitions.
    const fixed = path.join(tmp, `${name}-fixed`);
    cpSync(entry, fixed, {recursive: true});
    rmSync(path.join(fixed, 'arbor.lock'), {force: true});
    const plan = readFileSync(path.join(fixed, 'plan.toml'), 'utf8').replace(/^precision = .*$/m, 'precision = 1000');
    writeFileSync(
      path.join(fixed, 'plan.toml'),
      plan.includes('precision = 1000') ? plan : plan.replace(/^metric = .*$/m, (line) => `${line}\nprecision = 1000`),
    );
    const adaptive = Array.from({length: evals}, () => evaluate(entry));
    const baseline = Array.from({length: Math.min(3, evals)}, () => evaluate(fixed));
    const s = stats(adaptive.map((r) => r.score));
    const f = stats(baseline.map((r) => r.score));
    const wall = stats(adaptive.map((r) => r.wall)).mean / stats(baseline.map((r) => r.wall)).mean;
    console.log(
      `${name.padEnd(20)} adaptive (${adaptive[0].clock} clock): scores ${adaptive.map((r) => r.score.toFixed(4)).join(' ')}; ` +
        `repetitions ${adaptive.map((r) => r.repetitions).join('/')}, precision reached ${adaptive.filter((r) => r.reached).length}/${evals}; ` +
        `fixed minimum: CV ${(100 * f.cv).toFixed(2)}%, max/min ${f.ratio.toFixed(3)}`,
    );
    if (busy > 0) {
      console.log(
        `${''.padEnd(20)} CV ${(100 * s.cv).toFixed(2)}% ${target(`eval-noise ${name} CV`, 100 * s.cv, '<=', 1, '%')}, max/min ${s.ratio.toFixed(3)} ${target(`eval-noise ${name} max/min`, s.ratio, '<=', 1.03, '')}; wall time ${wall.toFixed(2)}x the fixed eval's`,
      );
    } else {
      console.log(
        `${''.padEnd(20)} CV ${(100 * s.cv).toFixed(2)}%, max/min ${s.ratio.toFixed(3)}; wall time ${wall.toFixed(2)}x the fixed eval's ${target(`eval-noise ${name} idle wall time`, wall, '<=', 1.5)}`,
      );
    }
  }
} finally {
  for (const loop of loops) loop.kill('SIGKILL');
  rmSync(tmp, {recursive: true, force: true});
}
