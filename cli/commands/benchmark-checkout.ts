/** `arbor benchmark checkout <benchmark> <dest>`: copy, git init, commit the baseline. */
import {accessSync, constants, existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import type {CommandModule} from 'yargs';
import {jsonOption, printJson} from '../options.js';

/** A word for a POSIX shell: as is when it is plain, else in single quotes. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Whether a checkout's eval.sh will find arbor by itself: it tries $ARBOR, then an arbor
 * checkout among its folder's ancestors, then `arbor` on the PATH (see templates/eval-sh/eval.sh; eval.py does the same).
 */
function evalFindsArbor(dest: string, env: NodeJS.ProcessEnv): boolean {
  if (env.ARBOR) return true;
  for (let dir = path.resolve(dest); ; dir = path.dirname(dir)) {
    try {
      if (existsSync(path.join(dir, 'dist/cli/index.js')) && readFileSync(path.join(dir, 'package.json'), 'utf8').includes('"name": "arbor"')) return true;
    } catch {
      // not here
    }
    if (path.dirname(dir) === dir) break;
  }
  for (const folder of (env.PATH ?? '').split(path.delimiter)) {
    if (!folder) continue;
    try {
      accessSync(path.join(folder, 'arbor'), constants.X_OK);
      return true;
    } catch {
      // not here
    }
  }
  return false;
}

/** The command that evaluates a checkout, exactly as it can be pasted: naming this arbor when eval.sh would not find one. */
export function nextStep(dest: string, env: NodeJS.ProcessEnv = process.env): string {
  const command = existsSync(path.join(dest, 'eval.sh')) || !existsSync(path.join(dest, 'eval.py')) ? 'bash eval.sh dev' : 'python3 eval.py --split dev';
  const run = evalFindsArbor(dest, env) ? command : `ARBOR=${shellWord(fileURLToPath(new URL('../index.js', import.meta.url)))} ${command}`;
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
  describe: 'Copy a benchmark to <dest>, git init and commit it as the baseline',
  builder: (yargs) =>
    yargs
      .positional('benchmark', {type: 'string', demandOption: true, describe: 'Benchmark folder (or a name in ./arbor-zoo or ./zoo)'})
      .positional('dest', {type: 'string', demandOption: true, describe: 'New folder to create (refused when it exists and is not empty)'})
      .option('json', jsonOption)
      .example('$0 benchmark checkout zoo/algotune_knn /tmp/knn', 'then run the "Next:" line it prints (cd /tmp/knn && bash eval.sh dev)') as never,
  handler: async (args) => {
    const {checkoutBenchmark} = await import('../../lib/zoo/checkout.js');
    const result = await checkoutBenchmark(args.benchmark, args.dest);
    if (args.json) {
      printJson(result);
      return;
    }
    const identity = result.identitySet ? ' (no git identity was configured: set a local one, arbor <arbor@localhost>)' : '';
    process.stdout.write(
      `Checked out ${result.benchmark} to ${result.dest}: ${result.files} files, baseline commit ${result.commit.slice(0, 12)}${identity}.\n` +
        `Next: ${nextStep(result.dest)}\n`,
    );
  },
};
