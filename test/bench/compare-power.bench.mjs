// A compare's power and its false verdicts, under BENCH_BUSY busy loops (default 2): algotune_knn's
// baseline against itself made 2% slower on the CPU clock (solutions/knn-baseline-slower.py),
// BENCH_SLOWER compares (default 10; target: `worse` in at least 9 of 10), and against an identical
// copy of itself, BENCH_SAME compares (default 20; target: `same` in at least 19 of 20); each
// compare's wall time (target: at most 60 s) and the pairs its confidence sequence took.
// Usage: node test/bench/compare-power.bench.mjs   (BENCH_SLOWER, BENCH_SAME, BENCH_BUSY)
import {spawn, spawnSync} from 'node:child_process';
import {copyFileSync, mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {target} from './targets.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const cli = path.join(root, 'dist/cli/index.js');
const busy = Number(process.env.BENCH_BUSY ?? 2);
const slowerRuns = Number(process.env.BENCH_SLOWER ?? 10);
const sameRuns = Number(process.env.BENCH_SAME ?? 20);
const entry = path.join(root, 'zoo/algotune_knn');

const tmp = mkdtempSync(path.join(tmpdir(), 'arbor-bench-compare-'));
const baseline = path.join(tmp, 'baseline.py');
const identical = path.join(tmp, 'identical.py');
copyFileSync(path.join(entry, 'solution.py'), baseline);
copyFileSync(path.join(entry, 'solution.py'), identical);
const slower = path.join(here, 'solutions/knn-baseline-slower.py');

const compare = (candidate) => {
  const json = path.join(tmp, 'compare.json');
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [cli, 'benchmark', 'compare', entry, baseline, candidate, '--quiet', '--json-file', json], {encoding: 'utf8'});
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  if (result.status !== 0) throw new Error(`compare failed (exit ${result.status}): ${result.stderr.trim().split('\n').pop()}`);
  const report = JSON.parse(readFileSync(json, 'utf8'));
  return {verdict: report.verdict, ratio: report.ratio, pairs: report.sequence?.pairs, wall};
};
const summary = (label, runs, wanted, need) => {
  const hits = runs.filter((run) => run.verdict === wanted).length;
  const slowest = Math.max(...runs.map((run) => run.wall));
  console.log(
    `${label.padEnd(22)} verdicts ${runs.map((run) => run.verdict).join(' ')}; ratios ${runs.map((run) => run.ratio?.toFixed(3)).join(' ')}; pairs ${runs.map((run) => run.pairs).join('/')}; ` +
      `wall ${runs.map((run) => run.wall.toFixed(0)).join('/')} s`,
  );
  console.log(
    `${''.padEnd(22)} ${wanted} ${hits}/${runs.length} ${target(`compare-power ${label} says ${wanted}`, hits / runs.length, '>=', need, '')}, slowest ${slowest.toFixed(1)} s ${target(`compare-power ${label} slowest compare`, slowest, '<=', 60, ' s')}`,
  );
};

const loops = Array.from({length: busy}, () => spawn(process.execPath, ['-e', 'for (;;) {}'], {stdio: 'ignore'}));
try {
  console.log(`${busy} busy loop(s); algotune_knn's baseline against a copy 2% slower (${slowerRuns} compares) and an identical copy (${sameRuns})`);
  const slowerResults = [];
  const sameResults = [];
  // Alternating, so both see the same machine.
  for (let k = 0; k < Math.max(slowerRuns, sameRuns); k++) {
    if (k < slowerRuns) slowerResults.push(compare(slower));
    if (k < sameRuns) sameResults.push(compare(identical));
  }
  if (slowerRuns) summary('2% slower', slowerResults, 'worse', 0.9);
  if (sameRuns) summary('identical', sameResults, 'same', 0.95);
} finally {
  for (const loop of loops) loop.kill('SIGKILL');
  rmSync(tmp, {recursive: true, force: true});
}
