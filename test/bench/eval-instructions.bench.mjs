// The instructions clock against the cpu clock: one speed entry (default: the
// test fixture prefix-instructions; or the folders given) evaluated BENCH_EVALS
// times (default 3) on dev with clock = "instructions" and as many times with
// clock = "cpu", each copy with its repetitions fixed at the plan's minimum
// (precision 1000), so both clocks make the same runs. Prints the spread of
// each clock's scores (CV, max/min; target for the instructions clock: max/min
// 1, it is deterministic) and the wall time of an instructions eval over a cpu
// eval's (valgrind's cost). Skips where valgrind is missing.
// Usage: node test/bench/eval-instructions.bench.mjs [entry-dir ...]   (BENCH_EVALS)
import {spawnSync} from 'node:child_process';
import {cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {target} from './targets.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist/cli/index.js');
const evals = Number(process.env.BENCH_EVALS ?? 3);
const entries = process.argv.length > 2 ? process.argv.slice(2).map((dir) => path.resolve(dir)) : [path.join(root, 'test/fixtures/eval/prefix-instructions')];

if (spawnSync('valgrind', ['--version']).status !== 0) {
  console.log('valgrind is not installed: skipped');
  process.exit(0);
}
const tmp = mkdtempSync(path.join(tmpdir(), 'arbor-bench-instructions-'));
const stats = (values) => {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const sd = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, values.length - 1));
  return {mean, cv: sd / mean, ratio: Math.max(...values) / Math.min(...values)};
};
/** A copy of the entry on `clock`, stopping at its minimum repetitions. */
const copyOn = (entry, clock) => {
  const dir = path.join(tmp, `${path.basename(entry)}-${clock}`);
  cpSync(entry, dir, {recursive: true});
  rmSync(path.join(dir, 'arbor.lock'), {force: true});
  let plan = readFileSync(path.join(dir, 'plan.toml'), 'utf8')
    .replace(/^clock = .*$/m, '')
    .replace(/^precision = .*$/m, '');
  plan = plan.replace(/^metric = .*$/m, (line) => `${line}\nclock = "${clock}"\nprecision = 1000`);
  writeFileSync(path.join(dir, 'plan.toml'), plan);
  return dir;
};
const evaluate = (dir) => {
  const json = path.join(tmp, 'report.json');
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [cli, 'benchmark', 'eval', dir, 'dev', '--quiet', '--json-file', json], {encoding: 'utf8'});
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  if (result.status !== 0) throw new Error(`${dir}: eval failed (exit ${result.status}): ${result.stderr.trim().split('\n').pop()}`);
  const report = JSON.parse(readFileSync(json, 'utf8'));
  return {score: report.score, wall, repetitions: report.repetitions, clock: report.clock};
};
try {
  for (const entry of entries) {
    const name = path.basename(entry);
    const counted = copyOn(entry, 'instructions');
    const timed = copyOn(entry, 'cpu');
    // Interleaved, so a slow phase of the machine falls on both clocks.
    const runs = {instructions: [], cpu: []};
    for (let k = 0; k < evals; k++) {
      runs.instructions.push(evaluate(counted));
      runs.cpu.push(evaluate(timed));
    }
    for (const [clock, results] of Object.entries(runs)) {
      const s = stats(results.map((r) => r.score));
      const check = clock === 'instructions' ? ` ${target(`${name} instructions max/min`, s.ratio, '<=', 1)}` : '';
      console.log(
        `${name} ${clock.padEnd(12)} (${results[0].clock} clock, ${results[0].repetitions} repetitions): scores ${results.map((r) => r.score.toPrecision(8)).join(' ')}; ` +
          `CV ${(100 * s.cv).toFixed(3)}%, max/min ${s.ratio.toFixed(4)}${check}; wall ${stats(results.map((r) => r.wall)).mean.toFixed(1)} s per eval`,
      );
    }
    const ratio = stats(runs.instructions.map((r) => r.wall)).mean / stats(runs.cpu.map((r) => r.wall)).mean;
    console.log(`${name} wall time per eval, instructions / cpu: ${ratio.toFixed(1)}x`);
  }
} finally {
  rmSync(tmp, {recursive: true, force: true});
}
