#!/usr/bin/env node
/**
 * arbor's command-line entry point.
 *
 * Start-up is kept small on purpose: only yargs and the command modules (which
 * import their library code lazily inside their handlers) are loaded here.
 */
import yargs from './yargs.js';
import {hideBin} from './yargs.js';
import {commands} from './commands/index.js';
import {reportFailure} from './exit.js';
import {checkCommandPath, commandTree, rewordYargsMessage} from './command-tree.js';
import {UsageError} from '../lib/errors.js';

/** Build the parser; exported so tests can parse argv without spawning. */
export function buildCli(argv: string[]) {
  const tree = commandTree(commands);
  let cli = yargs(argv)
    .scriptName('arbor')
    .usage('$0 <command>\n\nManage a benchmark zoo, run testing bundles and gate result packages.')
    .strict()
    .demandCommand(1, 'Missing command: expected one of the commands below.')
    .help()
    .alias('h', 'help')
    .version()
    .wrap(Math.min(100, process.stdout.columns || 100))
    .fail((message, error) => {
      // yargs reports some argument errors as a YError rather than a message.
      if (error && error.name !== 'YError') throw error;
      throw new UsageError(rewordYargsMessage(message ?? error?.message ?? 'Invalid arguments', tree, argv));
    });
  for (const command of commands) cli = cli.command(command);
  return cli;
}

/** Run arbor with these arguments (without `node` and the script). */
export async function main(argv: string[]): Promise<void> {
  try {
    checkCommandPath(commandTree(commands), argv);
    await buildCli(argv).parseAsync();
  } catch (error) {
    reportFailure(error);
  }
}

await main(hideBin(process.argv));
