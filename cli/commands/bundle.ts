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
import {UsageError} from '../../lib/errors.js';

interface Action {
  usage: string;
  describe: string;
  options: string[];
  takesDir: boolean;
}

const ACTIONS: Record<string, Action> = {
  make: {
    usage: `$0 bundle <bundle-dir> make <dir> --point '<json>' --seeds <spec>`,
    describe:
      'Fill <dir> for one point: for each seed in order, generate -> cases/NNNNNN/, oracle -> expected/NNNNNN/; ' +
      'manifest.json is written last. An old work directory in <dir> is replaced (manifest first; out/ and verdicts.json are removed).',
    options: ['point', 'seeds'],
    takesDir: true,
  },
  verify: {
    usage: '$0 bundle <bundle-dir> verify <dir>',
    describe:
      'Check out/NNNNNN/ against expected/NNNNNN/ for every case of the manifest and write verdicts.json. ' +
      'Exit 0 whatever the verdicts; non-zero only when the bundle cannot run.',
    options: [],
    takesDir: true,
  },
  info: {
    usage: '$0 bundle <bundle-dir> info',
    describe: 'Print the signature as one JSON object: spec, fingerprint, point parameters, arguments, results, verifier.',
    options: [],
    takesDir: false,
  },
  fingerprint: {
    usage: '$0 bundle <bundle-dir> fingerprint [--check]',
    describe: "Print the signature's fingerprint: the value fherma.toml's `fingerprint` must hold.",
    options: ['check'],
    takesDir: false,
  },
};

const ALL_OPTIONS = ['point', 'seeds', 'check'];

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

interface BundleArgv {
  bundleDir: string;
  command?: string;
  dir?: string;
  point?: string;
  seeds?: string;
  check: boolean;
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
      y = y.example(`$0 bundle zoo/sort/bundle make /tmp/w --point '{"N": 1000}' --seeds 0-2,7`, 'four cases, numbered 000000-000003');
    }
    return y as unknown as Argv<BundleArgv>;
  },
  handler: async (argv) => {
    if (argv.command === undefined) {
      throw new UsageError('Missing bundle command: expected make, verify, info or fingerprint after the bundle folder');
    }
    const action = Object.hasOwn(ACTIONS, argv.command) ? ACTIONS[argv.command] : undefined;
    if (!action) {
      const near = Object.keys(ACTIONS).find((name) => name.startsWith(argv.command!.slice(0, 2)));
      throw new UsageError(
        `unknown bundle command \`${argv.command}\`, expected make, verify, info or fingerprint${near ? ` (did you mean ${near}?)` : ''}`,
      );
    }
    if (action.takesDir && !argv.dir) throw new UsageError(`${argv.command} needs a work directory: ${action.usage.replace('$0', 'arbor')}`);
    if (!action.takesDir && argv.dir !== undefined) throw new UsageError(`${argv.command} takes no work directory, got ${argv.dir}`);
    for (const option of ['point', 'seeds'] as const) {
      if (argv[option] !== undefined && !action.options.includes(option)) throw new UsageError(`--${option} applies to make only`);
      if (Array.isArray(argv[option])) throw new UsageError(`--${option} is given more than once; pass it once`);
    }
    if (argv.check && !action.options.includes('check')) throw new UsageError('--check applies to fingerprint only');
    const lib = await import('../../lib/bundle/index.js');
    switch (argv.command) {
      case 'make': {
        if (argv.point === undefined) throw new UsageError(`make needs --point '<json>', e.g. --point '{"N": 1024}'`);
        if (argv.seeds === undefined) throw new UsageError('make needs --seeds, e.g. --seeds 0-7');
        const bundle = await lib.loadBundle(argv.bundleDir);
        const point = lib.parsePoint(bundle, argv.point);
        const seeds = lib.parseSeeds(argv.seeds);
        const {cases} = await lib.makeWorkDir(bundle, argv.dir!, point, seeds);
        process.stderr.write(`arbor: made ${cases} case${cases === 1 ? '' : 's'} in ${argv.dir}\n`);
        return;
      }
      case 'verify': {
        const bundle = await lib.loadBundle(argv.bundleDir);
        const verdicts = await lib.verifyWorkDir(bundle, argv.dir!);
        const passed = verdicts.cases.filter((v) => v.passed).length;
        process.stderr.write(`arbor: ${passed} of ${verdicts.cases.length} cases passed; verdicts in ${argv.dir}/verdicts.json\n`);
        return;
      }
      case 'info': {
        const bundle = await lib.loadBundle(argv.bundleDir);
        process.stdout.write(JSON.stringify(lib.bundleInfo(bundle)) + '\n');
        return;
      }
      case 'fingerprint': {
        const bundle = await lib.loadBundle(argv.bundleDir, {checkFingerprint: false});
        process.stdout.write(bundle.fingerprint + '\n');
        if (bundle.markerFingerprint !== bundle.fingerprint) {
          const found = bundle.markerFingerprint === undefined ? 'has no fingerprint' : `says ${bundle.markerFingerprint}`;
          const message = `${argv.bundleDir}/fherma.toml ${found}; write fingerprint = "${bundle.fingerprint}"`;
          if (argv.check) throw new lib.BundleError(message, 'fingerprint');
          process.stderr.write(`arbor: note: ${message}\n`);
        }
        return;
      }
    }
  },
};
