/** `arbor benchmark checkout <benchmark> <dest>`: copy, git init, commit the baseline. */
import {existsSync} from 'node:fs';
import path from 'node:path';
import type {CommandModule} from 'yargs';
import {jsonOption, printJson} from '../options.js';

/**
 * The command that evaluates a checkout, exactly as it can be pasted: naming this arbor
 * (`ARBOR=`) when the checkout's eval entrypoint would not find one by itself.
 */
async function nextStep(dest: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const {arborCliPath, entrypointFindsArbor, shellWord} = await import('../../lib/invocation.js');
  const command = existsSync(path.join(dest, 'eval.sh')) || !existsSync(path.join(dest, 'eval.py')) ? 'bash eval.sh dev' : 'python3 eval.py --split dev';
  const run = entrypointFindsArbor(dest, env) ? command : `ARBOR=${shellWord(arborCliPath())} ${command}`;
  return `cd ${shellWord(dest)} && ${run}`;
}

interface CheckoutArgs {
  benchmark: string;
  dest: string;
  json: boolean;
}

/** `arbor benchmark checkout`: copy, git init, commit; print where it went. */
export const checkoutCommand: CommandModule<object, CheckoutArgs> = {
  command: 'checkout <benchmark> <dest>',
  describe: "Copy a benchmark to <dest>, git init and commit it as the baseline (a path split's test data is left out: it is sealed)",
  builder: (yargs) =>
    yargs
      .positional('benchmark', {type: 'string', demandOption: true, describe: 'Benchmark folder (or a name in ./arbor-zoo or ./zoo)'})
      .positional('dest', {type: 'string', demandOption: true, describe: 'New folder to create (refused when it exists and is not empty)'})
      .option('json', jsonOption)
      .example('$0 benchmark checkout zoo/algotune_knn /tmp/knn', 'then run the "Next:" line it prints (cd /tmp/knn && bash eval.sh dev)'),
  handler: async (args) => {
    const {checkoutBenchmark} = await import('../../lib/zoo/checkout.js');
    const result = await checkoutBenchmark(args.benchmark, args.dest);
    if (args.json) {
      printJson(result);
      return;
    }
    const identity = result.identitySet ? ' (no git identity was configured: set a local one, arbor <arbor@localhost>)' : '';
    const sealed = result.sealedTestData
      ? `The test data (${result.sealedTestData.folder}, ${result.sealedTestData.files} files) was left out: it is sealed; evaluate test with --data DIR or ARBOR_TEST_DATA naming a copy of it.\n`
      : '';
    process.stdout.write(
      `Checked out ${result.benchmark} to ${result.dest}: ${result.files} files, baseline commit ${result.commit.slice(0, 12)}${identity}.\n` +
        sealed +
        `Next: ${await nextStep(result.dest)}\n`,
    );
  },
};
