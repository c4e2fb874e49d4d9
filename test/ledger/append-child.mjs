// A separate process appending runs: `node append-child.mjs <ledger> <name> <count>`.
// It opens the ledger, says `ready`, waits for a line on stdin, then appends
// <count> runs (each its own transaction) for benchmark <name> and says `done`.
import {openLedger} from '../../dist/lib/ledger/index.js';

const [file, name, count] = process.argv.slice(2);
const ledger = openLedger(file);
process.stdout.write('ready\n');
process.stdin.once('data', () => {
  for (let i = 0; i < Number(count); i++) {
    ledger.appendRun({
      kind: 'eval',
      benchmark: {path: `/zoo/${name}`, name},
      split: 'dev',
      solutionSha256: null,
      git: null,
      environment: {fingerprint: 'f'.repeat(16)},
      metric: 'speedup',
      score: i,
      interval: null,
      status: 'ok',
      seeds: {source: 'published', count: 1},
      cases: [{i: 0, writer: name, n: i}],
    });
  }
  ledger.close();
  process.stdout.write('done\n');
  process.stdin.destroy();
});
