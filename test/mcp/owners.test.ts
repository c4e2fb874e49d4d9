/**
 * Runs belong to the client that started them (the client being its server's
 * workspaces folder): two agents, each with its own SDK client, its own
 * `arbor mcp` process and its own workspaces folder, on one zoo. The second
 * cannot guess the first's run id, nor get, read the result of, list or
 * cancel its run: every such call answers what an unknown id gets. The first
 * still can; the owner's CLI lists every run. An older store (numbered ids)
 * still opens, its runs named by no client.
 */
import {randomBytes} from 'node:crypto';
import {mkdirSync, readdirSync, statSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {CallToolResultSchema} from '@modelcontextprotocol/sdk/types.js';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {cliPath, runCli} from '../helpers/cli.js';
import {runsSettled, salt, Transcript, zooCopy} from './helpers.js';

/** The store as version 1 made it (numbered run ids, no owners): frozen history, so a copy. */
const storeV1 = `
CREATE TABLE workspaces (path TEXT PRIMARY KEY, root TEXT NOT NULL, name TEXT NOT NULL, dev INTEGER NOT NULL, ino INTEGER NOT NULL, uid INTEGER NOT NULL, made TEXT NOT NULL, used TEXT NOT NULL);
CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, tool TEXT NOT NULL, sealed INTEGER NOT NULL, key TEXT, status TEXT NOT NULL, started TEXT NOT NULL, started_ms INTEGER NOT NULL, updated TEXT NOT NULL, updates INTEGER NOT NULL DEFAULT 0, last TEXT, result TEXT, error TEXT, pid INTEGER, pid_start TEXT, task INTEGER NOT NULL DEFAULT 0, ttl_ms INTEGER, poll_ms INTEGER, name TEXT, release_from INTEGER, release_every INTEGER, fail_at INTEGER);
CREATE INDEX runs_key ON runs (key, status);
CREATE TABLE progress (run INTEGER NOT NULL, n INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY (run, n));
CREATE TABLE turns (seq INTEGER PRIMARY KEY AUTOINCREMENT, run INTEGER NOT NULL, exclusive INTEGER NOT NULL, pid INTEGER NOT NULL, pid_start TEXT, release_from INTEGER, release_every INTEGER, until_ms INTEGER);
`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A client on a new `arbor mcp` process with its own workspaces folder. */
async function connect(zoo: string, workspaces: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath, 'mcp', zoo, '--workspaces', workspaces],
    env: {...(process.env as Record<string, string>), ARBOR_TEST_SALT: salt},
    stderr: 'ignore',
  });
  const client = new Client({name: `agent-${path.basename(workspaces)}`, version: '1.0.0'});
  await client.connect(transport);
  return client;
}

/** Start `tool` as a task; the task, which the client leaves running. */
async function startTask(client: Client, tool: string, args: Record<string, unknown>) {
  const stream = client.experimental.tasks.callToolStream({name: tool, arguments: args}, CallToolResultSchema, {task: {ttl: 3_600_000}});
  const first = await stream.next();
  await stream.return(undefined);
  return (first.value as {task: {taskId: string; status: string}}).task;
}

/** get_run until the run ends; its result. */
async function done(transcript: Transcript, client: Client, id: string) {
  for (let tries = 0; tries < 240; tries++, await sleep(500)) {
    const run = await transcript.call(client, 'get_run', {id});
    if (run.status !== 'running') return run;
  }
  throw new Error(`${id} still running`);
}

/** What a call answered (a tool error's text, or a rejected request's message), with `id` put as ID. */
async function answer(call: Promise<unknown>, id: string): Promise<string> {
  const text = await call.then(
    (result) => ((result as {content?: Array<{text: string}>}).content ?? [{text: JSON.stringify(result)}])[0]!.text,
    (error: Error) => `rejected: ${error.message}`,
  );
  return text.split(id).join('ID');
}

/** Every answer of `client` about run `id`: get_run, tasks/get, tasks/result, tasks/cancel. */
async function answers(client: Client, id: string): Promise<string[]> {
  return [
    await answer(client.callTool({name: 'get_run', arguments: {id}}), id),
    await answer(client.experimental.tasks.getTask(id), id),
    await answer(client.experimental.tasks.getTaskResult(id, CallToolResultSchema), id),
    await answer(client.experimental.tasks.cancelTask(id), id),
  ];
}

describe('arbor mcp runs belong to their client', () => {
  let zoo: string;
  let root: string;
  let remove = () => {};
  beforeAll(() => {
    ({zoo, root, remove} = zooCopy([], ['algotune_knn']));
  });
  afterAll(async () => {
    await runsSettled(zoo);
    remove();
  }, 150_000);

  it("a second agent cannot get, read, list or cancel the first's run; the first can; the owner's CLI lists both", {timeout: 300_000}, async () => {
    const first = await connect(zoo, path.join(root, 'workspaces-a'));
    const second = await connect(zoo, path.join(root, 'workspaces-b'));
    const transcript = new Transcript();
    try {
      const long = await startTask(first, 'evaluate', {name: 'algotune_knn', repetitions: 20});
      const unknown = `run-${randomBytes(16).toString('base64url')}`;
      const asUnknown = await answers(second, unknown);
      expect(asUnknown[0]).toMatch(/^run "ID" is not a run of this zoo's servers: pass the id/);
      expect(asUnknown.slice(1)).toEqual([
        'rejected: MCP error -32602: MCP error -32602: Failed to retrieve task: Task not found',
        'rejected: MCP error -32602: MCP error -32602: Task not found: ID',
        'rejected: MCP error -32602: MCP error -32602: Task not found: ID',
      ]);
      // Byte for byte what an unknown id gets, while the run is running: no "exists, but not yours".
      expect(await answers(second, long.taskId)).toEqual(asUnknown);
      // The store's row number, the id every run had before, names nothing either.
      expect(await answers(second, 'run-1')).toEqual(asUnknown);
      expect((await second.experimental.tasks.listTasks()).tasks).toEqual([]);
      // 128 random bits, URL-safe: nothing to count up to.
      expect(long.taskId).toMatch(/^run-[A-Za-z0-9_-]{22}$/);
      // Its log, the owner's: 0600 in a 0700 folder, named by neither the id nor a count.
      const logs = path.join(zoo, '.arbor/mcp-logs');
      expect(statSync(logs).mode & 0o777).toBe(0o700);
      const names = readdirSync(logs);
      expect(names).toHaveLength(1);
      expect(names[0]).toMatch(/^run-[0-9a-f]{32}\.log$/);
      expect(names[0]).not.toContain(long.taskId.slice(4));
      expect(statSync(path.join(logs, names[0]!)).mode & 0o777).toBe(0o600);
      // The first agent's run is still its own: it runs, and it can cancel it.
      expect((await first.experimental.tasks.getTask(long.taskId)).status).toBe('working');
      expect((await first.experimental.tasks.listTasks()).tasks.map((task) => task.taskId)).toEqual([long.taskId]);
      expect((await first.experimental.tasks.cancelTask(long.taskId)).status).toBe('cancelled');

      // One quick eval each: each lists its own, the owner's CLI both.
      const mine = await transcript.call(first, 'evaluate', {name: 'algotune_knn', repetitions: 1, maxSeconds: 0, background: true});
      const theirs = await transcript.call(second, 'evaluate', {name: 'algotune_knn', repetitions: 1, maxSeconds: 0, background: true});
      const [a, b] = [await done(transcript, first, mine.id), await done(transcript, second, theirs.id)];
      expect([a.status, b.status]).toEqual(['done', 'done']);
      expect(a.result.runId, JSON.stringify(a.result)).toEqual(expect.any(Number));
      expect(await answers(second, mine.id)).toEqual(asUnknown);
      const listedBy = async (client: Client) => (await transcript.call(client, 'list_runs', {})).runs.map((run: {id: number}) => run.id);
      expect(await listedBy(first)).toEqual([a.result.runId]);
      expect(await listedBy(second)).toEqual([b.result.runId]);
      const latest = async (client: Client) => (await transcript.call(client, 'list_benchmarks')).benchmarks[0].latestDev.run;
      expect([await latest(first), await latest(second)]).toEqual([a.result.runId, b.result.runId]);
      const owner = runCli(['benchmark', 'runs', '--json'], {cwd: zoo});
      expect(owner.code, owner.stderr).toBe(0);
      const ids = (JSON.parse(owner.stdout) as {runs: Array<{id: number}>}).runs.map((run) => run.id);
      expect(ids.sort()).toEqual([a.result.runId, b.result.runId].sort());
      // No client was told a store row number: every id it saw is a random one.
      expect(transcript.texts.join('\n')).not.toMatch(/run-\d+(?![\w-])/);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("a store of version 1 still opens: its numbered runs are no client's, and stay in the store until swept", {timeout: 60_000}, async () => {
    const old = zooCopy([], ['algotune_knn']);
    try {
      const file = path.join(old.zoo, '.arbor/runs.db.mcp.db');
      mkdirSync(path.dirname(file), {recursive: true, mode: 0o700});
      const {default: Sqlite} = await import('better-sqlite3');
      let db = new Sqlite(file);
      db.exec(storeV1);
      const now = new Date().toISOString();
      db.prepare(
        "INSERT INTO runs (tool, sealed, status, started, started_ms, updated, task, result) VALUES ('evaluate', 0, 'done', ?, ?, ?, 1, '{\"id\":\"run-1\"}')",
      ).run(now, Date.now(), now);
      db.pragma('user_version = 1');
      db.close();
      mkdirSync(path.join(old.zoo, '.arbor/mcp-logs'), {mode: 0o700});
      writeFileSync(path.join(old.zoo, '.arbor/mcp-logs/run-1.log'), 'an old run\n');
      const client = await connect(old.zoo, path.join(old.root, 'workspaces'));
      try {
        const unknown = `run-${randomBytes(16).toString('base64url')}`;
        expect(await answers(client, 'run-1')).toEqual(await answers(client, unknown));
        expect((await client.experimental.tasks.listTasks()).tasks).toEqual([]);
      } finally {
        await client.close();
      }
      db = new Sqlite(file, {readonly: true});
      // Migrated through version 2 (ids, owners) to 3 (sessions, lib/mcp/session.ts).
      expect(db.pragma('user_version', {simple: true})).toBe(3);
      expect(db.prepare('SELECT id, public_id, owner FROM runs').all()).toEqual([{id: 1, public_id: null, owner: null}]);
      db.close();
      // Its log is kept while its run is (the sweep goes by the store, the old names too).
      expect(readdirSync(path.join(old.zoo, '.arbor/mcp-logs'))).toEqual(['run-1.log']);
    } finally {
      old.remove();
    }
  });
});
