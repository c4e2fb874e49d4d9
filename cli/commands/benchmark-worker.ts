/** `arbor benchmark worker --queue URL`: take eval jobs from a queue and run them on this machine. */
import type {CommandModule} from 'yargs';
import {availableParallelism} from 'node:os';

interface WorkerArgs {
  queue: string;
  concurrency: number;
  'stalled-seconds'?: number;
  'queue-name'?: string;
  'queue-key-file'?: string;
  zoo?: string;
  unsandboxed: boolean;
  quiet: boolean;
}

export const workerCommand: CommandModule<object, WorkerArgs> = {
  command: 'worker',
  describe: 'Take eval jobs from a Redis-backed queue (from `arbor benchmark run --queue`) and run them here until stopped',
  builder: (yargs) =>
    yargs
      .option('queue', {type: 'string', demandOption: true, requiresArg: true, describe: 'redis://HOST:PORT[/DB]: the queue to take jobs from'})
      .option('concurrency', {
        type: 'number',
        default: 1,
        requiresArg: true,
        describe: 'Jobs run at once, at most one per CPU (each eval leases a CPU of its own)',
      })
      .option('stalled-seconds', {
        type: 'number',
        requiresArg: true,
        describe:
          'Lock and stalled-check interval: a job whose worker died returns to the queue after one to two of these (default $ARBOR_QUEUE_STALLED_SECONDS, else 30)',
      })
      .option('queue-name', {type: 'string', requiresArg: true, describe: "The queue's name in that Redis (default arbor-eval)"})
      .option('queue-key-file', {
        type: 'string',
        requiresArg: true,
        describe:
          'A file holding the queue key (mode 600): jobs it does not verify are refused, answers are signed with it (default $ARBOR_QUEUE_KEY, else the file $ARBOR_QUEUE_KEY_FILE names)',
      })
      .option('zoo', {
        type: 'string',
        requiresArg: true,
        describe:
          'The zoo whose entries this worker evaluates, each only while its files match its arbor.lock (default ./arbor-zoo, else ./zoo, else the current folder when it holds benchmarks)',
      })
      .option('unsandboxed', {
        type: 'boolean',
        default: false,
        describe: 'Run solutions without the bubblewrap sandbox (scores are then no proof against cheating)',
      })
      .option('quiet', {alias: 'q', type: 'boolean', default: false, describe: 'No log of jobs on stderr (errors still show)'})
      .example(
        'ARBOR_QUEUE_KEY=$(cat key) $0 benchmark worker --queue redis://10.0.0.5:6379/0 --zoo zoo',
        'run jobs for the entries of zoo/, one at a time, until Ctrl-C',
      )
      .epilogue(
        "A job names an entry of this worker's zoo and carries only its solution (the editable files): a job whose MAC the queue key does not verify is refused (it fails, without retry); " +
          "one for an entry this zoo lacks, or whose arbor.lock differs from this zoo's, is refused with a signed answer. " +
          "A compare job (from `arbor mcp --sealed-queue`) compares this zoo's copy of the entry's own solution (refused unless it is the submitter's) with the job's on the test split, in one paired eval. Nothing a job carries runs outside the sandbox. " +
          "Test-split seeds come from this machine's ARBOR_TEST_SALT, derived in this process: the eval's own process (which runs the bundle) gets neither the salt nor the key. " +
          'Runs until SIGINT or SIGTERM (a job running then returns to the queue for another worker). ' +
          'Exit 0 when stopped by SIGINT or SIGTERM; 2 for bad usage, a missing zoo or queue key, or a Redis that cannot be reached.',
      ),
  handler: async (args) => {
    process.on('SIGUSR1', () => {});
    const [{parseQueueUrl, defaultQueueName}, {startWorker, resolveStalledSeconds}, {resolveQueueKey}, {resolveZoo}] = await Promise.all([
      import('../../lib/run/redis.js'),
      import('../../lib/run/worker.js'),
      import('../../lib/run/auth.js'),
      import('../../lib/zoo/list.js'),
    ]);
    const cwd = process.cwd();
    const address = parseQueueUrl(args.queue);
    const key = resolveQueueKey(args['queue-key-file'], process.env, cwd);
    const zoo = resolveZoo(args.zoo, cwd, 'worker --zoo');
    const stalledSeconds = resolveStalledSeconds(args['stalled-seconds']);
    const log = (text: string) => {
      if (!args.quiet) process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${text}\n`);
    };
    // Listening before the worker starts: a signal during start-up still stops it cleanly.
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const worker = await startWorker({
      address,
      key,
      zoo: zoo.abs,
      queueName: args['queue-name'],
      concurrency: args.concurrency,
      stalledSeconds,
      unsandboxed: args.unsandboxed,
      onLog: log,
    });
    log(
      `worker ${worker.name} taking jobs from ${address.shown}, queue ${args['queue-name'] ?? defaultQueueName}, for the entries of ${zoo.shown} (concurrency ${Math.min(args.concurrency, availableParallelism())}, stalled after ${stalledSeconds} s)`,
    );
    await stopped;
    log(`worker ${worker.name} stopping`);
    // Running evals stop too; their jobs return to the queue through the stalled-job check.
    await worker.stop();
  },
};
