/** `arbor benchmark scaffold <dir>`: write or fill a benchmark folder from the templates. */
import type {CommandModule} from 'yargs';
import {jsonOption, printJson} from '../options.js';

interface ScaffoldArgs {
  dir: string;
  style: string;
  entrypoint: string;
  direction: string;
  'split-kind': string;
  edit: string[];
  name?: string;
  'bundle-lang': string;
  'allow-underscore': boolean;
  json: boolean;
}

/** `arbor benchmark scaffold`: write the missing files, keep the existing ones, print the next steps. */
export const scaffoldCommand: CommandModule<object, ScaffoldArgs> = {
  command: 'scaffold <dir>',
  describe: 'Write a benchmark folder from the templates, or fill in the files an existing folder lacks (never overwrites)',
  builder: (yargs) =>
    yargs
      .positional('dir', {type: 'string', demandOption: true, describe: 'Benchmark folder, new or existing'})
      .option('style', {type: 'string', default: 'zoo', describe: 'light: eval entrypoint, plan.toml, bundle skeleton and editable baseline; zoo: also README.md and PROVENANCE.md'})
      .option('entrypoint', {type: 'string', default: 'eval.sh', describe: 'eval.sh (`bash eval.sh dev|test`) or eval.py (`python3 eval.py --split dev|test`); both run `arbor benchmark eval`'})
      .option('direction', {type: 'string', default: 'maximize', describe: 'maximize or minimize: README says higher or lower is better; minimize is written into plan.toml'})
      .option('split-kind', {type: 'string', default: 'seed_range', describe: 'seed_range (cases generated from disjoint seeds) or path (cases are files under data/dev/ and data/test/)'})
      .option('edit', {type: 'string', array: true, default: ['solution.py'], describe: 'The files an agent may edit (README and plan.toml `editable`); the first is the solution module'})
      .option('name', {type: 'string', describe: 'Benchmark name, [a-z0-9][a-z0-9_-]* (default: the folder name)'})
      .option('bundle-lang', {type: 'string', default: 'js', describe: 'Language of the bundle skeleton: js (generate.mjs, oracle.mjs) or py (generate.py, oracle.py)'})
      .option('allow-underscore', {type: 'boolean', default: false, describe: 'Allow a name starting with `_` (scaffolding that list skips)'})
      .option('json', jsonOption)
      .example('$0 benchmark scaffold zoo/my_task', 'then fill in every TODO(arbor) placeholder')
      .example('$0 benchmark scaffold . --style light --name my_task --edit kernel.py', 'turn the current folder into a benchmark') as never,
  handler: async (args) => {
    const {scaffoldBenchmark} = await import('../../lib/zoo/scaffold.js');
    const result = await scaffoldBenchmark(args.dir, {
      style: args.style,
      entrypoint: args.entrypoint,
      direction: args.direction,
      splitKind: args['split-kind'],
      edit: args.edit,
      name: args.name,
      bundleLang: args['bundle-lang'],
      allowUnderscore: args['allow-underscore'],
    });
    if (args.json) {
      printJson(result);
      return;
    }
    const files = [...new Set(result.placeholders.map((p) => p.file))];
    const run = result.entrypoint === 'eval.sh' ? `bash ${result.dir}/eval.sh dev` : `python3 ${result.dir}/eval.py --split dev`;
    const steps = [
      result.placeholders.length > 0 ? `Replace the ${result.placeholders.length} \`TODO(arbor): …\` placeholders in ${files.join(', ')} with your own text.` : undefined,
      `Write the baseline (${result.editable[0]}), the testing bundle (bundle/) and the eval plan (plan.toml).`,
      result.created.includes('arbor.lock')
        ? `After each change to a protected file (plan.toml, bundle/, reference.py, the eval entrypoint), run \`arbor benchmark lock ${result.dir}\`: an eval whose protected files differ from arbor.lock scores 0.0.`
        : undefined,
      result.splitKind === 'path' ? 'Put the dev and test cases in data/dev/ and data/test/, one made work directory per subfolder.' : undefined,
      result.style === 'zoo'
        ? `Run \`arbor benchmark verify ${result.dir}\` until it exits 0; then a maintainer reviews and accepts it.`
        : `Run \`${run}\` for a score; \`arbor benchmark verify ${result.dir}\` lists what a zoo entry still needs (README.md, PROVENANCE.md).`,
    ].filter((step): step is string => step !== undefined);
    const wrote = result.created.length > 0 ? `wrote ${result.created.join(', ')}` : 'wrote nothing';
    const kept = result.skipped.length > 0 ? `; kept the existing ${result.skipped.join(', ')}` : '';
    process.stdout.write(
      [`Scaffolded ${result.dir} (style ${result.style}): ${wrote}${kept}.`, 'Next steps:', ...steps.map((step, k) => `  ${k + 1}. ${step}`), ''].join('\n'),
    );
  },
};
