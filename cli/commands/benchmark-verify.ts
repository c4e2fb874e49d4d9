/** `arbor benchmark verify <dir>...`: the structural lint of benchmark folders. */
import type {CommandModule} from 'yargs';
import {UsageError} from '../../lib/errors.js';
import {setExitCode} from '../exit.js';
import {jsonOption, printJson} from '../options.js';

interface VerifyArgs {
  dir?: string[];
  json: boolean;
  'list-rules': boolean;
}

/** `arbor benchmark verify`: lint folders, print findings, exit 0/1/2. */
export const verifyCommand: CommandModule<object, VerifyArgs> = {
  command: 'verify [dir..]',
  describe: 'Lint benchmark folders: README, PROVENANCE sections, eval entrypoint, unfilled placeholders',
  builder: (yargs) =>
    yargs
      .positional('dir', {type: 'string', array: true, describe: 'Benchmark folder(s) to verify'})
      .option('json', jsonOption)
      .option('list-rules', {type: 'boolean', default: false, describe: 'List the lint rules and exit'})
      .example('$0 benchmark verify zoo/algotune_knn', 'exit 0 when clean, 1 with findings, 2 when a folder is missing')
      .example('$0 benchmark verify --list-rules', 'the rules verify runs') as never,
  handler: async (args) => {
    if (args['list-rules']) {
      const [{rules}, {formatRules}] = await Promise.all([import('../../lib/zoo/rules/index.js'), import('../../lib/zoo/report.js')]);
      if (args.json) printJson(rules.map((r) => ({id: r.id, severity: r.severity, description: r.description})));
      else process.stdout.write(formatRules(rules));
      return;
    }
    const dirs = args.dir ?? [];
    if (dirs.length === 0)
      throw new UsageError('Missing argument for `arbor benchmark verify`: expected one or more benchmark folders, e.g. `arbor benchmark verify zoo/demo`');
    const [{verifyBenchmarks}, {formatVerify, verifyJson}] = await Promise.all([import('../../lib/zoo/verify.js'), import('../../lib/zoo/report.js')]);
    const result = await verifyBenchmarks(dirs);
    if (args.json) printJson(verifyJson(result));
    else process.stdout.write(formatVerify(result));
    for (const unusable of result.unusable) process.stderr.write(`arbor: ${unusable.problem}\n`);
    setExitCode(result.unusable.length ? 2 : result.errors ? 1 : 0);
  },
};
