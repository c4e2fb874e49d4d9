// Per-case overhead: 10,000 tiny cases (the sort-exact fixture at N = 1) made and verified
// through the CLI, in cases per second, against a bare Node loop that creates the same
// folders and files (mkdir + writeFileSync per file) and reads them back, measured in this run.
import {spawnSync} from 'node:child_process';
import {cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist/cli/index.js');
const bundle = path.join(root, 'test/fixtures/bundle/sort-exact');
const CASES = Number(process.env.BENCH_CASES ?? 10_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const work = mkdtempSync(path.join(tmpdir(), 'arbor-bench-cases-'));
process.on('exit', () => rmSync(work, {recursive: true, force: true}));

function seconds(fn) {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

function run(args) {
  const r = spawnSync(process.execPath, [cli, ...args], {encoding: 'utf8'});
  if (r.status !== 0) throw new Error(`arbor ${args.join(' ')} failed: ${r.stderr}`);
}

const dir = path.join(work, 'w');
const bare = path.join(work, 'bare');
const best = {make: Infinity, verify: Infinity, bareWrite: Infinity, bareRead: Infinity};
for (let round = 0; round < rounds; round++) {
  rmSync(dir, {recursive: true, force: true});
  best.make = Math.min(
    best.make,
    seconds(() => run(['bundle', bundle, 'make', dir, '--point', '{"N": 1}', '--seeds', `0-${CASES - 1}`])),
  );
  cpSync(path.join(dir, 'expected'), path.join(dir, 'out'), {recursive: true});
  best.verify = Math.min(
    best.verify,
    seconds(() => run(['bundle', bundle, 'verify', dir])),
  );
  const verdicts = JSON.parse(readFileSync(path.join(dir, 'verdicts.json'), 'utf8'));
  if (verdicts.cases.length !== CASES || !verdicts.cases.every((v) => v.passed)) throw new Error('unexpected verdicts');

  rmSync(bare, {recursive: true, force: true});
  const payload = new Uint8Array(8);
  best.bareWrite = Math.min(
    best.bareWrite,
    seconds(() => {
      for (const side of ['cases', 'expected']) mkdirSync(path.join(bare, side), {recursive: true});
      for (let i = 0; i < CASES; i++) {
        const c = String(i).padStart(6, '0');
        mkdirSync(path.join(bare, 'cases', c));
        writeFileSync(path.join(bare, 'cases', c, 'x.bin'), payload);
        mkdirSync(path.join(bare, 'expected', c));
        writeFileSync(path.join(bare, 'expected', c, 'y.bin'), payload);
      }
      writeFileSync(path.join(bare, 'manifest.json'), '{}');
    }),
  );
  best.bareRead = Math.min(
    best.bareRead,
    seconds(() => {
      for (let i = 0; i < CASES; i++) {
        const c = String(i).padStart(6, '0');
        readFileSync(path.join(bare, 'cases', c, 'x.bin'));
        readFileSync(path.join(bare, 'expected', c, 'y.bin'));
      }
      writeFileSync(path.join(bare, 'verdicts.json'), '{}');
    }),
  );
}
const rate = (s) => (CASES / s).toFixed(0).padStart(7) + ' cases/s';
console.log(`${CASES} cases of sort-exact at N = 1 (one 8-byte file per side per case)`);
console.log(`arbor bundle make (CLI, incl. start-up)    ${best.make.toFixed(2)} s ${rate(best.make)}`);
console.log(`bare node: mkdir + write the same files    ${best.bareWrite.toFixed(2)} s ${rate(best.bareWrite)}`);
console.log(`arbor bundle verify (CLI, incl. start-up)  ${best.verify.toFixed(2)} s ${rate(best.verify)}`);
console.log(`bare node: read two files per case         ${best.bareRead.toFixed(2)} s ${rate(best.bareRead)}`);
console.log(`make: arbor / bare     ${(best.bareWrite / best.make).toFixed(2)}x`);
console.log(`verify: arbor / bare   ${(best.bareRead / best.verify).toFixed(2)}x`);
