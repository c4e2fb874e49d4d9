/** `arbor benchmark worker --queue URL`: take eval jobs from a queue and run them on this machine. */
import type {CommandModule} from 'yargs';

interface WorkerArgs {
  queue: string;
  concurrency: number;
  'stalled-seconds'?: number;
  'queue-name'?: string;
  unsandboxed: boolean;
  quiet: boolean;
}

export const workerCommand: CommandModule<object, WorkerArgs> = {
  command: 'worker',
  describe: 'Take eval jobs from a Redis-backed queue (from `arbor benchmark run --queue`) and run them here until stopped',
  builder: (yargs) =>
    yargs
      .option('queue', {type: 'string', demandOption: true, requiresArg: true, describe: 'redis://HOST:PORT[/DB]: the queue to take jobs from'})
      .option('concurrency', {type: 'number', default: 1, requiresArg: true, describe: 'Jobs run at once (more than 1 lets timed evals share the CPUs)'})
      .option('stalled-seconds', {
        type: 'number',
        requiresArg: true,
        describe: 'Lock and stalled-check interval: a job whose worker died returns to the queue after one to two of these (default $ARBOR_QUEUE_STALLED_SECONDS, else 30)',
      })
      .option('queue-name', {type: 'string', requiresArg: true, describe: "The queue's name in that Redis (default arbor-eval)"})
      .option('unsandboxed', {type: 'boolean', default: false, describe: 'Run solutions without the bubblewrap sandbox (scores are then no proof against cheating)'})
      .option('quiet', {alias: 'q', type: 'boolean', default: false, describe: 'No log of jobs on stderr (errors still show)'})
      .example('$0 benchmark worker --queue redis://10.0.0.5:6379/0', 'run jobs one at a time until Ctrl-C')
      .epilogue(
        "Each job's files are checked against their SHA-256 before anything runs; a job that does not match is refused (it fails, without retry). " +
          "Test-split seeds come from this machine's ARBOR_TEST_SALT. Runs until SIGINT or SIGTERM (a job running then returns to the queue for another worker). " +
          'Exit 0 when stopped by SIGINT or SIGTERM; 2 for bad usage or a Redis that cannot be reached.',
      ) as never,
  handler: async (args) => {
    process.on('SIGUSR1', () => {});
    const [{parseQueueUrl, defaultQueueName}, {startWorker, resolveStalledSeconds}] = await Promise.all([import('../../lib/run/redis.js'), import('../../lib/run/worker.js')]);
    const address = parseQueueUrl(args.queue);
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
      queueName: args['queue-name'],
      concurrency: args.concurrency,
      stalledSeconds,
      unsandboxed: args.unsandboxed,
      onLog: log,
    });
    log(`worker ${worker.name} taking jobs from ${address.shown}, queue ${args['queue-name'] ?? defaultQueueName} (concurrency ${args.concurrency}, stalled after ${stalledSeconds} s)`);
    await stopped;
    log(`worker ${worker.name} stopping`);
    // Running evals stop too; their jobs return to the queue through the stalled-job check.
    await worker.stop();
  },
};
