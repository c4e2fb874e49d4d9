/** `arbor benchmark runs [<benchmark>]`: the run ledger's history. */
import type {CommandModule} from 'yargs';
import {jsonOption, printJson} from '../options.js';

interface RunsArgs {
  benchmark?: string;
  split?: string;
  json: boolean;
  ledger?: string;
}

/** `arbor benchmark runs`: summary (best and latest), runs newest first, test exposure. */
export const runsCommand: CommandModule<object, RunsArgs> = {
  command: 'runs [benchmark]',
  describe: 'List the recorded eval and compare runs: best and latest per split, every run, test exposure',
  builder: (yargs) =>
    yargs
      .positional('benchmark', {type: 'string', describe: 'A benchmark folder (or name) to list; default: every benchmark in the ledger'})
      .option('split', {type: 'string', choices: ['dev', 'test'], requiresArg: true, describe: 'Only runs on this split'})
      .option('ledger', {type: 'string', requiresArg: true, describe: 'The ledger file (default $ARBOR_LEDGER, else .arbor/runs.db at the git root, else beside the benchmark)'})
      .option('json', jsonOption)
      .example('$0 benchmark runs zoo/algotune_knn --split test', "the benchmark's test runs and how many solutions have seen test")
      .epilogue('Exit 0 when the history was listed (an empty or missing ledger included), 1 when the ledger is corrupt or unreadable, 2 for bad usage.') as never,
  handler: async (args) => {
    const {readRuns, formatRuns} = await import('../../lib/ledger/summary.js');
    const report = await readRuns({benchmark: args.benchmark, split: args.split, ledger: args.ledger, withCases: args.json});
    if (args.json) printJson(report);
    else process.stdout.write(formatRuns(report));
  },
};
