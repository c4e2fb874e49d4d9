/** `arbor benchmark scaffold <dir>`: write or fill a benchmark folder from the templates. */
import {existsSync} from 'node:fs';
import path from 'node:path';
import type {CommandModule} from 'yargs';
import {jsonOption, printJson} from '../options.js';

interface ScaffoldArgs {
  dir: string;
  style: string;
  entrypoint: string;
  direction: string;
  'split-kind': string;
  metric?: string;
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
      .option('style', {
        type: 'string',
        default: 'zoo',
        describe: 'light: eval entrypoint, plan.toml, bundle skeleton and editable baseline; zoo: also README.md and PROVENANCE.md',
      })
      .option('entrypoint', {
        type: 'string',
        default: 'eval.sh',
        describe: 'eval.sh (`bash eval.sh dev|test`) or eval.py (`python3 eval.py --split dev|test`); both run `arbor benchmark eval`',
      })
      .option('direction', {
        type: 'string',
        default: 'maximize',
        describe: 'maximize or minimize: README says higher or lower is better; minimize is written into plan.toml',
      })
      .option('split-kind', {
        type: 'string',
        default: 'seed_range',
        describe: 'seed_range (cases generated from disjoint seeds) or path (cases are files under data/dev/ and data/test/)',
      })
      .option('metric', {
        type: 'string',
        describe:
          "speedup (timed against reference.py) or accuracy (the bundle verifier scores each answer; no reference); default: the metric of the folder's plan.toml, else accuracy for --split-kind path or --direction minimize, else speedup",
      })
      .option('edit', {
        type: 'string',
        array: true,
        default: ['solution.py'],
        describe: 'The files an agent may edit (README and plan.toml `editable`); the first is the solution module',
      })
      .option('name', {type: 'string', describe: 'Benchmark name, [a-z0-9][a-z0-9_-]* (default: the folder name)'})
      .option('bundle-lang', {
        type: 'string',
        default: 'js',
        describe: 'Language of the bundle skeleton: js (generate.mjs, oracle.mjs) or py (generate.py, oracle.py)',
      })
      .option('allow-underscore', {type: 'boolean', default: false, describe: 'Allow a name starting with `_` (scaffolding that list skips)'})
      .option('json', jsonOption)
      .example('$0 benchmark scaffold zoo/my_task', 'then fill in every TODO(arbor) placeholder')
      .example('$0 benchmark scaffold zoo/my_task --split-kind path', 'cases are files under data/; scored by accuracy')
      .example('$0 benchmark scaffold . --style light --name my_task --edit kernel.py', 'turn the current folder into a benchmark'),
  handler: async (args) => {
    const {scaffoldBenchmark} = await import('../../lib/zoo/scaffold.js');
    const result = await scaffoldBenchmark(args.dir, {
      style: args.style,
      entrypoint: args.entrypoint,
      direction: args.direction,
      splitKind: args['split-kind'],
      metric: args.metric,
      edit: args.edit,
      name: args.name,
      bundleLang: args['bundle-lang'],
      allowUnderscore: args['allow-underscore'],
    });
    if (args.json) {
      printJson(result);
      return;
    }
    const {arborCommand, entrypointFindsArbor, arborCliPath, shellWord} = await import('../../lib/invocation.js');
    const arbor = arborCommand();
    const dir = shellWord(result.dir);
    // The entrypoint the folder has: a kept one may not be the one asked for.
    const entrypoint = existsSync(path.resolve(result.dir, result.entrypoint)) ? result.entrypoint : result.entrypoint === 'eval.sh' ? 'eval.py' : 'eval.sh';
    const entry = shellWord(path.join(result.dir, entrypoint));
    const run = `${entrypointFindsArbor(path.resolve(result.dir)) ? '' : `ARBOR=${shellWord(arborCliPath())} `}${entrypoint === 'eval.sh' ? `bash ${entry} dev` : `python3 ${entry} --split dev`}`;
    const files = [...new Set(result.placeholders.map((p) => p.file))];
    const protectedFiles = `plan.toml, bundle/, ${result.metric === 'speedup' ? 'reference.py, ' : ''}the eval entrypoint`;
    const steps = [
      result.placeholders.length > 0
        ? `Replace the ${result.placeholders.length} \`TODO(arbor): …\` placeholders in ${files.join(', ')} with your own text.`
        : undefined,
      `Write the baseline (${result.editable[0]}), the testing bundle (bundle/${result.metric === 'accuracy' ? ', whose verifier scores each answer' : ''}) and the eval plan (plan.toml).`,
      result.lockStale
        ? `Run \`${arbor} benchmark lock ${dir}\` now: the folder's arbor.lock does not cover the protected files just written, and an eval whose protected files differ from it refuses to run.`
        : result.created.includes('arbor.lock')
          ? `After each change to a protected file (${protectedFiles}), run \`${arbor} benchmark lock ${dir}\`: an eval whose protected files differ from arbor.lock refuses to run (exit 3).`
          : undefined,
      result.splitKind === 'path' ? dataStep(arbor, result.dir, shellWord) : undefined,
      // A zoo entry is verified before its first score (verify says whether the eval can run at all); a light folder is scored first.
      result.style === 'zoo' ? `Run \`${arbor} benchmark verify ${dir}\` until it exits 0.` : undefined,
      `Run \`${run}\` for a score (0.0 until the baseline solves the task)${result.style === 'zoo' ? '; then a maintainer reviews and accepts the entry' : ''}.`,
      result.style === 'zoo' ? undefined : `\`${arbor} benchmark verify ${dir}\` lists what a zoo entry still needs (README.md, PROVENANCE.md).`,
    ].filter((step): step is string => step !== undefined);
    const wrote = result.created.length > 0 ? `wrote ${result.created.join(', ')}` : 'wrote nothing';
    const kept = result.skipped.length > 0 ? `; kept the existing ${result.skipped.join(', ')}` : '';
    const withheld =
      result.withheld.length > 0
        ? `; left out ${result.withheld.join(', ')}, which the author removed from the locked folder (delete its line in ${result.dir}/.arbor-scaffold to have it written again)`
        : '';
    process.stdout.write(
      [
        `Scaffolded ${result.dir} (style ${result.style}, metric ${result.metric}): ${wrote}${kept}${withheld}.`,
        'Next steps:',
        ...steps.map((step, k) => `  ${k + 1}. ${step}`),
        '',
      ].join('\n'),
    );
  },
};

/** The data step of a path split: where the cases go, and the commands that make a first set from the bundle's generator. */
function dataStep(arbor: string, dir: string, shellWord: (text: string) => string): string {
  const make = (split: string, seeds: string) =>
    `\`${arbor} bundle ${shellWord(path.join(dir, 'bundle'))} make ${shellWord(path.join(dir, 'data', split, 'generated'))} --point '{"N": 1000}' --seeds ${seeds}\``;
  return (
    'Put the dev and test cases in data/dev/ and data/test/, one made work directory per subfolder; ' +
    `to start from the generator's cases, run ${make('dev', '0-3')} and ${make('test', '1000-1003')}, then \`${arbor} benchmark lock ${shellWord(dir)}\`.`
  );
}
