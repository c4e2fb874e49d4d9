/** `arbor benchmark scaffold <dir>`: write a new benchmark folder from a template. */
import type {CommandModule} from 'yargs';
import {jsonOption, printJson} from '../options.js';

interface ScaffoldArgs {
  dir: string;
  style: string;
  'allow-underscore': boolean;
  json: boolean;
}

/** `arbor benchmark scaffold`: write a new folder and print the next steps. */
export const scaffoldCommand: CommandModule<object, ScaffoldArgs> = {
  command: 'scaffold <dir>',
  describe: 'Write a new benchmark folder from templates/<style>/ (never overwrites)',
  builder: (yargs) =>
    yargs
      .positional('dir', {type: 'string', demandOption: true, describe: 'New benchmark folder; its name must match [a-z0-9][a-z0-9_-]*'})
      .option('style', {type: 'string', default: 'zoo', describe: 'Template style: a folder under templates/'})
      .option('allow-underscore', {type: 'boolean', default: false, describe: 'Allow a name starting with `_` (scaffolding that list skips)'})
      .option('json', jsonOption)
      .example('$0 benchmark scaffold zoo/my_task', 'then fill in every TODO(arbor) placeholder') as never,
  handler: async (args) => {
    const {scaffoldBenchmark} = await import('../../lib/zoo/scaffold.js');
    const result = scaffoldBenchmark(args.dir, {style: args.style, allowUnderscore: args['allow-underscore']});
    if (args.json) {
      printJson(result);
      return;
    }
    const files = [...new Set(result.placeholders.map((p) => p.file))];
    process.stdout.write(
      [
        `Scaffolded ${result.dir} (style ${result.style}): ${result.files.join(', ')}.`,
        'Next steps:',
        `  1. Replace the ${result.placeholders.length} \`TODO(arbor): …\` placeholders in ${files.join(', ') || 'the files'} with your own text.`,
        `  2. Write the baseline (solution.py), the testing bundle (bundle/) and the eval plan (plan.toml).`,
        `  3. Run \`arbor benchmark verify ${result.dir}\` until it exits 0; then a maintainer reviews and accepts it.`,
        '',
      ].join('\n'),
    );
  },
};
