/** `arbor benchmark checkout <benchmark> <dest>`: copy, git init, commit the baseline. */
import type {CommandModule} from 'yargs';
import {jsonOption, printJson} from '../options.js';

interface CheckoutArgs {
  benchmark: string;
  dest: string;
  json: boolean;
}

/** `arbor benchmark checkout`: copy, git init, commit; print where it went. */
export const checkoutCommand: CommandModule<object, CheckoutArgs> = {
  command: 'checkout <benchmark> <dest>',
  describe: 'Copy a benchmark to <dest>, git init and commit it as the baseline',
  builder: (yargs) =>
    yargs
      .positional('benchmark', {type: 'string', demandOption: true, describe: 'Benchmark folder (or a name in ./arbor-zoo or ./zoo)'})
      .positional('dest', {type: 'string', demandOption: true, describe: 'New folder to create (refused when it exists and is not empty)'})
      .option('json', jsonOption)
      .example('$0 benchmark checkout zoo/algotune_knn /tmp/knn', 'then `cd /tmp/knn && arbor`') as never,
  handler: async (args) => {
    const {checkoutBenchmark} = await import('../../lib/zoo/checkout.js');
    const {existsSync} = await import('node:fs');
    const path = await import('node:path');
    const result = await checkoutBenchmark(args.benchmark, args.dest);
    if (args.json) {
      printJson(result);
      return;
    }
    const identity = result.identitySet ? ' (no git identity was configured: set a local one, arbor <arbor@localhost>)' : '';
    process.stdout.write(
      `Checked out ${result.benchmark} to ${result.dest}: ${result.files} files, baseline commit ${result.commit.slice(0, 12)}${identity}.\n` +
        `Next: cd ${result.dest} && ${existsSync(path.join(result.dest, 'eval.sh')) || !existsSync(path.join(result.dest, 'eval.py')) ? 'bash eval.sh dev' : 'python3 eval.py --split dev'}\n`,
    );
  },
};
