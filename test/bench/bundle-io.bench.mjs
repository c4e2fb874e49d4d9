// Codec I/O: `arbor bundle make` and exact-rule `verify` of a large point (2 GiB of
// cases + expected by default) whose generator and oracle are cheap, against raw sequential write
// (`dd if=/dev/zero bs=1M`, page cache) and read (`cat`) of the same bytes, measured in
// this run, with each command's peak RSS. `verify` reads expected/ and out/; `cat` reads the
// same files, so both read the same bytes. `node -e 0` (Node's bare start, measured alongside)
// shows how much of the CLI's time is Node's own start-up, which no Node program avoids. The
// library's verify is also timed on answers wrong in every element (the exact rule's slow path).
import {spawnSync} from 'node:child_process';
import {closeSync, cpSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {target} from './targets.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist/cli/index.js');
const {loadBundle} = await import(path.join(root, 'dist/lib/bundle/index.js'));
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const MIB = 1 << 20;
const N = Number(process.env.BENCH_IO_N ?? 8 * MIB); // f64 elements per tensor: 64 MiB
// 2 GiB: a throughput, not Node's start-up. At 512 MiB (BENCH_IO_CASES=4) `cat` reads the point
// in about half of `node -e 0`'s start, so no Node program, even one that reads nothing, reaches 0.5x.
const CASES = Number(process.env.BENCH_IO_CASES ?? 16);
const tensorBytes = N * 8;
const total = 2 * CASES * tensorBytes; // cases/ + expected/

const work = mkdtempSync(path.join(tmpdir(), 'arbor-bench-io-'));
process.on('exit', () => rmSync(work, {recursive: true, force: true}));
const bundle = path.join(work, 'bundle');
mkdirSync(bundle);
writeFileSync(
  path.join(bundle, 'fherma.toml'),
  `spec = "bench/io@1"\nfingerprint = "x"\n[[point]]\nname = "N"\ntype = "int"\nmin = 1\nmax = 536870912\n` +
    `[[args]]\nname = "x"\ntype = "f64"\ndims = ["N"]\n[[results]]\nname = "y"\ntype = "f64"\ndims = ["N"]\n`,
);
// Authored functions that cost next to nothing: one zero-filled array each, made once per process
// and never written to, so its pages are the kernel's shared zero page (no page faults, no fill):
// the figures are the runtime's own cost (checks, files, manifest), as the issue asks.
writeFileSync(path.join(bundle, 'generate.mjs'), 'let x;\nexport default (p) => ({x: (x ??= new Float64Array(p.N))});\n');
writeFileSync(path.join(bundle, 'oracle.mjs'), 'let y;\nexport default (p) => ({y: (y ??= new Float64Array(p.N))});\n');
const loaded = await loadBundle(bundle, {checkFingerprint: false});
writeFileSync(
  path.join(bundle, 'fherma.toml'),
  readFileSync(path.join(bundle, 'fherma.toml'), 'utf8').replace('fingerprint = "x"', `fingerprint = "${loaded.fingerprint}"`),
);

/**
 * Flush dirty pages first: otherwise whichever command runs right after another's writes waits for
 * the kernel's write-back throttling (measured here: the same 256 MiB `dd` took 0.04 s or 1.07 s
 * depending on what ran before it), and the ratios measure the order of the commands.
 */
const settle = () => spawnSync('sync');

/** Run a command under /usr/bin/time, after `settle`; wall seconds and peak RSS in KiB. */
function timed(command, args) {
  settle();
  const start = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', command, ...args], {encoding: 'utf8', maxBuffer: 1 << 26});
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${r.stderr}`);
  const rss = Number(r.stderr.trim().split('\n').pop());
  return {seconds, rss};
}

// The eval pipeline calls the library in-process: time makeWorkDir / verifyWorkDir alone too.
const libScript = path.join(work, 'lib-call.mjs');
writeFileSync(
  libScript,
  `const lib = await import(${JSON.stringify(path.join(root, 'dist/lib/bundle/index.js'))});
const [bundleDir, dir, action, n, cases] = process.argv.slice(2);
const bundle = await lib.loadBundle(bundleDir);
const start = process.hrtime.bigint();
if (action === 'make') await lib.makeWorkDir(bundle, dir, {N: Number(n)}, Array.from({length: Number(cases)}, (_, i) => i));
else await lib.verifyWorkDir(bundle, dir);
process.stdout.write(String(Number(process.hrtime.bigint() - start) / 1e9));
`,
);
function libCall(action) {
  settle();
  const r = spawnSync(process.execPath, [libScript, bundle, path.join(work, 'lib-w'), action, String(N), String(CASES)], {encoding: 'utf8'});
  if (r.status !== 0) throw new Error(`library ${action} failed: ${r.stderr}`);
  return Number(r.stdout);
}

const dir = path.join(work, 'w');
const raw = path.join(work, 'raw');
// verify, cat and node -e 0 are short: each round times them several times, in turn.
const verifyRepeats = Number(process.env.BENCH_IO_VERIFY_REPEATS ?? 3);
const best = {
  make: Infinity,
  dd: Infinity,
  verify: Infinity,
  cat: Infinity,
  bare: Infinity,
  makeRss: 0,
  verifyRss: 0,
  ddRss: 0,
  bareRss: 0,
  libMake: Infinity,
  libVerify: Infinity,
  libVerifyWrong: Infinity,
};

/** Overwrite every answer in `dir`/out/ with ones (expected/ holds zeros): every element differs. */
function writeAllWrong(dir) {
  const ones = Buffer.from(new Float64Array(MIB / 8).fill(1).buffer);
  for (let i = 0; i < CASES; i++) {
    const fd = openSync(path.join(dir, 'out', String(i).padStart(6, '0'), 'y.bin'), 'w');
    for (let done = 0; done < tensorBytes; done += MIB) writeSync(fd, ones, 0, Math.min(MIB, tensorBytes - done));
    closeSync(fd);
  }
}
for (let round = 0; round < rounds; round++) {
  rmSync(dir, {recursive: true, force: true});
  const make = timed(process.execPath, [cli, 'bundle', bundle, 'make', dir, '--point', JSON.stringify({N}), '--seeds', `0-${CASES - 1}`]);
  best.make = Math.min(best.make, make.seconds);
  best.makeRss = Math.max(best.makeRss, make.rss);

  rmSync(raw, {force: true});
  const dd = timed('dd', ['if=/dev/zero', `of=${raw}`, 'bs=1M', `count=${total / MIB}`, 'status=none']);
  best.dd = Math.min(best.dd, dd.seconds);
  best.ddRss = Math.max(best.ddRss, dd.rss);

  rmSync(path.join(dir, 'out'), {recursive: true, force: true});
  cpSync(path.join(dir, 'expected'), path.join(dir, 'out'), {recursive: true});
  // The files verify reads: each case's expected/ and out/ answer.
  const files = [];
  for (let i = 0; i < CASES; i++) {
    const c = String(i).padStart(6, '0');
    files.push(path.join(dir, 'expected', c, 'y.bin'), path.join(dir, 'out', c, 'y.bin'));
  }
  const catCommand = `cat ${files.map((f) => `'${f}'`).join(' ')} > /dev/null`;
  if (spawnSync('sh', ['-c', catCommand]).status !== 0) throw new Error('cat failed');
  for (let repeat = 0; repeat < verifyRepeats; repeat++) {
    const verify = timed(process.execPath, [cli, 'bundle', bundle, 'verify', dir]);
    best.verify = Math.min(best.verify, verify.seconds);
    best.verifyRss = Math.max(best.verifyRss, verify.rss);
    const verdicts = JSON.parse(readFileSync(path.join(dir, 'verdicts.json'), 'utf8'));
    if (!verdicts.cases.every((v) => v.passed)) throw new Error('verify did not pass the copied answers');
    best.cat = Math.min(best.cat, timed('sh', ['-c', catCommand]).seconds);
    const bare = timed(process.execPath, ['-e', '0']);
    best.bare = Math.min(best.bare, bare.seconds);
    best.bareRss = Math.max(best.bareRss, bare.rss);
  }

  rmSync(path.join(work, 'lib-w'), {recursive: true, force: true});
  best.libMake = Math.min(best.libMake, libCall('make'));
  cpSync(path.join(work, 'lib-w', 'expected'), path.join(work, 'lib-w', 'out'), {recursive: true});
  best.libVerify = Math.min(best.libVerify, libCall('verify'));
  // The same verify of answers wrong in every element: each chunk differs, so the per-element
  // count runs over every byte, and each case names its first wrong element.
  writeAllWrong(path.join(work, 'lib-w'));
  best.libVerifyWrong = Math.min(best.libVerifyWrong, libCall('verify'));
  const wrong = JSON.parse(readFileSync(path.join(work, 'lib-w', 'verdicts.json'), 'utf8')).cases;
  if (!wrong.every((v) => !v.passed && v.metrics.wrong === N && v.metrics.first?.flat === 0)) throw new Error('verify did not fail the wrong answers');
}
const mb = (s) => (total / MIB / s).toFixed(0).padStart(6) + ' MiB/s';
const verifyRead = 2 * CASES * tensorBytes; // expected/ + out/
console.log(`point: ${CASES} cases x (x f64[${N}] + y f64[${N}]) = ${total / MIB} MiB of cases/ + expected/`);
console.log(`verify reads expected/ + out/ (${2 * CASES} files, ${verifyRead / MIB} MiB); cat reads the same ${2 * CASES} files`);
console.log(`arbor bundle make        ${best.make.toFixed(2)} s  ${mb(best.make)}   peak RSS ${(best.makeRss / 1024).toFixed(0)} MiB`);
console.log(`dd if=/dev/zero bs=1M    ${best.dd.toFixed(2)} s  ${mb(best.dd)}`);
console.log(`arbor bundle verify      ${best.verify.toFixed(2)} s  ${mb(best.verify)}   peak RSS ${(best.verifyRss / 1024).toFixed(0)} MiB`);
console.log(`cat expected/ out/       ${best.cat.toFixed(2)} s  ${mb(best.cat)}`);
console.log(`makeWorkDir (library)    ${best.libMake.toFixed(2)} s  ${mb(best.libMake)}   (in-process, as the eval pipeline calls it)`);
console.log(`verifyWorkDir (library)  ${best.libVerify.toFixed(2)} s  ${mb(best.libVerify)}`);
console.log(
  `  every element wrong    ${best.libVerifyWrong.toFixed(2)} s  ${mb(best.libVerifyWrong)}   (each chunk differs: the per-element count and the first wrong element)`,
);
console.log(`node -e 0                ${best.bare.toFixed(2)} s   peak RSS ${(best.bareRss / 1024).toFixed(0)} MiB (Node's start-up alone)`);
console.log(
  `make: arbor CLI / dd write       ${(best.dd / best.make).toFixed(2)}x ${target('bundle make / dd', best.dd / best.make, '>=', 0.5)} (the CLI's node start-up included)`,
);
console.log(`make: library / dd write         ${(best.dd / best.libMake).toFixed(2)}x`);
console.log(`verify: arbor CLI / cat read     ${(best.cat / best.verify).toFixed(2)}x ${target('bundle verify / cat', best.cat / best.verify, '>=', 0.5)}`);
console.log(`verify: library / cat read       ${(best.cat / best.libVerify).toFixed(2)}x`);
console.log(
  `verify: CLI less node -e 0 / cat ${(best.cat / Math.max(best.verify - best.bare, 1e-3)).toFixed(2)}x (arbor's own time: loading, reading, comparing)`,
);
console.log(`ceiling: cat / node -e 0         ${(best.cat / best.bare).toFixed(2)}x (what a Node program that reads nothing would score against cat)`);
console.log(
  `peak RSS / point size      make ${((best.makeRss * 1024) / total).toFixed(2)}, verify ${((best.verifyRss * 1024) / total).toFixed(2)} (one case is ${((2 * tensorBytes) / total).toFixed(2)})`,
);
