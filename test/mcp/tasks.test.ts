/**
 * MCP tasks with the SDK's own client: evaluate runs as a task, the client
 * disconnects (its server process ends), a new client on a new server process
 * gets the task's status and result; tasks/list lists it; tasks/cancel stops
 * a dev task and refuses a submit_test task, whose answer still comes.
 */
import {existsSync} from 'node:fs';
import path from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {CallToolResultSchema} from '@modelcontextprotocol/sdk/types.js';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {cliPath} from '../helpers/cli.js';
import {runIdShape, runsSettled, salt, zooCopy} from './helpers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * The servers' sealed release period (s): well past relu_poly's test eval (a few seconds), so a dev eval that ends
 * after it waited for the held turn, not the eval; and past 3 of the dev run's 5 s progress updates (30 s before).
 */
const release = 20;

/** A client on a new `arbor mcp` process. */
async function connect(zoo: string, workspaces: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath, 'mcp', zoo, '--workspaces', workspaces],
    env: {...(process.env as Record<string, string>), ARBOR_TEST_SALT: salt, ARBOR_SEALED_RELEASE: String(release)},
    stderr: 'ignore',
  });
  const client = new Client({name: 'arbor-task-agent', version: '1.0.0'});
  await client.connect(transport);
  return {client, pid: transport.pid!};
}

/** Start `tool` as a task; its first message, the task, and nothing more (the client leaves it running). */
async function startTask(client: Client, tool: string, args: Record<string, unknown>) {
  const stream = client.experimental.tasks.callToolStream({name: tool, arguments: args}, CallToolResultSchema, {task: {ttl: 3_600_000}});
  const first = await stream.next();
  await stream.return(undefined);
  const message = first.value as {type: string; task?: {taskId: string; status: string}};
  expect(message.type).toBe('taskCreated');
  return message.task!;
}

/** tasks/get until the task ends. */
async function ended(client: Client, taskId: string) {
  for (let tries = 0; tries < 240; tries++) {
    const task = await client.experimental.tasks.getTask(taskId);
    if (task.status !== 'working') return task;
    await sleep(500);
  }
  throw new Error(`${taskId} still working`);
}

describe('arbor mcp tasks', () => {
  let zoo: string;
  let workspaces: string;
  let remove = () => {};
  beforeAll(() => {
    ({zoo, remove} = zooCopy(['relu_poly'], ['algotune_knn', 'relu_poly']));
    workspaces = path.join(path.dirname(zoo), 'workspaces');
  });
  afterAll(async () => {
    await runsSettled(zoo);
    remove();
  });

  it('evaluate as a task survives its client and server: a new server process gives its status and result', {timeout: 300_000}, async () => {
    const first = await connect(zoo, workspaces);
    const tools = (await first.client.listTools()).tools;
    expect(Object.fromEntries(tools.map((tool) => [tool.name, tool.execution?.taskSupport]))).toMatchObject({
      evaluate: 'optional',
      compare: 'optional',
      submit_test: 'optional',
      list_benchmarks: 'forbidden',
    });
    expect(first.client.getServerCapabilities()?.tasks).toEqual({list: {}, cancel: {}, requests: {tools: {call: {}}}});
    const task = await startTask(first.client, 'evaluate', {name: 'algotune_knn', repetitions: 2, maxSeconds: 0});
    expect(task).toMatchObject({taskId: expect.stringMatching(runIdShape), status: 'working'});
    await first.client.close();
    for (let tries = 0; tries < 40 && existsSync(`/proc/${first.pid}`); tries++) await sleep(100);
    expect(existsSync(`/proc/${first.pid}`)).toBe(false);

    const second = await connect(zoo, workspaces);
    try {
      expect((await ended(second.client, task.taskId)).status).toBe('completed');
      const result = await second.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({id: task.taskId, name: 'algotune_knn', split: 'dev', metric: 'speedup', repetitions: 2});
      expect((result.structuredContent as {score: number}).score).toBeGreaterThan(0.5);
      // The same run through get_run, for clients without tasks.
      const polled = await second.client.callTool({name: 'get_run', arguments: {id: task.taskId}});
      expect(polled.structuredContent).toMatchObject({status: 'done', result: {id: task.taskId}});
      const listed = await second.client.experimental.tasks.listTasks();
      expect(listed.tasks.map((each) => each.taskId)).toContain(task.taskId);
    } finally {
      await second.client.close();
    }
  });

  it('tasks/cancel stops a dev task; a submit_test task cannot be cancelled, answers at its release time and holds its turn to it', {
    timeout: 300_000,
  }, async () => {
    const {client} = await connect(zoo, workspaces);
    try {
      const dev = await startTask(client, 'evaluate', {name: 'algotune_knn', repetitions: 20});
      await sleep(1500);
      const cancelled = await client.experimental.tasks.cancelTask(dev.taskId);
      expect(cancelled.status).toBe('cancelled');
      const run = await client.callTool({name: 'get_run', arguments: {id: dev.taskId}});
      expect(run.structuredContent).toMatchObject({
        status: 'cancelled',
        error: `${dev.taskId} was cancelled: its eval was stopped and its work folder removed`,
      });

      const called = Date.now();
      const sealed = await startTask(client, 'submit_test', {name: 'relu_poly', solution: 'relu_poly/solution.py'});
      await expect(client.experimental.tasks.cancelTask(sealed.taskId)).rejects.toThrow(
        /is a submit_test: the call has counted, and its test eval runs on to its answer/,
      );
      // A dev eval asked for meanwhile waits for the sealed eval's turn, which is held to the release time (20 s):
      // it ends after that, however soon the test eval itself ended (relu_poly's takes a few seconds), so when it
      // starts says nothing of how long the candidate's test eval took.
      const dev2 = await startTask(client, 'evaluate', {name: 'algotune_knn', repetitions: 1, maxSeconds: 0});
      expect((await ended(client, dev2.taskId)).status).toBe('completed');
      expect(Date.now() - called).toBeGreaterThanOrEqual(release * 1000);
      const devRun = (await client.callTool({name: 'get_run', arguments: {id: dev2.taskId}})).structuredContent as {progress: {updates: number}};
      expect(devRun.progress.updates).toBeGreaterThan(2);
      expect((await ended(client, sealed.taskId)).status).toBe('completed');
      const result = await client.experimental.tasks.getTaskResult(sealed.taskId, CallToolResultSchema);
      expect(result.structuredContent).toEqual({id: sealed.taskId, name: 'relu_poly', verdict: 'same', bucket: '0.9-1.1x', budget: {used: 1, of: 2}});
    } finally {
      await client.close();
    }
  });
});
