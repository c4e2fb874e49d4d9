/** `arbor benchmark list [zoo]`: index a zoo with each entry's verify status. */
import type {CommandModule} from 'yargs';
import {jsonOption, printJson} from '../options.js';

interface ListArgs {
  zoo?: string;
  json: boolean;
  cache: boolean;
}

/** `arbor benchmark list`: print the index of a zoo. */
export const listCommand: CommandModule<object, ListArgs> = {
  command: 'list [zoo]',
  describe: 'Index the benchmarks of a zoo (default ./arbor-zoo, else ./zoo) with verify status',
  builder: (yargs) =>
    yargs
      .positional('zoo', {type: 'string', describe: 'Zoo folder (default: ./arbor-zoo, else ./zoo)'})
      .option('json', jsonOption)
      .option('cache', {
        type: 'boolean',
        default: true,
        describe: 'Reuse verify results of unchanged folders (--no-cache to verify everything; cache in $ARBOR_CACHE_DIR, $XDG_CACHE_HOME/arbor or ~/.cache/arbor)',
      })
      .example('$0 benchmark list zoo', 'one row per benchmark: name, verify status, first prose line of its README') as never,
  handler: async (args) => {
    const [{listZoo}, {formatList, listJson}] = await Promise.all([import('../../lib/zoo/list.js'), import('../../lib/zoo/report.js')]);
    const result = await listZoo({zoo: args.zoo, cache: args.cache});
    if (args.json) printJson(listJson(result));
    else process.stdout.write(formatList(result, process.stdout.columns || 100));
  },
};
