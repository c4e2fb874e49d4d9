/** `arbor benchmark lock <dir>...`: write (or check) arbor.lock, the hashes of a benchmark's protected files. */
import type {CommandModule} from 'yargs';
import {UsageError} from '../../lib/errors.js';
import type {ReferenceChecker} from '../../lib/zoo/determinism.js';
import {setExitCode} from '../exit.js';
import {jsonOption, printJson} from '../options.js';

interface LockArgs {
  dir?: string[];
  check: boolean;
  json: boolean;
}

export const lockCommand: CommandModule<object, LockArgs> = {
  command: 'lock [dir..]',
  describe: "Write arbor.lock: the hashes of a benchmark's protected files, which every eval checks",
  builder: (yargs) =>
    yargs
      .positional('dir', {type: 'string', array: true, describe: 'Benchmark folder(s) holding plan.toml'})
      .option('check', {type: 'boolean', default: false, describe: 'Only compare the folder with its arbor.lock (exit 1 when it differs or is missing)'})
      .option('json', jsonOption)
      .example('$0 benchmark lock zoo/algotune_knn', 'after changing its plan, bundle, reference or eval entrypoint on purpose')
      .example('$0 benchmark lock --check zoo/*', 'exit 1 when a protected file differs from its lock')
      .epilogue(
        'Protected files: eval.sh, eval.py, plan.toml, the bundle folder, the reference solver and data/, ' +
          "except the plan's editable files. An eval whose protected files differ from arbor.lock refuses to run (exit 3). " +
          'A folder verify finds unable to run (plan.toml that does not parse or check, a point the bundle lacks, a wrong bundle fingerprint, a bundle that makes different bytes twice, a speedup plan reference that answers different bytes twice or fails the verifier, overlapping seeds, a missing baseline) is refused: nothing is written. ' +
          'Exit 0 written (or, with --check, matching); 1 refused, or (--check) a lock differs or is missing; 2 a folder without plan.toml.',
      ),
  handler: async (args) => {
    const dirs = args.dir ?? [];
    if (dirs.length === 0)
      throw new UsageError('Missing argument for `arbor benchmark lock`: expected one or more benchmark folders, e.g. `arbor benchmark lock zoo/demo`');
    if (!args.check) {
      // Lock makes the bundle's cases twice first (bundle-deterministic): bundle code never shares a process with the test salt (nor the queue key).
      if (await (await import('../../lib/run/door.js')).reranWithoutSecrets()) return;
    }
    const [{lockBenchmark}, {formatFinding}] = await Promise.all([import('../../lib/zoo/lock.js'), import('../../lib/zoo/report.js')]);
    const results = [];
    // The zoo sits below the eval: the reference check, an eval, is handed in, loaded only when a reference runs.
    const checkReference: ReferenceChecker = async (request) => (await import('../../lib/eval/index.js')).checkReference(request);
    for (const dir of dirs) results.push(await lockBenchmark(dir, {check: args.check, checkReference}));
    if (args.json) printJson({locks: results});
    else {
      for (const r of results) {
        if (r.status === 'refused') {
          for (const finding of r.findings ?? []) process.stdout.write(`${formatFinding(finding)}\n`);
          process.stdout.write(`${r.dir}: not locked: fix the error(s) above first (a lock vouches that the eval can run)\n`);
          continue;
        }
        const what =
          r.status === 'written'
            ? `wrote arbor.lock (${r.files} protected files)`
            : r.status === 'ok'
              ? `arbor.lock matches (${r.files} protected files)`
              : r.status === 'missing'
                ? 'no arbor.lock'
                : `differs from arbor.lock: ${r.difference}`;
        process.stdout.write(`${r.dir}: ${what}\n`);
      }
    }
    setExitCode(results.some((r) => r.status !== 'written' && r.status !== 'ok') ? 1 : 0);
  },
};
