/** `arbor benchmark run [zoo|benchmark…]`: evaluate a whole zoo, here or on queue workers. */
import type {CommandModule} from 'yargs';
import {UsageError} from '../../lib/errors.js';
import {printJson} from '../options.js';

interface RunArgs {
  benchmarks?: string[];
  split?: string | string[];
  solution?: string | string[];
  json: boolean;
  jsonFile?: string;
  quiet: boolean;
  queue?: string;
  'queue-name'?: string;
  'queue-key-file'?: string;
  unsandboxed: boolean;
}

/** A repeatable option's values as a list (yargs gives a string once, an array when repeated). */
const list = (value: string | string[] | undefined): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

export const runCommand: CommandModule<object, RunArgs> = {
  command: 'run [benchmarks..]',
  describe: 'Evaluate every entry of a zoo (or the benchmarks named), here one at a time or on queue workers; a summary table at the end',
  builder: (yargs) =>
    yargs
      .positional('benchmarks', {
        type: 'string',
        array: true,
        describe:
          'A zoo folder (its entries with a plan.toml) or benchmark folders (default: ./arbor-zoo, else ./zoo, else the current folder when it holds benchmarks)',
      })
      .option('split', {type: 'string', requiresArg: true, describe: 'dev (default) or test; give it twice for both'})
      .option('solution', {type: 'string', requiresArg: true, describe: "ENTRY=FILE: evaluate FILE in place of entry ENTRY's solution (repeatable)"})
      .option('json', {type: 'boolean', default: false, describe: 'Print every result as JSON ({results: [...]}) on stdout; the summary goes to stderr'})
      .option('json-file', {
        type: 'string',
        requiresArg: true,
        describe: 'Also write every result as JSON to this file (replaced whole); the summary stays on stdout',
      })
      .option('quiet', {alias: 'q', type: 'boolean', default: false, describe: 'No progress on stderr (errors still show)'})
      .option('queue', {
        type: 'string',
        requiresArg: true,
        describe: 'redis://HOST:PORT[/DB]: put one job per eval on this queue for `arbor benchmark worker`s instead of running here',
      })
      .option('queue-name', {type: 'string', requiresArg: true, describe: "The queue's name in that Redis (default arbor-eval)"})
      .option('queue-key-file', {
        type: 'string',
        requiresArg: true,
        describe:
          'A file holding the queue key (mode 600) that signs jobs and checks reports (default $ARBOR_QUEUE_KEY, else the file $ARBOR_QUEUE_KEY_FILE names)',
      })
      .option('unsandboxed', {
        type: 'boolean',
        default: false,
        describe: 'Run solutions without the bubblewrap sandbox (local runs only; a worker decides for itself)',
      })
      .example('$0 benchmark run zoo', 'every entry of zoo/, dev split, one at a time')
      .example('$0 benchmark run zoo --solution relu_poly=try/relu.py --json-file results.json', 'another solution for one entry; every result as JSON')
      .example(
        'ARBOR_QUEUE_KEY=$(cat key) $0 benchmark run zoo --queue redis://10.0.0.5:6379/0',
        'one job per entry for the workers started with `arbor benchmark worker` and the same key',
      )
      .epilogue(
        "Every result goes into the run ledger (as with `arbor benchmark eval`); through --queue, into this machine's ledger with the worker's environment. " +
          'A queue needs a key shared with its workers and never sent (ARBOR_QUEUE_KEY, or a key file; make one with `openssl rand -hex 32`): jobs are signed with it, and a report it does not verify is refused, never recorded. ' +
          'Exit 0 when every eval scored without a failure; 1 when any failed (scored 0.0) or gave no score, or the run was interrupted; ' +
          "2 for bad usage, a missing folder or queue key, or a Redis that cannot be reached; 3 when an entry's protected files differ from its arbor.lock (that entry is not evaluated).",
      ),
  handler: async (args) => {
    process.on('SIGUSR1', () => {});
    const cwd = process.cwd();
    const [targets, {runDisplay}, summary, {checkReportPath}, {setExitCode}] = await Promise.all([
      import('../../lib/run/targets.js'),
      import('../../lib/run/progress.js'),
      import('../../lib/run/summary.js'),
      import('../../lib/eval/index.js'),
      import('../exit.js'),
    ]);
    const {targets: found, withoutPlan} = targets.resolveTargets(args.benchmarks ?? [], cwd);
    const splits = targets.parseSplits(args.split);
    const solutions = targets.parseSolutions(list(args.solution), found, cwd);
    if (args.jsonFile) checkReportPath(args.jsonFile);
    let address;
    let key: Buffer | undefined;
    if (args.queue !== undefined) {
      if (args.unsandboxed) throw new UsageError('--unsandboxed does not travel with --queue: each worker decides (arbor benchmark worker --unsandboxed)');
      address = (await import('../../lib/run/redis.js')).parseQueueUrl(args.queue);
      key = (await import('../../lib/run/auth.js')).resolveQueueKey(args['queue-key-file'], process.env, cwd);
    } else if (args['queue-name'] !== undefined || args['queue-key-file'] !== undefined) {
      throw new UsageError(`--${args['queue-name'] !== undefined ? 'queue-name' : 'queue-key-file'} needs --queue redis://HOST:PORT[/DB]`);
    }
    const items = targets.planItems(found, splits, solutions);
    if (withoutPlan.length > 0 && !args.quiet) process.stderr.write(`skipped ${withoutPlan.length} folder(s) without a plan.toml: ${withoutPlan.join(', ')}\n`);
    const display = runDisplay(process.stderr, {total: items.length, quiet: args.quiet});
    const started = performance.now();
    let results;
    try {
      if (address && key) {
        const {runQueue} = await import('../../lib/run/submit.js');
        // Ctrl-C takes the jobs nobody has started off the queue before stopping.
        const interrupt = new AbortController();
        const onSignal = () => interrupt.abort();
        process.once('SIGINT', onSignal);
        process.once('SIGTERM', onSignal);
        try {
          results = await runQueue(items, {address, key, queueName: args['queue-name'], cwd, onEvent: display.onEvent, signal: interrupt.signal});
        } finally {
          process.removeListener('SIGINT', onSignal);
          process.removeListener('SIGTERM', onSignal);
        }
      } else {
        const {runLocal} = await import('../../lib/run/local.js');
        results = await runLocal(items, {cwd, unsandboxed: args.unsandboxed, onEvent: display.onEvent});
      }
    } finally {
      display.done();
    }
    const seconds = (performance.now() - started) / 1000;
    const document = summary.runDocument(address ? 'queue' : 'local', results, seconds);
    (args.json ? process.stderr : process.stdout).write(summary.formatSummary(results, seconds));
    if (args.jsonFile) summary.writeRunDocument(args.jsonFile, document);
    if (args.json) printJson(document);
    if (results.some((result) => result.status !== 'ok')) setExitCode(1);
    // A stale lock is the same outcome as in eval, compare and calibrate: exit 3.
    if (results.some((result) => result.errorCode === 'stale-lock')) setExitCode(3);
  },
};
