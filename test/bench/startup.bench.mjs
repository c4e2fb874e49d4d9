// `arbor --help` start-up time against `node -e 0`, measured side by side.
import {spawnSync} from 'node:child_process';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {target} from './targets.mjs';

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/cli/index.js');
const rounds = Number(process.env.BENCH_ROUNDS ?? 20);

function time(args) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, {stdio: 'ignore'});
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const bare = [];
const help = [];
for (let round = 0; round < rounds; round++) {
  // Alternate so that machine noise hits both sides alike.
  bare.push(time(['-e', '0']));
  help.push(time([cli, '--help']));
}
const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
const bareMs = median(bare);
const helpMs = median(help);
console.log(`node -e 0        ${bareMs.toFixed(1)} ms (median of ${rounds})`);
console.log(`arbor --help     ${helpMs.toFixed(1)} ms`);
console.log(`ratio            ${(helpMs / bareMs).toFixed(2)}x node -e 0 ${target('arbor --help / node -e 0', helpMs / bareMs, '<', 2.5)}`);
