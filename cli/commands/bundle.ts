/**
 * `arbor bundle <bundle-dir> make | verify | info | fingerprint`: the bundle protocol.
 *
 * yargs looks for a subcommand right after its parent's name, but here the bundle
 * folder comes first (`arbor bundle <bundle-dir>` is the protocol's "whatever
 * starts the program"). So this is one command with an action positional; the
 * builder reads which action was asked for to print that action's own --help.
 */
import type {Argv, CommandModule} from 'yargs';
import {hideBin} from '../yargs.js';
import {ACTIONS, runBundleAction, type BundleArgv} from './bundle-action.js';

const ALL_OPTIONS = ['point', 'seeds', 'check', 'write'];

/** The action word of `... bundle <bundle-dir> <action>` in the raw arguments, if any. */
function requestedAction(raw: string[]): string | undefined {
  const start = raw.indexOf('bundle');
  if (start < 0) return undefined;
  const positionals: string[] = [];
  for (let k = start + 1; k < raw.length; k++) {
    const token = raw[k]!;
    if (token === '--') break;
    if (token.startsWith('-')) {
      if ((token === '--point' || token === '--seeds') && k + 1 < raw.length) k++;
      continue;
    }
    positionals.push(token);
  }
  return positionals[1];
}

export const bundleCommand: CommandModule<object, BundleArgv> = {
  command: 'bundle <bundle-dir> [command] [dir]',
  describe: 'Run a testing bundle: make, verify, info, fingerprint',
  builder: (yargs: Argv) => {
    const action = ACTIONS[requestedAction(hideBin(process.argv)) ?? ''];
    const shown = new Set(action ? action.options : ALL_OPTIONS);
    let y = yargs
      .positional('bundle-dir', {type: 'string', demandOption: true, describe: 'The bundle folder (holds fherma.toml)'})
      .positional('command', {type: 'string', describe: 'make, verify, info or fingerprint'})
      .positional('dir', {type: 'string', describe: 'The work directory (make, verify)'})
      .option('point', {
        type: 'string',
        hidden: !shown.has('point'),
        describe: `make: the point as a JSON object, e.g. '{"N": 1024}'`,
      })
      .option('seeds', {
        type: 'string',
        hidden: !shown.has('seeds'),
        describe: 'make: seeds as a range 0-7, a list 0,3,5, or a mix 0-2,7,9',
      })
      .option('check', {
        type: 'boolean',
        default: false,
        hidden: !shown.has('check'),
        describe: 'fingerprint: exit 1 when fherma.toml holds another fingerprint',
      })
      .option('write', {
        type: 'boolean',
        default: false,
        hidden: !shown.has('write'),
        describe: "fingerprint: write the signature's fingerprint into fherma.toml",
      });
    if (action) {
      y = y.usage(`${action.usage}\n\n${action.describe}`);
    } else {
      y = y.usage(
        '$0 bundle <bundle-dir> <command>\n\nRun a testing bundle (the bundle protocol).\n\nCommands:\n' +
          Object.values(ACTIONS)
            .map((a) => `  ${a.usage.replace('$0 ', 'arbor ')}`)
            .join('\n') +
          '\n\nRun `arbor bundle <bundle-dir> <command> --help` for one command.',
      );
    }
    if (!action || action === ACTIONS.make) {
      y = y.example(
        `$0 bundle zoo/algotune_knn/bundle make /tmp/w --point '{"N": 1000, "Q": 10, "D": 8, "K": 5}' --seeds 0-2,7`,
        'four cases, numbered 000000-000003',
      );
    }
    return y as unknown as Argv<BundleArgv>;
  },
  handler: (argv) => runBundleAction(argv),
};
