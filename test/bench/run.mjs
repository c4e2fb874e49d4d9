#!/usr/bin/env node
// Runs every `test/bench/*.bench.mjs` in turn (or those whose name contains
// the first argument). Each benchmark prints its own figures as ratios against
// a reference measured in the same run, because this machine is shared and noisy.
import {existsSync, mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {spawnSync} from 'node:child_process';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2] ?? '';
const files = readdirSync(here)
  .filter((name) => name.endsWith('.bench.mjs') && name.includes(filter))
  .sort();
if (files.length === 0) {
  console.error(`No benchmark matches "${filter}" in test/bench/.`);
  process.exitCode = 2;
}
// Each benchmark records the targets it misses here (see targets.mjs); they are listed at the end.
const scratch = mkdtempSync(path.join(tmpdir(), 'arbor-bench-'));
const misses = path.join(scratch, 'misses.txt');
const started = Date.now();
for (const name of files) {
  console.log(`\n## ${name.replace(/\.bench\.mjs$/, '')}`);
  const result = spawnSync(process.execPath, [path.join(here, name), ...process.argv.slice(3)], {
    stdio: 'inherit',
    env: {...process.env, BENCH_MISSES_FILE: misses},
  });
  if (result.status !== 0) process.exitCode = 1;
}
const missed = existsSync(misses) ? readFileSync(misses, 'utf8').trim().split('\n') : [];
rmSync(scratch, {recursive: true, force: true});
console.log(`\n## targets (${((Date.now() - started) / 1000).toFixed(0)} s)`);
console.log(missed.length ? `${missed.length} missed:\n${missed.map((line) => `  ${line}`).join('\n')}` : 'every target checked was met');
