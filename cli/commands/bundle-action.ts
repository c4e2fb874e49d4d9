/**
 * The bundle protocol's actions (make, verify, info, fingerprint) and what runs them, apart from
 * yargs: the yargs command (bundle.ts) and the entry point's direct route for the protocol's own
 * argument form (cli/protocol-call.ts) share them, so both run exactly the same checks and code.
 */
import {UsageError} from '../../lib/errors.js';
import type {MakeProgress} from '../../lib/bundle/workdir.js';
import {stderr, stdout} from '../stdio.js';

export interface Action {
  usage: string;
  describe: string;
  options: string[];
  takesDir: boolean;
}

export const ACTIONS: Record<string, Action> = {
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
    usage: '$0 bundle <bundle-dir> fingerprint [--check | --write]',
    describe:
      "Print the signature's fingerprint: the value fherma.toml's `fingerprint` must hold. --write sets it in fherma.toml (after a signature change made on purpose).",
    options: ['check', 'write'],
    takesDir: false,
  },
};

/** The parsed arguments of `arbor bundle <bundle-dir> [command] [dir] [--point] [--seeds] [--check]`. */
export interface BundleArgv {
  bundleDir: string;
  command?: string;
  dir?: string;
  point?: string;
  seeds?: string;
  check: boolean;
  /** fingerprint: write the signature's fingerprint into fherma.toml. */
  write?: boolean;
}

/** Check the arguments and run the action; throws an ArborError for the user (exit.ts words it). */
export async function runBundleAction(argv: BundleArgv): Promise<void> {
  if (argv.command === undefined) {
    throw new UsageError('Missing bundle command: expected make, verify, info or fingerprint after the bundle folder');
  }
  const action = Object.hasOwn(ACTIONS, argv.command) ? ACTIONS[argv.command] : undefined;
  if (!action) {
    const near = Object.keys(ACTIONS).find((name) => name.startsWith(argv.command!.slice(0, 2)));
    throw new UsageError(`unknown bundle command \`${argv.command}\`, expected make, verify, info or fingerprint${near ? ` (did you mean ${near}?)` : ''}`);
  }
  if (action.takesDir && !argv.dir) throw new UsageError(`${argv.command} needs a work directory: ${action.usage.replace('$0', 'arbor')}`);
  if (!action.takesDir && argv.dir !== undefined) throw new UsageError(`${argv.command} takes no work directory, got ${argv.dir}`);
  for (const option of ['point', 'seeds'] as const) {
    if (argv[option] !== undefined && !action.options.includes(option)) throw new UsageError(`--${option} applies to make only`);
    if (Array.isArray(argv[option])) throw new UsageError(`--${option} is given more than once; pass it once`);
  }
  if (argv.check && !action.options.includes('check')) throw new UsageError('--check applies to fingerprint only');
  if (argv.write && !action.options.includes('write')) throw new UsageError('--write applies to fingerprint only');
  if (argv.check && argv.write) throw new UsageError('--check and --write exclude each other: --check only compares, --write sets the fingerprint');
  const lib = await bundleRuntime();
  switch (argv.command) {
    case 'make': {
      if (argv.point === undefined) throw new UsageError(`make needs --point '<json>', e.g. --point '{"N": 1024}'`);
      if (argv.seeds === undefined) throw new UsageError('make needs --seeds, e.g. --seeds 0-7');
      const bundle = await lib.loadBundle(argv.bundleDir);
      const point = lib.parsePoint(bundle, argv.point);
      const seeds = lib.parseSeedList(argv.seeds);
      const {cases} = await lib.makeWorkDir(bundle, argv.dir!, point, seeds, {progress: makeProgressPrinter(stderr)});
      stderr.write(`arbor: made ${cases} case${cases === 1 ? '' : 's'} in ${argv.dir}\n`);
      return;
    }
    case 'verify': {
      const bundle = await lib.loadBundle(argv.bundleDir);
      const verdicts = await lib.verifyWorkDir(bundle, argv.dir!);
      const passed = verdicts.cases.filter((v) => v.passed).length;
      stderr.write(`arbor: ${passed} of ${verdicts.cases.length} cases passed; verdicts in ${argv.dir}/verdicts.json\n`);
      return;
    }
    case 'info': {
      const bundle = await lib.loadBundle(argv.bundleDir);
      stdout.write(JSON.stringify(lib.bundleInfo(bundle)) + '\n');
      return;
    }
    case 'fingerprint': {
      if (argv.write) {
        const {fingerprint, changed} = lib.writeFingerprint(argv.bundleDir);
        stdout.write(fingerprint + '\n');
        stderr.write(
          changed
            ? `arbor: wrote fingerprint = "${fingerprint}" into ${argv.bundleDir}/fherma.toml; ${await relockLine(argv.bundleDir)}\n`
            : `arbor: ${argv.bundleDir}/fherma.toml already holds this fingerprint\n`,
        );
        return;
      }
      const bundle = await lib.loadBundle(argv.bundleDir, {checkFingerprint: false});
      stdout.write(bundle.fingerprint + '\n');
      if (bundle.markerFingerprint !== bundle.fingerprint) {
        const found = bundle.markerFingerprint === undefined ? 'has no fingerprint' : `says ${bundle.markerFingerprint}`;
        const message = `${argv.bundleDir}/fherma.toml ${found}; write fingerprint = "${bundle.fingerprint}" (--write does)`;
        if (argv.check) throw new lib.BundleError(message, 'fingerprint');
        stderr.write(`arbor: note: ${message}\n`);
      }
      return;
    }
  }
}

/** Seconds of silence before make starts saying where it is, and between its lines. */
const PROGRESS_AFTER_MS = 1000;

/**
 * Progress for a make that takes a while: nothing for the first second (a small point says only
 * "made N cases"), then at most one line a second, `arbor: make: case 3 of 8, oracle (1.2 GiB of
 * 2.0 GiB written)`, rewritten in place on a terminal.
 */
function makeProgressPrinter(stream: {readonly isTTY?: boolean; write(text: string): unknown}, now: () => number = Date.now): (step: MakeProgress) => void {
  const start = now();
  let last = start;
  let shown = false;
  const gib = (n: number) => (n >= 2 ** 30 ? `${(n / 2 ** 30).toFixed(1)} GiB` : n >= 2 ** 20 ? `${(n / 2 ** 20).toFixed(1)} MiB` : `${n} bytes`);
  return (step) => {
    const t = now();
    if (step.step === 'done') {
      if (shown && stream.isTTY) stream.write('\n');
      return;
    }
    if (t - start < PROGRESS_AFTER_MS || (shown && t - last < PROGRESS_AFTER_MS)) return;
    last = t;
    shown = true;
    const line = `arbor: make: case ${step.case + 1} of ${step.cases}, ${step.step} (${gib(step.bytesWritten)} of ${gib(step.bytesTotal)} written)`;
    stream.write(stream.isTTY ? `\r\x1b[K${line}` : `${line}\n`);
  };
}

/**
 * The runtime modules the actions use. Not the package index: it also loads the random stream
 * (SHA-256 kernels, worker threads), which only make needs, and make imports it itself.
 */
async function bundleRuntime() {
  const [bundle, point, workdir, errors] = await Promise.all([
    import('../../lib/bundle/bundle.js'),
    import('../../lib/bundle/point.js'),
    import('../../lib/bundle/workdir.js'),
    import('../../lib/bundle/errors.js'),
  ]);
  return {...bundle, ...point, ...workdir, ...errors};
}

/**
 * What to run after a fingerprint changed: the lock of the benchmark holding the bundle, as it can be
 * pasted here when the bundle's parent folder is that benchmark (it has a plan.toml), else in general.
 */
async function relockLine(bundleDir: string): Promise<string> {
  const [{existsSync}, path, {arborCommand, shellWord}] = await Promise.all([import('node:fs'), import('node:path'), import('../../lib/invocation.js')]);
  const benchmark = path.dirname(path.resolve(bundleDir));
  if (!existsSync(path.join(benchmark, 'plan.toml'))) return 'lock the benchmark again (arbor benchmark lock <benchmark>)';
  return `lock the benchmark again: ${arborCommand()} benchmark lock ${shellWord(path.relative(process.cwd(), benchmark) || '.')}`;
}
