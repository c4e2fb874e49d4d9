/** `arbor benchmark runs [<benchmark>]`: the run ledger's history. */
import type {CommandModule} from 'yargs';
import {jsonOption, printJson} from '../options.js';

interface RunsArgs {
  benchmark?: string;
  split?: string;
  json: boolean;
  ledger?: string;
  changes: boolean;
  merge?: string;
  session?: string;
}

/** `arbor benchmark runs`: summary (best and latest), runs newest first, test exposure; or, with --changes, the steps in the score series. */
export const runsCommand: CommandModule<object, RunsArgs> = {
  command: 'runs [benchmark]',
  describe:
    'List the recorded eval and compare runs: best and latest per split, every run, test exposure (or, with --changes, the regressions and improvements)',
  builder: (yargs) =>
    yargs
      .positional('benchmark', {
        type: 'string',
        describe: "A benchmark folder (or name) to list; default: every benchmark in the ledger of the current folder's zoo",
      })
      .option('split', {type: 'string', choices: ['dev', 'test'], requiresArg: true, describe: 'Only runs on this split'})
      .option('ledger', {
        type: 'string',
        requiresArg: true,
        describe: "The ledger file (default $ARBOR_LEDGER, else the zoo's: .arbor/runs.db at its git root, else in the zoo folder)",
      })
      .option('changes', {
        type: 'boolean',
        default: false,
        describe:
          "Print the regressions and improvements instead of the runs: steps in each score series of one solution digest, and of the clean commits, whose runs' intervals separate either side (at least 3 ok eval runs a side)",
      })
      .option('merge', {
        type: 'string',
        requiresArg: true,
        describe:
          "Import another run ledger's runs (e.g. a benchmark's old .arbor/runs.db that runs names on stderr) into this one first, in one transaction, each marked as imported from FILE: listed, but never a best, a latest or a step, and its test runs are not this zoo's results (they do count in the test exposure). FILE is then renamed FILE.merged (kept). Nothing is ever merged without this option",
      })
      .option('session', {
        type: 'string',
        requiresArg: true,
        describe:
          "Print an arbor mcp session's counts and its tool calls in order (time, tool, arguments' short form and digest, outcome) instead of the runs; the id is on arbor mcp's startup line. [benchmark] is then the zoo (default: the current folder's)",
      })
      .option('json', jsonOption)
      .example('$0 benchmark runs zoo/algotune_knn --split test', "the benchmark's test runs and how many solutions have seen test")
      .example('$0 benchmark runs --merge zoo/knn/.arbor/runs.db', "import an earlier arbor's ledger of one benchmark, its runs marked as imported")
      .example('$0 benchmark runs --changes', 'the steps in every series, with the runs either side')
      .epilogue(
        'Exit 0 when the history was listed (an empty or missing ledger included; with --changes, whether or not a step was found), 1 when the ledger is corrupt or unreadable, 2 for bad usage (with --merge: a missing FILE, one that is not an arbor ledger, is damaged, was written by a newer arbor or is the ledger itself; then neither file is changed).',
      ),
  handler: async (args) => {
    if (args.session !== undefined) return printSession(args, args.session);
    const [{readRuns, formatRuns, minimizedBenchmarks}, {mergedNote, strayNotes}, {zooAround}] = await Promise.all([
      import('../../lib/ledger/summary.js'),
      import('../../lib/ledger/merge.js'),
      import('../../lib/zoo/list.js'),
    ]);
    // The ledger sits below the zoo: the zoo the history belongs to is found here and handed in.
    const zoo = zooAround(process.cwd());
    const read = async (withCases: boolean) => {
      const report = await readRuns({benchmark: args.benchmark, split: args.split, ledger: args.ledger, withCases, merge: args.merge, zoo});
      for (const merged of report.merged) process.stderr.write(`arbor: ${mergedNote(merged, report.ledger)}\n`);
      for (const note of strayNotes(report.strays, report.ledger)) process.stderr.write(`arbor: ${note}\n`);
      return report;
    };
    if (args.changes) {
      const {changesCoverage, findChanges} = await import('../../lib/ledger/changes.js');
      const {formatChanges} = await import('../../lib/ledger/changes-format.js');
      const report = await read(false);
      // On a benchmark where lower is better, a step down is an improvement.
      const changes = findChanges(report.runs, {minimize: await minimizedBenchmarks(report.runs)});
      // Which runs the series hold, and which were left out and why: "nothing found" must say what was looked at.
      const coverage = changesCoverage(report.runs);
      if (args.json) printJson({ledger: report.ledger, changes, coverage});
      else process.stdout.write(formatChanges(changes, {ledger: report.ledger, coverage}));
      return;
    }
    const report = await read(args.json);
    if (args.json) printJson(report);
    else process.stdout.write(formatRuns(report));
  },
};

/** `--session ID`: the session's counts and calls, from the MCP store beside the zoo's ledger (the one `arbor mcp` on the zoo uses). */
async function printSession(args: RunsArgs, id: string): Promise<void> {
  const [{resolveZoo}, {ledgerPathFor, namedLedger}, session, {UsageError}] = await Promise.all([
    import('../../lib/zoo/list.js'),
    import('../../lib/ledger/location.js'),
    import('../../lib/mcp/session.js'),
    import('../../lib/errors.js'),
  ]);
  const named = namedLedger(args.ledger, process.env, process.cwd());
  const ledger = named ?? ledgerPathFor(resolveZoo(args.benchmark, process.cwd(), 'runs').abs, {}, process.cwd(), 'zoo');
  const store = await session.openSessionStore(ledger);
  try {
    const log = session.sessionLog(store, id);
    if (!log) {
      const known = session.listSessions(store).map((each) => each.id);
      throw new UsageError(
        `--session ${id}: no such session in ${store.file}: expected one of ${known.join(', ') || '(none yet)'} (arbor mcp prints its id at startup)`,
        'not-found',
      );
    }
    if (args.json) printJson(log);
    else process.stdout.write(session.formatSessionLog(log));
  } finally {
    store.close();
  }
}
