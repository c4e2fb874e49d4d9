// Stream throughput (MB/s of bytes()) in small draws and in one large draw, against a
// straightforward Python stream (hashlib per block, test/fixtures/bundle/stream.py) and
// against `openssl speed -bytes 32 sha256` (the one-core limit for 32-byte hashes), all
// measured in this run. Also: the large draw on one thread vs the worker split, and a
// check that throughput does not fall with the draw size (no quadratic behaviour).
import {spawnSync} from 'node:child_process';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {target} from './targets.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const {Stream} = await import(path.join(root, 'dist/lib/bundle/stream.js'));
const parallel = await import(path.join(root, 'dist/lib/bundle/stream-parallel.js'));
const python = path.join(root, 'test/fixtures/bundle/stream.py');
const SPEC = 'zoo/algotune_knn@1.0.0';
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const SMALL = 8; // bytes per draw in the small-draw case
const SMALL_TOTAL = 8 << 20;
const LARGE = 64 << 20;

function pythonSeconds(total, chunk) {
  const r = spawnSync('python3', [python, 'bench', SPEC, '7', String(total), String(chunk)], {encoding: 'utf8'});
  if (r.status !== 0) throw new Error(`python stream bench failed: ${r.stderr}`);
  return Number(r.stdout.trim());
}

function tsSeconds(total, chunk, {threads} = {}) {
  const saved = parallel.setParallelism?.(threads ?? undefined);
  const stream = new Stream(SPEC, 7);
  const start = process.hrtime.bigint();
  if (chunk >= total) stream.bytes(total);
  else for (let done = 0; done < total; done += chunk) stream.bytes(chunk);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (saved !== undefined) parallel.setParallelism(saved);
  return seconds;
}

function opensslMBs() {
  const r = spawnSync('openssl', ['speed', '-seconds', '2', '-bytes', '32', 'sha256'], {encoding: 'utf8'});
  const line = (r.stdout ?? '').split('\n').find((l) => /^sha256\s/.test(l));
  if (!line) return undefined;
  const kb = Number(line.trim().split(/\s+/).pop().replace(/k$/, ''));
  return (kb * 1000) / 1e6;
}

const best = {pySmall: Infinity, pyLarge: Infinity, tsSmall: Infinity, tsLarge1: Infinity, tsLarge: Infinity, tsHuge: Infinity};
for (let round = 0; round < rounds; round++) {
  // Alternate so that machine noise hits every side alike.
  best.pySmall = Math.min(best.pySmall, pythonSeconds(SMALL_TOTAL / 4, SMALL) * 4);
  best.tsSmall = Math.min(best.tsSmall, tsSeconds(SMALL_TOTAL, SMALL));
  best.pyLarge = Math.min(best.pyLarge, pythonSeconds(LARGE / 2, LARGE / 2) * 2);
  best.tsLarge1 = Math.min(best.tsLarge1, tsSeconds(LARGE, LARGE, {threads: 1}));
  best.tsLarge = Math.min(best.tsLarge, tsSeconds(LARGE, LARGE));
  best.tsHuge = Math.min(best.tsHuge, tsSeconds(LARGE * 4, LARGE * 4) / 4);
}
const openssl = opensslMBs();
const mbs = (bytes, s) => bytes / s / 1e6;
const rows = [
  ['python stream, bytes(8) draws', mbs(SMALL_TOTAL, best.pySmall)],
  ['arbor stream, bytes(8) draws', mbs(SMALL_TOTAL, best.tsSmall)],
  ['python stream, one 64 MiB draw', mbs(LARGE, best.pyLarge)],
  ['arbor stream, one 64 MiB draw, 1 thread', mbs(LARGE, best.tsLarge1)],
  ['arbor stream, one 64 MiB draw', mbs(LARGE, best.tsLarge)],
  ['arbor stream, one 256 MiB draw', mbs(LARGE, best.tsHuge)],
];
if (openssl) rows.push(['openssl speed -bytes 32 sha256 (1 core)', openssl]);
for (const [name, v] of rows) console.log(`${name.padEnd(44)} ${v.toFixed(1).padStart(8)} MB/s`);
const r = (a, b) => (a / b).toFixed(2) + 'x';
console.log(
  `small draws: arbor / python            ${r(best.pySmall, best.tsSmall)} ${target('stream small draws / python', best.pySmall / best.tsSmall, '>=', 3)}`,
);
console.log(
  `large draw, 1 thread: arbor / python   ${r(best.pyLarge, best.tsLarge1)} ${target('stream large draw, 1 thread / python', best.pyLarge / best.tsLarge1, '>=', 3)}`,
);
console.log(`large draw: arbor / python             ${r(best.pyLarge, best.tsLarge)}`);
if (openssl) console.log(`large draw: arbor / openssl 1 core     ${r(mbs(LARGE, best.tsLarge), openssl)}`);
console.log(`256 MiB draw vs 64 MiB draw, per byte ${r(best.tsLarge, best.tsHuge)} (>= about 1x: no slowdown with size)`);
