#!/usr/bin/env node
// Runs every `test/bench/*.bench.mjs` in turn (or those whose name contains
// the first argument). Each benchmark prints its own figures as ratios against
// a reference measured in the same run, because this machine is shared and noisy.
import {readdirSync} from 'node:fs';
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
for (const name of files) {
  console.log(`\n## ${name.replace(/\.bench\.mjs$/, '')}`);
  const result = spawnSync(process.execPath, [path.join(here, name), ...process.argv.slice(3)], {stdio: 'inherit'});
  if (result.status !== 0) process.exitCode = 1;
}
