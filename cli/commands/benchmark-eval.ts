/** `arbor benchmark eval <benchmark> <dev|test>`: the eval pipeline every entry's eval.sh calls. */
import {existsSync, statSync} from 'node:fs';
import path from 'node:path';
import type {CommandModule} from 'yargs';
import {UsageError} from '../../lib/errors.js';
import {printJson} from '../options.js';

/** A benchmark path that exists but is not a folder: said as such (the pipeline only says a folder is missing). */
function checkNotAFile(benchmark: string): void {
  let stats;
  try {
    stats = statSync(benchmark, {throwIfNoEntry: false});
  } catch {
    return; // the pipeline words what it cannot read
  }
  if (stats && !stats.isDirectory()) {
    const parent = path.dirname(benchmark);
    const hint = existsSync(path.join(parent, 'plan.toml')) ? `, e.g. arbor benchmark eval ${parent} dev` : '';
    throw new UsageError(
      `benchmark ${benchmark} is ${stats.isFile() ? 'a file' : 'not a folder'}: pass the benchmark folder holding plan.toml${hint}`,
      'not-a-folder',
    );
  }
}

interface EvalArgs {
  benchmark: string;
  split?: string;
  solution?: string;
  keep: boolean;
  json: boolean;
  jsonFile?: string;
  quiet: boolean;
  unsandboxed: boolean;
  data?: string;
  label?: string;
  against?: string;
}

type EvalRequest = {benchmark: string; split: string; solution?: string; data?: string; keep: boolean; unsandboxed: boolean};
type Printer = {progress: (kind: 'line' | 'status', text: string) => void; done: () => void};

/**
 * `--against`: race the solution against a recorded eval (lib/compare/against.ts) through the door as a compare
 * against that run, recorded as what it is (kind compare, its verdict): one `verdict:` line on stdout, no score line.
 */
async function raceHandler(args: EvalArgs, request: EvalRequest, printer: Printer): Promise<void> {
  const {benchmark, split, solution, data, keep, unsandboxed} = request;
  const race = {benchmark, split, candidate: solution ?? benchmark, against: args.against!, data, keep, unsandboxed};
  let outcome;
  try {
    const {evaluateHere} = await import('../../lib/run/door.js');
    outcome = await evaluateHere('compare', race, {onProgress: printer.progress, record: args.label === undefined ? {} : {label: args.label}});
  } finally {
    printer.done();
  }
  const {report, warnings} = outcome;
  const {raceLine} = await import('../../lib/compare/index.js');
  const {writeReport} = await import('../../lib/eval/index.js');
  if (args.jsonFile) await writeReport(args.jsonFile, report);
  const failure = report.reports.candidate.failure;
  if (failure) process.stderr.write(`score is 0.0: ${failure}\n`);
  // A reference measured in another environment (machine, software, clock): the race mixes them, and says so.
  if (report.environmentNote) process.stderr.write(`note: ${report.environmentNote}\n`);
  const line = report.race ? raceLine(report.race) : `verdict: ${report.verdict} (${report.reason})`;
  (args.json ? process.stderr : process.stdout).write(`${line}\n`);
  if (args.json) printJson({...report, warnings});
  for (const warning of warnings) process.stderr.write(`${warning}\n`);
}

export const evalCommand: CommandModule<object, EvalArgs> = {
  command: 'eval <benchmark> [split]',
  describe: 'Evaluate a benchmark\'s solution on its dev or test split; prints one "score: <float>" line',
  builder: (yargs) =>
    yargs
      .positional('benchmark', {type: 'string', demandOption: true, describe: 'The benchmark folder (holding plan.toml)'})
      .positional('split', {type: 'string', describe: 'dev or test'})
      .option('solution', {type: 'string', requiresArg: true, describe: "Evaluate this solution file instead of the plan's solution.py"})
      .option('label', {
        type: 'string',
        requiresArg: true,
        describe: 'What to call this solution in the run ledger (1-80 characters; default its path and a short digest, e.g. solution.py@3fa2c1)',
      })
      .option('against', {
        type: 'string',
        requiresArg: true,
        describe:
          'Race the solution against a recorded eval of this entry, split and plan (a run id, a --label, or best): stop as soon as better, worse or same is decided at 95% (prints one "verdict:" line, no score)',
      })
      .option('data', {
        type: 'string',
        requiresArg: true,
        describe: "Path split: read the work directories from this folder instead of the plan's (a private copy of the test data)",
      })
      .option('keep', {type: 'boolean', default: false, describe: 'Keep the temporary work folders and say where they are'})
      .option('json', {
        type: 'boolean',
        default: false,
        describe: 'Print the full report (per point and case) as JSON on stdout; the score line goes to stderr',
      })
      .option('json-file', {
        type: 'string',
        requiresArg: true,
        describe: 'Also write the full report to this file (replaced whole); the score line stays on stdout',
      })
      .option('quiet', {alias: 'q', type: 'boolean', default: false, describe: 'No progress on stderr (errors still show)'})
      .option('unsandboxed', {
        type: 'boolean',
        default: false,
        describe: 'Run the solution without the bubblewrap sandbox (the only way to score test where bwrap cannot start; the report says sandbox "none")',
      })
      .epilogue(
        'Prints exactly one "score: <float>" line on stdout (on stderr with --json, whose report is then the whole of stdout). Exit 0 whenever a score was printed ' +
          '(0.0 for a solution that crashed, hung or answered wrong), 2 for a missing or unknown split ' +
          'or a missing folder, 1 when the harness itself failed (no score line), 3 when a protected file differs from arbor.lock (nothing evaluated, no score line). ' +
          'ARBOR_TEST_SALT replaces the published test seeds by seeds derived from it; ARBOR_TEST_DATA points the test split of a benchmark whose cases are files at a private copy; ARBOR_PYTHON picks the python3; ARBOR_EVAL_CPU the CPU runs are pinned to (none: no pinning); ARBOR_BWRAP the bubblewrap binary. Format and report: lib/eval/README.md.',
      ),
  handler: async (args) => {
    checkNotAFile(args.benchmark);
    const {checkLabel} = await import('../../lib/eval/index.js');
    if (args.label !== undefined) checkLabel(args.label);
    // Node opens its inspector on SIGUSR1; a listener keeps it closed to anything that can signal this process.
    process.on('SIGUSR1', () => {});
    const {formatScore} = await import('../../lib/eval/index.js');
    const {checkReportPath, writeReport, progressPrinter} = await import('../../lib/eval/index.js');
    if (args.jsonFile) checkReportPath(args.jsonFile);
    const printer = progressPrinter(process.stderr, args.quiet);
    const request: EvalRequest = {
      benchmark: args.benchmark,
      split: args.split ?? '',
      solution: args.solution,
      data: args.data,
      keep: args.keep,
      unsandboxed: args.unsandboxed,
    };
    if (args.against !== undefined) return raceHandler(args, request, printer);
    // The door runs the eval and puts it on record (with the plan it was scored under) before anything is printed:
    // the warnings (test exposure, test before dev) go in --json's `warnings` too.
    let outcome;
    try {
      const {evaluateHere} = await import('../../lib/run/door.js');
      outcome = await evaluateHere('eval', request, {onProgress: printer.progress, record: args.label === undefined ? {} : {label: args.label}});
    } finally {
      printer.done();
    }
    const {report, warnings} = outcome;
    const {ceilingLine} = await import('../../lib/eval/index.js');
    if (report.kept) process.stderr.write(`kept the work folders in ${report.kept}\n`);
    if (report.failure) process.stderr.write(`score is 0.0: ${report.failure}\n`);
    if (args.jsonFile) await writeReport(args.jsonFile, report);
    // With --json, stdout is the JSON document alone and the score line is a message like the others.
    (args.json ? process.stderr : process.stdout).write(`score: ${formatScore(report.score)}\n`);
    const ceiling = ceilingLine(report);
    if (ceiling) process.stderr.write(`${ceiling}\n`);
    if (args.json) printJson({...report, warnings});
    for (const warning of warnings) process.stderr.write(`${warning}\n`);
  },
};
