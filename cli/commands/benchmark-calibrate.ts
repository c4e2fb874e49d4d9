/** `arbor benchmark calibrate <benchmark>`: how much a solution's score moves from eval to eval. */
import type {CommandModule} from 'yargs';
import {UsageError} from '../../lib/errors.js';
import type {EvalProgress, EvalReport} from '../../lib/eval/index.js';
import {jsonOption, printJson} from '../options.js';

interface CalibrateArgs {
  benchmark: string;
  runs: number;
  split: string;
  solution?: string;
  json: boolean;
  quiet: boolean;
}

export const calibrateCommand: CommandModule<object, CalibrateArgs> = {
  command: 'calibrate <benchmark>',
  describe: "Evaluate a benchmark's baseline several times: the score's spread, each case's, and the repetitions an eval needs",
  builder: (yargs) =>
    yargs
      .positional('benchmark', {type: 'string', demandOption: true, describe: 'The benchmark folder (holding plan.toml)'})
      .option('runs', {type: 'number', default: 5, requiresArg: true, describe: 'How many evals (at least 2)'})
      .option('split', {type: 'string', default: 'dev', requiresArg: true, describe: 'dev or test'})
      .option('solution', {type: 'string', requiresArg: true, describe: "Calibrate this solution file instead of the plan's"})
      .option('json', jsonOption)
      .option('quiet', {alias: 'q', type: 'boolean', default: false, describe: 'No progress on stderr'})
      .example('$0 benchmark calibrate zoo/algotune_knn --runs 5', 'the numbers for PROVENANCE\'s "how much the score varies"')
      .epilogue('Exit 0 when every eval scored; 1 when the harness failed; 2 bad usage; 3 a protected file differs from arbor.lock.'),
  handler: async (args) => {
    if (!Number.isInteger(args.runs) || args.runs < 2) throw new UsageError(`--runs ${args.runs}: expected a whole number of evals, at least 2`);
    process.on('SIGUSR1', () => {});
    const {formatCalibration} = await import('../../lib/eval/index.js');
    const {progressPrinter} = await import('../../lib/eval/index.js');
    const printer = progressPrinter(process.stderr, args.quiet);
    const request = {benchmark: args.benchmark, split: args.split, solution: args.solution, runs: args.runs};
    const onProgress: EvalProgress = (_kind, text) => printer.progress('status', text);
    const onEval = (k: number, report: EvalReport) => {
      printer.progress(
        'line',
        `eval ${k + 1}/${args.runs}: score ${report.score.toPrecision(6)}${report.interval ? ` [${report.interval.map((v) => v.toPrecision(4)).join(', ')}]` : ''}, ${report.repetitions} repetition(s), ${report.seconds.toFixed(1)} s`,
      );
    };
    let outcome;
    try {
      const {evaluateHere} = await import('../../lib/run/door.js');
      // Every calibration eval goes on record too (kind "calibrate"), so the report can draw the baseline's spread.
      outcome = await evaluateHere('calibrate', request, {onProgress, onEval, record: {}});
    } finally {
      printer.done();
    }
    for (const warning of outcome.warnings) process.stderr.write(`${warning}\n`);
    if (args.json) return printJson(outcome.report);
    process.stdout.write(await formatCalibration(outcome.report));
  },
};
