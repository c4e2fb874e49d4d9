/**
 * A sealed call longer than the client's request timeout (issue 53, item 2),
 * through the SDK's own client over stdio, as docs/agents.md's recipes for
 * clients with a short timeout say: with `{timeout: 15 s,
 * resetTimeoutOnProgress: true}` submit_test answers after its 50 s release
 * period (more than 3 timeouts), because its progress (a clock's tick every
 * 5 s) resets the timeout; the same call without the reset times out (what
 * the recipe guards against); and `background: true` answers the id at once,
 * then get_run has the verdict. The period is the owner's
 * (ARBOR_SEALED_RELEASE in the server's environment), never the agent's.
 */
import {readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {ErrorCode, McpError} from '@modelcontextprotocol/sdk/types.js';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {cliPath} from '../helpers/cli.js';
import {runIdShape, runsSettled, salt, startedRun, Transcript, zooCopy} from './helpers.js';

/** The owner's release period (s): every submit_test answer comes this long after its call. */
const period = 50;
/** The client's request timeout (ms): less than a third of the period. */
const timeout = 15_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('arbor mcp: a sealed call longer than the client timeout', () => {
  let zoo: string;
  let remove = () => {};
  let client: Client;
  beforeAll(async () => {
    ({zoo, remove} = zooCopy([], ['relu_poly']));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, 'mcp', zoo, '--workspaces', path.join(path.dirname(zoo), 'workspaces')],
      env: {...(process.env as Record<string, string>), ARBOR_TEST_SALT: salt, ARBOR_SEALED_RELEASE: String(period)},
      stderr: 'ignore',
    });
    client = new Client({name: 'arbor-short-timeout-agent', version: '1.0.0'});
    await client.connect(transport);
  });
  afterAll(async () => {
    await client?.close();
    await runsSettled(zoo);
    remove();
  });

  it('answers through progress that resets a 15 s timeout after more than 3 timeouts; without the reset it times out; background + get_run answers', {
    timeout: 150_000,
  }, async () => {
    const description = (await client.listTools()).tools.find((tool) => tool.name === 'submit_test')!.description!;
    // The tool itself tells a client with a short timeout both ways and the tick.
    expect(description).toMatch(/sealedAnswerSeconds.*a progress notification comes every 5 s.*background: true and poll get_run/);

    const file = path.join(zoo, 'relu_poly/candidate.py');
    writeFileSync(file, `${readFileSync(path.join(zoo, 'relu_poly/solution.py'), 'utf8')}\n# candidate\n`);
    const args = {name: 'relu_poly', solution: 'relu_poly/candidate.py'};
    const transcript = new Transcript();

    // The recipe: a plain call with a progress token and a timeout that progress resets.
    const progress: string[] = [];
    const called = Date.now();
    const reset = transcript.call(client, 'submit_test', args, {
      timeout,
      resetTimeoutOnProgress: true,
      onprogress: (p) => void progress.push(p.message ?? ''),
    });
    for (let tries = 0; tries < 100 && progress.length === 0; tries++) await sleep(100);
    expect(progress[0]).toMatch(
      new RegExp(`^run-\\S+ started: answer at \\d\\d:\\d\\d:\\d\\d, in (${period - 1}|${period}) s; should this call time out, poll get_run`),
    );

    // The same call without the reset (it follows the first's scoring: no second eval) times out at 15 s.
    const fixed = transcript.call(client, 'submit_test', args, {timeout, resetTimeoutOnProgress: false, onprogress: () => {}});
    // A client with a fixed timeout and no tasks: background, then get_run until done.
    const started = await transcript.call(client, 'submit_test', {...args, background: true});
    expect(started).toMatchObject({id: expect.stringMatching(runIdShape), status: 'running'});

    const timedOut = await fixed.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(timedOut).toBeInstanceOf(McpError);
    expect((timedOut as McpError).code).toBe(ErrorCode.RequestTimeout);

    let polled: Record<string, any> = {};
    let polls = 0;
    for (; polls < 150; polls++) {
      polled = await transcript.call(client, 'get_run', {id: started.id});
      if (polled.status !== 'running') break;
      await sleep(1000);
    }

    const answered = await reset;
    const wall = Date.now() - called;
    expect(wall).toBeGreaterThanOrEqual(period * 1000);
    expect(wall).toBeGreaterThan(3 * timeout);
    expect(answered).toMatchObject({name: 'relu_poly', verdict: 'same', bucket: '0.9-1.1x', budget: {used: 1, of: 5}});
    expect(startedRun(progress[0])).toBe(answered.id);
    // More progress than timeouts in the period: each one reset the timeout (the clock ticks every 5 s).
    expect(progress.length).toBeGreaterThan((period * 1000) / timeout);
    expect(progress.slice(1).every((line) => / answer at \d\d:\d\d:\d\d, in \d+ s$/.test(line))).toBe(true);
    expect(polls).toBeGreaterThan(10);
    // The fixed call and the background one counted second and third, in either order.
    expect(polled).toMatchObject({status: 'done', result: {verdict: 'same', bucket: '0.9-1.1x', budget: {used: expect.toBeOneOf([2, 3]), of: 5}}});
  });
});
