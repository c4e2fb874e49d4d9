/** `arbor mcp [zoo]`: the zoo's tools for an agent, over the Model Context Protocol (lib/mcp). */
import os from 'node:os';
import path from 'node:path';
import type {CommandModule} from 'yargs';
import {UsageError} from '../../lib/errors.js';

interface McpArgs {
  zoo?: string;
  http?: string;
  workspaces?: string;
  sealedRelease?: string;
  sealedQueue?: string;
  sealedQueueName?: string;
  keepDays?: string;
  maxDevEvals?: string;
  maxDevSeconds?: string;
  maxSealed?: string;
  sessionMinutes?: string;
}

/** The session limits' flags: what each bounds (lib/mcp/session.ts), and whether it takes whole numbers only. */
const limitFlags = {
  maxDevEvals: {flag: 'max-dev-evals', whole: true, what: 'dev runs (evaluate, compare) a session may start'},
  maxDevSeconds: {
    flag: 'max-dev-seconds',
    whole: false,
    what: "seconds a session's dev runs may take, each from its turn to its end (the run that crosses it finishes; the next is refused)",
  },
  maxSealed: {flag: 'max-sealed', whole: true, what: "submit_test calls a session may make, on top of each entry's test_budget (the tighter refuses)"},
  sessionMinutes: {
    flag: 'session-minutes',
    whole: false,
    what: "minutes from a session's first call after which checkout, evaluate, compare and submit_test are refused",
  },
} as const;

/** The session limits given (each a one-line UsageError when it is not a positive number). */
function sessionLimits(args: McpArgs): import('../../lib/mcp/session.js').SessionLimits {
  const limits: Record<string, number> = {};
  for (const [key, {flag, whole}] of Object.entries(limitFlags)) {
    const given = args[key as keyof typeof limitFlags];
    if (given === undefined) continue;
    const value = Number(given);
    if (!(value > 0) || !Number.isFinite(value) || (whole && !Number.isSafeInteger(value)))
      throw new UsageError(`--${flag} ${given}: expected a ${whole ? 'whole number' : 'number'} above 0 (leave the flag out for no limit)`);
    limits[key] = value;
  }
  return {devEvals: limits.maxDevEvals, devSeconds: limits.maxDevSeconds, sealed: limits.maxSealed, minutes: limits.sessionMinutes};
}

export const mcpCommand: CommandModule<object, McpArgs> = {
  command: 'mcp [zoo]',
  describe: 'Serve the zoo to an agent over MCP (stdio, or --http): list, checkout, evaluate and compare on dev, and a sealed submit_test',
  builder: (yargs) =>
    yargs
      .positional('zoo', {type: 'string', describe: 'The zoo folder (default ./arbor-zoo, else ./zoo, else the current folder when it holds benchmarks)'})
      .option('http', {
        type: 'string',
        requiresArg: true,
        describe:
          'Serve Streamable HTTP on 127.0.0.1:PORT (path /mcp) instead of stdio, behind a bearer token (ARBOR_MCP_TOKEN, else one generated and printed on stderr)',
      })
      .option('workspaces', {
        type: 'string',
        requiresArg: true,
        describe:
          'Where checkout creates workspaces (default: $XDG_STATE_HOME/arbor/workspaces/<zoo>-<hash>, else ~/.local/state/…, the same for every server of this user on this zoo, made by the first checkout). Every server on the same zoo and workspaces folder accepts the workspaces any of them made',
      })
      .option('keep-days', {
        type: 'string',
        requiresArg: true,
        describe:
          'At start, remove the workspaces checkout made in the workspaces folder that no tool has used for this many days, and forget ended runs as old (their evals stay in the ledger); default 7, also ARBOR_MCP_KEEP_DAYS',
      })
      .option('sealed-release', {
        type: 'string',
        requiresArg: true,
        describe:
          "Seconds from a submit_test call to its answer, for every entry, however long its eval took (default: each entry's own sealedAnswerSeconds, 1.25 x the cost of its sealed compare plus 15 s, rounded up to 15 s, at least 30 s: lib/mcp/release.ts; also ARBOR_SEALED_RELEASE)",
      })
      .option(limitFlags.maxDevEvals.flag, {type: 'string', requiresArg: true, describe: `The most ${limitFlags.maxDevEvals.what} (default: no limit)`})
      .option(limitFlags.maxDevSeconds.flag, {
        type: 'string',
        requiresArg: true,
        describe: `The most ${limitFlags.maxDevSeconds.what} (default: no limit)`,
      })
      .option(limitFlags.maxSealed.flag, {type: 'string', requiresArg: true, describe: `The most ${limitFlags.maxSealed.what} (default: no limit)`})
      .option(limitFlags.sessionMinutes.flag, {type: 'string', requiresArg: true, describe: `The ${limitFlags.sessionMinutes.what} (default: no limit)`})
      .option('sealed-queue', {
        type: 'string',
        requiresArg: true,
        describe:
          "redis://HOST:PORT[/DB]: run submit_test's compare on the `arbor benchmark worker`s of this queue (their own machine, zoo and ARBOR_TEST_SALT), not on this machine, whose page cache, CPUs and load the agent's own evals share; " +
          'signed with the queue key from ARBOR_QUEUE_KEY or ARBOR_QUEUE_KEY_FILE. Also ARBOR_SEALED_QUEUE (a password in the URL stays out of the process list there). evaluate and compare stay here',
      })
      .option('sealed-queue-name', {
        type: 'string',
        requiresArg: true,
        describe: "The sealed queue's name in that Redis (default arbor-eval; its workers take jobs with the same --queue-name)",
      })
      .example('$0 mcp zoo', 'in an MCP client\'s configuration: {"command": "npx", "args": ["arbor", "mcp", "zoo"]}')
      .example('ARBOR_MCP_TOKEN=secret $0 mcp zoo --http 8765', 'clients connect to http://127.0.0.1:8765/mcp with Authorization: Bearer secret')
      .epilogue(
        'Tools: list_benchmarks, get_benchmark {name}, checkout {name, dest?}, evaluate {name?|workspace?, solution?} (dev), compare {name, baseline, candidate} (dev), ' +
          'list_runs {name?} (dev history), get_run {id} (poll a long call, from any server on the zoo: runs outlive their server), submit_test {name?, solution} (sealed: a verdict and a coarse bucket, never the test score, cases or seeds; ' +
          'every call counts against test_budget, a resubmitted solution too, which gets its first answer without a rerun; past it the tool refuses; ' +
          "every answer comes at the entry's fixed release time after the call, --sealed-release). evaluate, compare and submit_test send progress notifications (submit_test's from a clock), take background (return the run id at once) and run as MCP tasks for clients that declare task support; " +
          "evaluate and compare stop their eval when the call is cancelled (submit_test's runs on to its answer) and take repetitions / maxSeconds (the cost of a run). ARBOR_TEST_SALT is read here and never appears in a result; without it the server uses its own salt, " +
          'made once in $XDG_CONFIG_HOME/arbor/test-salt (else ~/.config/arbor/test-salt, mode 0600; its path is said on stderr at startup), so test seeds are never the published ones. ' +
          "With --sealed-queue, submit_test signs a compare job (the candidate's editable files) and waits for a worker's signed answer; the budget, the first answer, the release time, the answer and the ledger record stay here. " +
          "No queue key, or a queue that cannot be reached, is one line and exit 2 at startup; a worker that refuses the job, fails it or does not answer makes that call's sealed failure answer (the reason on stderr). " +
          "Each run is a process of its own that outlives the server (a client closing the connection does not stop it), reading a copy of the solution taken at the call; at most ARBOR_MCP_MAX_RUNS (default 8) dev runs at once; its state is in .arbor/runs.db.mcp.db beside the zoo's ledger (mode 0600), with the workspaces checkout made. " +
          "A client's session is its workspaces folder (its id on the startup line): --max-dev-evals, --max-dev-seconds, --max-sealed and --session-minutes bound it across restarts, every answer carries remaining, a call past a limit is refused in one line and costs nothing, and arbor benchmark runs --session <id> lists its calls. " +
          "Evals use the zoo entry's protected files and record to the zoo's run ledger, as the CLI does. Exit 0 when the client closes the connection, 2 for bad usage. " +
          'The tools, schemas and guarantees: lib/mcp/README.md.',
      ),
  handler: async (args) => {
    const [{resolveZoo}, {createContext}] = await Promise.all([import('../../lib/zoo/list.js'), import('../../lib/mcp/server.js')]);
    let zoo: string;
    try {
      zoo = resolveZoo(args.zoo, process.cwd(), 'mcp').abs;
    } catch (error) {
      // resolveZoo's hint names a benchmark subcommand; mcp is a top-level one.
      if (error instanceof UsageError) throw new UsageError(error.message.replace('arbor benchmark mcp', 'arbor mcp'), error.code);
      throw error;
    }
    const port = args.http === undefined ? undefined : Number(args.http);
    if (port !== undefined && (!/^\d+$/.test(args.http!) || port > 65535)) {
      throw new UsageError(`--http ${args.http}: expected a port number (0-65535; 0 picks a free one)`);
    }
    const release = args.sealedRelease ?? process.env.ARBOR_SEALED_RELEASE;
    const sealedRelease = release === undefined || release === '' ? undefined : Number(release);
    if (sealedRelease !== undefined && !(sealedRelease > 0 && sealedRelease <= 86_400)) {
      throw new UsageError(
        `${args.sealedRelease === undefined ? 'ARBOR_SEALED_RELEASE=' : '--sealed-release '}${release}: expected seconds (more than 0, at most 86400)`,
      );
    }
    const days = args.keepDays ?? process.env.ARBOR_MCP_KEEP_DAYS;
    const keepDays = days === undefined || days === '' ? 7 : Number(days);
    if (!(keepDays > 0 && keepDays <= 3650)) {
      throw new UsageError(`${args.keepDays === undefined ? 'ARBOR_MCP_KEEP_DAYS=' : '--keep-days '}${days}: expected days (more than 0, at most 3650)`);
    }
    const limits = sessionLimits(args);
    const sealedQueue = await openSealedQueue(args, zoo);
    // Bundle code of a dev eval runs as this user: it finds no secret of this process (the salt, the queue key, the queue's URL) in /proc/<pid>/environ.
    (await import('../../lib/run/eval-process.js')).scrubInitialEnvironment();
    const {serverSalt} = await import('../../lib/mcp/salt.js');
    const salt = serverSalt(process.env);
    // The salt reaches the tools through the server's environment only; eval processes never get it.
    const env = salt.source === 'file' ? {...process.env, ARBOR_TEST_SALT: salt.salt} : process.env;
    process.stderr.write(
      salt.source === 'file'
        ? `arbor mcp: test salt ${salt.made ? 'made in' : 'from'} ${salt.file} (ARBOR_TEST_SALT is not set)\n`
        : 'arbor mcp: test salt from ARBOR_TEST_SALT\n',
    );
    // The same folder for every server of this user on this zoo (a server started per call finds the last one's workspaces); made by the first checkout.
    const {defaultWorkspaces, sweepWorkspaces} = await import('../../lib/mcp/workspace.js');
    const workspaces = args.workspaces ? path.resolve(args.workspaces) : defaultWorkspaces(zoo, process.env, os.homedir());
    const ctx = await createContext({zoo, workspaces, env, sealedRelease, limits, keepMs: keepDays * 86_400_000, ...(sealedQueue ? {sealedQueue} : {})});
    // The owner finds the session's counts and calls by this id: arbor benchmark runs --session <id>.
    const {sessionOf} = await import('../../lib/mcp/session.js');
    process.stderr.write(
      `arbor mcp: session ${sessionOf(ctx.store, ctx.workspaces).id} (the workspaces folder ${workspaces}; its calls: arbor benchmark runs --session <id>)\n`,
    );
    const swept = sweepWorkspaces(ctx);
    ctx.runs.sweep(ctx.keepMs);
    (await import('../../lib/mcp/snapshot.js')).sweepSnapshots(ctx.store.file, ctx.keepMs);
    if (swept.length > 0) process.stderr.write(`arbor mcp: removed ${swept.length} workspace(s) no tool used for ${keepDays} days: ${swept.join(', ')}\n`);
    // Node opens its inspector on SIGUSR1; a listener keeps it closed to anything that can signal this process.
    process.on('SIGUSR1', () => {});
    const serve = await import('../../lib/mcp/serve.js');
    if (port === undefined) {
      await serve.serveStdio(ctx);
      return;
    }
    const token = process.env.ARBOR_MCP_TOKEN || serve.generatedToken();
    const {url, close} = await serve.serveHttp(ctx, {port, token});
    process.stderr.write(
      `arbor mcp: serving ${zoo} at ${url}${process.env.ARBOR_MCP_TOKEN ? ' (bearer token from ARBOR_MCP_TOKEN)' : `\narbor mcp: bearer token ${token}`}\n`,
    );
    await new Promise<void>((resolve) => {
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void close().then(resolve));
    });
  },
};

/**
 * `--sealed-queue` (else ARBOR_SEALED_QUEUE): its URL checked, the queue key
 * read, Redis reached once (each a one-line UsageError, exit 2), and one line
 * on stderr saying where submit_test's compares go, with the entries whose
 * jobs would be refused here already (no arbor.lock, or files that differ from it).
 */
async function openSealedQueue(args: McpArgs, zoo: string) {
  const [{parseQueueUrl, sealedQueueVariable}, {resolveQueueKey}] = await Promise.all([import('../../lib/run/redis.js'), import('../../lib/run/auth.js')]);
  const fromEnv = process.env[sealedQueueVariable];
  const text = args.sealedQueue ?? (fromEnv === '' ? undefined : fromEnv);
  if (text === undefined) {
    if (args.sealedQueueName !== undefined) throw new UsageError('--sealed-queue-name needs --sealed-queue redis://HOST:PORT[/DB]');
    return undefined;
  }
  const where = args.sealedQueue !== undefined ? '--sealed-queue' : sealedQueueVariable;
  const address = parseQueueUrl(text, where);
  const key = resolveQueueKey(undefined, process.env);
  const {CompareQueue} = await import('../../lib/run/compare-queue.js');
  const queue = new CompareQueue({address, key, queueName: args.sealedQueueName, where});
  await queue.check();
  const unlocked = await unlockedEntries(zoo);
  process.stderr.write(
    `arbor mcp: submit_test compares on the workers of queue ${queue.name} at ${address.shown}, not here` +
      (unlocked.length > 0 ? `; its jobs cannot be made for ${unlocked.join(', ')} (lock them with arbor benchmark lock)` : '') +
      '\n',
  );
  return queue;
}

/** The zoo's entries a compare job cannot be made for: no arbor.lock, or protected files that differ from it. */
async function unlockedEntries(zoo: string): Promise<string[]> {
  const [{readdirSync, existsSync}, {isSkippedName}, {loadPlan}, {computeLock, lockDifference, readLock}] = await Promise.all([
    import('node:fs'),
    import('../../lib/zoo/list.js'),
    import('../../lib/benchmark/plan.js'),
    import('../../lib/benchmark/lock.js'),
  ]);
  const found: string[] = [];
  for (const name of readdirSync(zoo).sort()) {
    const dir = path.join(zoo, name);
    if (isSkippedName(name) || !existsSync(path.join(dir, 'plan.toml'))) continue;
    const ok = await (async () => {
      const plan = await loadPlan(dir);
      const lock = await readLock(dir);
      return lock !== null && lock !== undefined && !lockDifference(lock, await computeLock(dir, plan));
    })().catch(() => false);
    if (!ok) found.push(`${name} (${(await readLock(dir).catch(() => undefined)) ? 'differs from its arbor.lock' : 'no arbor.lock'})`);
  }
  return found;
}
