/** `arbor benchmark import algotune <source> <zoo>`: AlgoTune's tasks as zoo entries. */
import type {CommandModule} from 'yargs';
import {setExitCode} from '../exit.js';
import {jsonOption, printJson} from '../options.js';

interface ImportArgs {
  suite: string;
  source: string;
  zoo: string;
  task?: string[];
  preset?: 'lite';
  'target-ms': number;
  jobs: number;
  'allow-weak-validators': boolean;
  unsandboxed: boolean;
  force: boolean;
  json: boolean;
}

export const importCommand: CommandModule<object, ImportArgs> = {
  command: 'import <suite> <source> <zoo>',
  describe: "Import a public suite's tasks as zoo entries (algotune: AlgoTune's AlgoTuneTasks/<task>/<task>.py)",
  builder: (yargs) =>
    yargs
      .positional('suite', {type: 'string', choices: ['algotune'], demandOption: true, describe: 'The suite: algotune'})
      .positional('source', {type: 'string', demandOption: true, describe: 'An AlgoTune checkout (any commit) or its AlgoTuneTasks folder'})
      .positional('zoo', {type: 'string', demandOption: true, describe: 'The zoo folder to write algotune_<task>/ entries into (made when missing)'})
      .option('task', {type: 'string', array: true, describe: 'Only these tasks (AlgoTune names; repeat or list several)'})
      .option('preset', {
        type: 'string',
        choices: ['lite'] as const,
        describe: 'Only the tasks of AlgoTune Lite (15), as the checkout defines it (aws/launch-batch.sh, read, never run); with --task, those tasks as well',
      })
      .option('target-ms', {type: 'number', default: 50, describe: "n is chosen so that the task's own solve takes about this long here (ms)"})
      .option('jobs', {
        type: 'number',
        default: 1,
        describe: 'Tasks imported at once (a pool of N; a line per task as it finishes, the same entries as one at a time)',
      })
      .option('allow-weak-validators', {
        type: 'boolean',
        default: false,
        describe: 'Import a task whose validator accepts an answer that costs nothing (none, empty, zeros, NaN); verify fails it until PROVENANCE says why',
      })
      .option('unsandboxed', {
        type: 'boolean',
        default: false,
        describe: "Where bubblewrap cannot start, run each task's code without the sandbox (else the import refuses)",
      })
      .option('force', {
        type: 'boolean',
        default: false,
        describe: 'Overwrite an entry whose files you changed since the import wrote them (else that task is refused, exit 1)',
      })
      .option('json', jsonOption)
      .example('$0 benchmark import algotune ~/AlgoTune zoo', 'every task this machine can run')
      .example('$0 benchmark import algotune ~/AlgoTune zoo --task kmeans --task qr_factorization', 'two tasks')
      .example('$0 benchmark import algotune ~/AlgoTune zoo --preset lite --jobs 2', "AlgoTune Lite, as the checkout's launcher lists it")
      .epilogue(
        "Each task becomes <zoo>/algotune_<task>: the task's module with arbor's stand-in for AlgoTune's base, a Python bundle whose " +
          'generator, oracle and verifier are the task\'s generate_problem, solve and is_solution, a plan with interface = "solve" ' +
          "(the solution is AlgoTune's Solver().solve(problem)), README and PROVENANCE; every entry is locked. " +
          'A task that cannot be imported (a module missing here, a generator that is not deterministic, a solve its own validator rejects, ' +
          'an answer the object encoding cannot carry, a validator that accepts an answer costing nothing: weak-validator) is skipped with its reason. ' +
          "A task's code runs only in the eval's bubblewrap sandbox (no HOME, network or environment of yours); without one the import refuses unless --unsandboxed. " +
          "Importing again writes nothing when its inputs (the task's files, these options, the interpreter) are unchanged, and refuses an entry " +
          'whose files you changed unless --force. Each task is imported with the first of ARBOR_PYTHON, the python3 on the PATH and /usr/bin/python3 that has its modules; the bundle names it ([entry] python) and the eval uses it. ' +
          'Exit 0 when every task was imported, updated or unchanged; 1 when any was skipped, or no sandbox can start; ' +
          '2 bad usage (no such source or task, a preset the checkout does not define or whose tasks it lacks).',
      ),
  handler: async (args) => {
    const {importAlgoTune} = await import('../../lib/import/algotune.js');
    const {formatImportLine, formatImportSummary} = await import('../../lib/import/format.js');
    const summary = await importAlgoTune(args.source, args.zoo, {
      tasks: args.task,
      preset: args.preset,
      targetMs: args['target-ms'],
      jobs: args.jobs,
      allowWeakValidators: args['allow-weak-validators'],
      unsandboxed: args.unsandboxed,
      force: args.force,
      onTask: (outcome, done, total) => process.stderr.write(`${formatImportLine(outcome, done, total)}\n`),
    });
    if (args.json) printJson(summary);
    else process.stdout.write(formatImportSummary(summary));
    setExitCode(summary.counts.skipped > 0 ? 1 : 0);
  },
};
