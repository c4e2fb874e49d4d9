/**
 * arbor's command line through yargs: every command, --help and --version.
 *
 * Start-up is kept small on purpose: only yargs and the command modules (which
 * import their library code lazily inside their handlers) are loaded here.
 */
import type {CommandModule} from 'yargs';
import yargs from './yargs.js';
import {commands} from './commands/index.js';
import {reportFailure} from './exit.js';
import {checkCommandPath, commandTree, rewordYargsMessage} from './command-tree.js';
import {rewriteFormerJsonFile} from './options.js';
import {UsageError} from '../lib/errors.js';
import {arborVersion} from '../lib/version.js';

/** Build the parser; exported so tests can parse argv without spawning (and with stand-in commands). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function buildCli(argv: string[], registry: CommandModule<any, any>[] = commands) {
  const tree = commandTree(registry);
  let cli = yargs(argv)
    .scriptName('arbor')
    .usage('$0 <command>\n\nManage a benchmark zoo, run testing bundles and gate result packages.')
    .strict()
    .demandCommand(1, 'Missing command: expected one of the commands below.')
    .help()
    .alias('h', 'help')
    // yargs would look for a package.json from the working directory: name arbor's own.
    .version(arborVersion())
    .wrap(Math.min(100, process.stdout.columns || 100))
    .fail((message, error) => {
      // yargs reports some argument errors as a YError rather than a message.
      if (error && error.name !== 'YError') throw error;
      throw new UsageError(rewordYargsMessage(message ?? error?.message ?? 'Invalid arguments', tree, argv));
    });
  for (const command of registry) cli = cli.command(command);
  skipHelpCache(cli as unknown as Parameters<typeof skipHelpCache>[0]);
  return cli;
}

/**
 * yargs lays out the whole help text each time it starts a command handler, to
 * have it ready should the handler fail (about 20 ms, a fifth of start-up).
 * arbor never shows help on failure (the fail handler gives one-line errors),
 * and --help renders it afresh, so the cache is never read: skip filling it.
 */
function skipHelpCache(cli: {getInternalMethods(): {getUsageInstance(): {cacheHelpMessage(): void}}}): void {
  const usage = cli.getInternalMethods().getUsageInstance();
  usage.cacheHelpMessage = () => {};
}

/** Run arbor with these arguments (without `node` and the script). */
export async function main(argv: string[]): Promise<void> {
  try {
    const rewritten = rewriteFormerJsonFile(argv);
    for (const note of rewritten.notes) process.stderr.write(`arbor: ${note}\n`);
    checkCommandPath(commandTree(commands), rewritten.argv);
    await buildCli(rewritten.argv).parseAsync();
  } catch (error) {
    reportFailure(error);
  }
}
