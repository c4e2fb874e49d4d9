// Harness overhead of `bash eval.sh dev`: the wall time of the whole eval minus
// the wall time spent inside the solution and reference processes (from the
// --json report), as a share of the total. Target: under 15% on every entry.
// Entries: the eval test fixtures, and every zoo/* entry with a plan.toml.
// Usage: node test/bench/eval-overhead.bench.mjs [entry-dir ...]   (BENCH_ROUNDS, default 1)
import {spawnSync} from 'node:child_process';
import {existsSync, mkdtempSync, readFileSync, readdirSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {target} from './targets.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist/cli/index.js');
const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
const split = process.env.BENCH_SPLIT ?? 'dev';

const entriesIn = (dir) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => !name.startsWith('_') && !name.startsWith('.') && existsSync(path.join(dir, name, 'plan.toml')))
        .sort()
        .map((name) => path.join(dir, name))
    : [];
const entries =
  process.argv.length > 2
    ? process.argv.slice(2).map((dir) => path.resolve(dir))
    : [...entriesIn(path.join(root, 'test/fixtures/eval')), ...entriesIn(path.join(root, 'zoo'))];

const tmp = mkdtempSync(path.join(tmpdir(), 'arbor-bench-eval-'));
let worst = 0;
try {
  console.log(`split ${split}, ${rounds} round(s); overhead = (eval wall - solution/reference process wall) / eval wall`);
  for (const entry of entries) {
    for (let round = 0; round < rounds; round++) {
      const json = path.join(tmp, 'report.json');
      const start = process.hrtime.bigint();
      const result = spawnSync('bash', [path.join(entry, 'eval.sh'), split, '--quiet', '--json-file', json], {
        encoding: 'utf8',
        cwd: tmp,
        env: {...process.env, ARBOR: cli},
      });
      const wall = Number(process.hrtime.bigint() - start) / 1e9;
      if (result.status !== 0) {
        console.log(`${path.basename(entry).padEnd(22)} eval failed (exit ${result.status}): ${result.stderr.trim().split('\n').pop()}`);
        process.exitCode = 1;
        continue;
      }
      const report = JSON.parse(readFileSync(json, 'utf8'));
      const overhead = (wall - report.processSeconds) / wall;
      worst = Math.max(worst, overhead);
      console.log(
        `${path.basename(entry).padEnd(22)} wall ${wall.toFixed(2)} s, in processes ${report.processSeconds.toFixed(2)} s, ` +
          `harness ${(wall - report.processSeconds).toFixed(2)} s = ${(100 * overhead).toFixed(1)}% (${result.stdout.trim()})`,
      );
    }
  }
  console.log(`worst overhead ${(100 * worst).toFixed(1)}% ${target('eval harness overhead, worst entry', 100 * worst, '<', 15, '%')}`);
} finally {
  rmSync(tmp, {recursive: true, force: true});
}
