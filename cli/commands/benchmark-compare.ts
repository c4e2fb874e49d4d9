/** `arbor benchmark compare <benchmark> <baseline> <candidate>`: is the candidate really better? */
import type {CommandModule} from 'yargs';
import {UsageError} from '../../lib/errors.js';
import {printJson} from '../options.js';

interface CompareArgs {
  benchmark: string;
  baseline?: string;
  candidate?: string;
  split: string;
  json: boolean;
  jsonFile?: string;
  package?: string;
  baselineRun?: number;
  ledger?: string;
  quiet: boolean;
  keep: boolean;
  unsandboxed: boolean;
  label?: string;
}

export const compareCommand: CommandModule<object, CompareArgs> = {
  command: 'compare <benchmark> [baseline] [candidate]',
  describe: 'Run two solutions in one eval (same cases, interleaved) and say whether the candidate is better, worse or the same',
  builder: (yargs) =>
    yargs
      .positional('benchmark', {type: 'string', demandOption: true, describe: 'The benchmark folder (holding plan.toml)'})
      .positional('baseline', {
        type: 'string',
        describe: "A solution file, a folder of editable files, or a git revision (the plan's editable files at that commit)",
      })
      .positional('candidate', {type: 'string', describe: 'The same kinds as baseline'})
      .option('split', {type: 'string', choices: ['dev', 'test'], default: 'dev', requiresArg: true, describe: 'The split both run on'})
      .option('json', {
        type: 'boolean',
        default: false,
        describe: 'Print the comparison (verdict, ratio, ci, cases, environment, both eval reports) as JSON on stdout; the text goes to stderr',
      })
      .option('json-file', {
        type: 'string',
        requiresArg: true,
        describe: 'Also write the comparison as JSON to this file (replaced whole); the text stays on stdout',
      })
      .option('package', {
        type: 'string',
        requiresArg: true,
        describe: 'Also write the comparison as a gate result package into this folder and gate it (speed benchmarks)',
      })
      .option('baseline-run', {
        type: 'number',
        requiresArg: true,
        describe: 'Reuse this ledger run as the baseline instead of running it (give only the candidate)',
      })
      .option('ledger', {
        type: 'string',
        requiresArg: true,
        describe: 'The run ledger to read --baseline-run from and record to (default $ARBOR_LEDGER, else .arbor/runs.db at the git root)',
      })
      .option('label', {
        type: 'string',
        requiresArg: true,
        describe: 'What to call the candidate in the run ledger (1-80 characters; default its path and a short digest, or its commit)',
      })
      .option('quiet', {alias: 'q', type: 'boolean', default: false, describe: 'No progress on stderr (errors still show)'})
      .option('keep', {type: 'boolean', default: false, describe: 'Keep the temporary work folders and say where they are'})
      .option('unsandboxed', {type: 'boolean', default: false, describe: 'Run both solutions without the bubblewrap sandbox'})
      .example('$0 benchmark compare zoo/algotune_knn HEAD~1 zoo/algotune_knn/solution.py', "the last commit's solution against the working tree's")
      .example('$0 benchmark compare zoo/algotune_knn zoo/algotune_knn/solution.py fast.py --package /tmp/pkg', 'and let the gate decide')
      .example('$0 benchmark compare zoo/algotune_knn fast.py --baseline-run 12', 'against a baseline eval recorded as run 12')
      .epilogue(
        "Prints both sides, each case's ratio (candidate over baseline; above 1 is better), the cases one side fails, and one verdict: " +
          "better (the ratio's 95% interval lies above 1), worse (below 1) or same (it contains 1). " +
          "Exit 0 whenever the comparison ran (the verdict and the gate's action are data), 1 when the harness failed, 2 for bad usage, 3 when a protected file differs from arbor.lock. " +
          'A file or folder of that name wins over a git revision. Every compare is recorded in the run ledger.',
      ),
  handler: async (args) => {
    const sides = [args.baseline, args.candidate].filter((side): side is string => side !== undefined);
    if (args.baselineRun !== undefined) {
      if (!Number.isInteger(args.baselineRun) || args.baselineRun < 1)
        throw new UsageError(`--baseline-run ${args.baselineRun}: expected a run id (a whole number, see 'arbor benchmark runs')`);
      if (sides.length !== 1)
        throw new UsageError(`--baseline-run takes the baseline from the ledger: give only the candidate (got ${sides.length} solutions)`);
    } else if (sides.length !== 2) {
      throw new UsageError(
        `missing ${sides.length === 0 ? 'baseline and candidate' : 'candidate'}: expected arbor benchmark compare <benchmark> <baseline> <candidate> (or <candidate> --baseline-run ID)`,
      );
    }
    const {checkLabel} = await import('../../lib/eval/index.js');
    if (args.label !== undefined) checkLabel(args.label);
    process.on('SIGUSR1', () => {});
    const {checkReportPath, writeReport, progressPrinter} = await import('../../lib/eval/index.js');
    const {formatCompare, checkPackageable, writePackage} = await import('../../lib/compare/index.js');
    const {loadPlan} = await import('../../lib/benchmark/plan.js');
    if (args.jsonFile) checkReportPath(args.jsonFile);
    const env = args.ledger ? {...process.env, ARBOR_LEDGER: args.ledger} : process.env;
    // Refuse a package that cannot be made before anything runs; the plan read for it is the one the compare runs
    // and is recorded under (the door reads plan.toml again nowhere).
    const given = args.package ? await loadPlan(args.benchmark) : undefined;
    if (given && args.package) checkPackageable(given, args.package);
    const printer = progressPrinter(process.stderr, args.quiet);
    const request = {
      benchmark: args.benchmark,
      split: args.split,
      baseline: args.baselineRun === undefined ? sides[0] : undefined,
      candidate: sides[sides.length - 1]!,
      baselineRun: args.baselineRun,
      ledger: args.ledger,
      keep: args.keep,
      unsandboxed: args.unsandboxed,
      ...(given ? {plan: given} : {}),
    };
    // The door runs both sides and puts the compare on record (the runs, a test split's exposure) before anything is printed.
    let outcome;
    try {
      const {evaluateHere} = await import('../../lib/run/door.js');
      outcome = await evaluateHere('compare', request, {env, onProgress: printer.progress, record: args.label === undefined ? {} : {label: args.label}});
    } finally {
      printer.done();
    }
    const {report, plan, warnings} = outcome;
    if (report.reports.candidate.kept) process.stderr.write(`kept the work folders in ${report.reports.candidate.kept}\n`);
    for (const warning of warnings) process.stderr.write(`${warning}\n`);
    if (args.jsonFile) await writeReport(args.jsonFile, report);
    const text = args.json ? process.stderr : process.stdout;
    text.write(formatCompare(report));
    if (args.json) printJson(report);
    if (args.package) {
      const gated = await writePackage(args.package, report, plan);
      text.write(`gate: ${gated.action} (${gated.primaryReason}); package in ${args.package}\n`);
    }
  },
};
