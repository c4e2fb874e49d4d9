/**
 * The Redis a queue lives in: `--queue redis://HOST:PORT[/DB]` checked and
 * shown without its password, connection options that give up rather than
 * retry forever, and one connection attempt up front so an unreachable Redis
 * is a one-line usage error (exit 2) instead of a hang.
 */
import {UsageError} from '../errors.js';

/** The environment variable `arbor mcp` takes its sealed queue's URL from (where a Redis password stays out of the process list). */
export {sealedQueueVariable} from '../secrets.js';

/** The queue's name when none is given. */
export const defaultQueueName = 'arbor-eval';

/** A checked queue address. */
export interface QueueAddress {
  /** The URL as ioredis takes it. */
  url: string;
  /** The URL without a password, for messages. */
  shown: string;
  host: string;
  port: number;
  db: number;
}

/** How long one connection attempt may take before it counts as unreachable. */
const connectTimeoutMs = 5000;

/** Check `--queue` (or the option `where` names): a redis:// URL with a host, an optional port and an optional database number (and password). */
export function parseQueueUrl(text: string, where = '--queue'): QueueAddress {
  const hint = 'expected redis://HOST:PORT[/DB], e.g. redis://127.0.0.1:6379/0';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${where} ${text}: not a URL, ${hint}`);
  }
  if (url.protocol !== 'redis:') throw new UsageError(`${where} ${text}: unsupported scheme ${url.protocol.replace(/:$/, '')}, ${hint}`);
  if (!url.hostname) throw new UsageError(`${where} ${text}: no host, ${hint}`);
  const dbText = url.pathname.replace(/^\//, '');
  if (dbText !== '' && !/^\d+$/.test(dbText)) throw new UsageError(`${where} ${text}: database "${dbText}" is not a number, ${hint}`);
  if (url.search || url.hash) throw new UsageError(`${where} ${text}: unexpected ${url.search ? 'query' : 'fragment'}, ${hint}`);
  const port = url.port ? Number(url.port) : 6379;
  const shownUrl = new URL(url.href);
  if (shownUrl.password) shownUrl.password = '***';
  return {url: url.href, shown: shownUrl.href.replace(/\/$/, ''), host: url.hostname, port, db: dbText === '' ? 0 : Number(dbText)};
}

/**
 * Connection options for BullMQ's Redis connections: a bounded connect, and
 * reconnects (after a dropped connection, for a Redis that restarts) that
 * back off to 5 s between attempts. Whether Redis can be reached at all is
 * settled before, by checkRedis.
 */
export function connectionOptions(address: QueueAddress): Record<string, unknown> {
  return {
    url: address.url,
    connectTimeout: connectTimeoutMs,
    retryStrategy: (times: number) => Math.min(250 * 2 ** Math.min(times, 5), 5000),
  };
}

/** Connect once (no retries), PING and INFO, disconnect; a Redis that cannot be reached, or refuses INFO, is a UsageError naming it (and `where`, the option to fix). */
export async function checkRedis(address: QueueAddress, where = '--queue'): Promise<void> {
  const {Redis} = await import('ioredis');
  const client = new Redis(address.url, {
    lazyConnect: true,
    connectTimeout: connectTimeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    // INFO is asked below, where a refusal is said in one line.
    enableReadyCheck: false,
    retryStrategy: () => null,
  });
  let problem: string | undefined;
  client.on('error', (error: Error) => {
    problem ??= error.message;
  });
  try {
    await client.connect();
    await client.ping();
    // BullMQ's first command; an ACL user without it would leave BullMQ's connections open, retrying.
    await client.info('server').catch((error: unknown) => {
      throw queueRefused(address, error);
    });
    await client.quit();
  } catch (error) {
    if (error instanceof UsageError) {
      client.disconnect();
      throw error;
    }
    // A connection that never opened is already closed; disconnecting it anyway would hold the process for ioredis' 2 s disconnect timer.
    if (client.status !== 'end') client.disconnect();
    const message = problem ?? (error as Error).message;
    throw new UsageError(`cannot reach Redis at ${address.shown}: ${message}; start redis-server there or fix ${where}`, 'no-redis');
  }
}

/**
 * A Redis that took the connection but refuses a command the queue needs (an
 * ACL user without BullMQ's commands or the queue's keys): a UsageError
 * naming it, in place of ioredis' ReplyError.
 */
export function queueRefused(address: QueueAddress, error: unknown): unknown {
  if (!(error instanceof Error) || error.name !== 'ReplyError') return error;
  const message = error.message.split('\n', 1)[0];
  return new UsageError(
    `Redis at ${address.shown} refuses what the queue needs: ${message}; give this user the queue's keys and commands (lib/run/README.md, "Redis ACLs")`,
    'redis-refused',
    {cause: error},
  );
}
