#!/usr/bin/env node
/**
 * arbor's command-line entry point.
 *
 * Start-up is kept small on purpose: only yargs and the command modules (which
 * import their library code lazily inside their handlers) are loaded here.
 */
import yargs from 'yargs';
import {hideBin} from 'yargs/helpers';
import {commands} from './commands/index.js';
import {reportFailure} from './exit.js';

/** Build the parser; exported so tests can parse argv without spawning. */
export function buildCli(argv: string[]) {
  let cli = yargs(argv)
    .scriptName('arbor')
    .usage('$0 <command>\n\nManage a benchmark zoo, run testing bundles and gate result packages.')
    .strict()
    .demandCommand(1, 'Missing command: expected one of the commands below.')
    .recommendCommands()
    .help()
    .alias('h', 'help')
    .version()
    .wrap(Math.min(100, process.stdout.columns || 100))
    .fail((message, error) => {
      throw error ?? Object.assign(new Error(message), {name: 'YError'});
    });
  for (const command of commands) cli = cli.command(command);
  return cli;
}

try {
  await buildCli(hideBin(process.argv)).parseAsync();
} catch (error) {
  reportFailure(error);
}
