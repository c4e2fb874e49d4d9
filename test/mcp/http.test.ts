/**
 * `arbor mcp --http`: Streamable HTTP on 127.0.0.1 behind a bearer token. The
 * SDK's client drives the three other zoo entries through the whole flow
 * (checkout, evaluate, compare, submit_test) at the fewest repetitions the
 * tools take; the results are scanned for secrets.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import {copyFileSync} from 'node:fs';
import path from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {cliPath, repoRoot} from '../helpers/cli.js';
import {expectSealed, runIdShape, runsSettled, salt, Transcript, zooCopy} from './helpers.js';

const solutions = path.join(repoRoot, 'test/zoo-entries/solutions');

/** Start `arbor mcp --http 0` and read its URL and generated token from stderr. */
async function startServer(zoo: string): Promise<{server: ChildProcess; url: string; token: string}> {
  const env: NodeJS.ProcessEnv = {...process.env, ARBOR_TEST_SALT: salt, ARBOR_SEALED_RELEASE: '1'};
  delete env.ARBOR_MCP_TOKEN;
  const server = spawn(process.execPath, [cliPath, 'mcp', zoo, '--http', '0', '--workspaces', path.join(path.dirname(zoo), 'workspaces')], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  server.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  for (let tries = 0; tries < 100 && !/bearer token \S+\n/.test(stderr); tries++) await new Promise((resolve) => setTimeout(resolve, 100));
  const url = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1];
  const token = /bearer token (\S+)\n/.exec(stderr)?.[1];
  if (!url || !token) throw new Error(`the server did not say where it listens: ${stderr}`);
  return {server, url, token};
}

describe('arbor mcp --http', () => {
  let zoo: string;
  let remove = () => {};
  let server: ChildProcess;
  let url: string;
  let token: string;
  let client: Client;
  const transcript = new Transcript();
  beforeAll(async () => {
    ({zoo, remove} = zooCopy());
    ({server, url, token} = await startServer(zoo));
    client = new Client({name: 'arbor-test-agent', version: '1.0.0'});
    await client.connect(new StreamableHTTPClientTransport(new URL(url), {requestInit: {headers: {Authorization: `Bearer ${token}`}}}));
  });
  afterAll(async () => {
    await client?.close();
    server?.kill('SIGTERM');
    await runsSettled(zoo);
    remove();
  });

  it('listens on 127.0.0.1 only and refuses a request without the bearer token', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'x', version: '1'}},
    };
    for (const headers of [{}, {Authorization: 'Bearer wrong'}] as Array<Record<string, string>>) {
      const response = await fetch(url, {
        method: 'POST',
        headers: {'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers},
        body: JSON.stringify(initialize),
      });
      expect(response.status).toBe(401);
      expect(((await response.json()) as {error: {message: string}}).error.message).toBe(
        'missing or wrong bearer token: send Authorization: Bearer $ARBOR_MCP_TOKEN',
      );
    }
  });

  it('drives polymul_negacyclic, toeplitz_solve and relu_poly through checkout, evaluate, compare and submit_test', {timeout: 480_000}, async () => {
    const cases = [
      {name: 'polymul_negacyclic', solution: 'polymul_ntt.py', compare: 'better', sealed: 'PASS'},
      {name: 'toeplitz_solve', solution: 'toeplitz_fft_jacobi.py', compare: 'better', sealed: 'PASS'},
      // An accuracy entry: a solution answering NaN is worse, and its bucket says it failed: no scorable answer (no-answer) where the baseline gave one.
      {name: 'relu_poly', solution: 'relu_nan.py', compare: 'worse', sealed: 'worse'},
    ];
    const drive = async ({name, solution, compare, sealed}: (typeof cases)[number]) => {
      const workspace = await transcript.call(client, 'checkout', {name});
      // In the background: the call answers the run id at once, get_run gives the result.
      const started = await transcript.call(client, 'evaluate', {workspace: workspace.workspace, repetitions: 1, maxSeconds: 0, background: true});
      expect(started).toEqual({id: expect.stringMatching(runIdShape), status: 'running', remaining: expect.any(Object)});
      let run;
      do run = await transcript.call(client, 'get_run', {id: started.id});
      while (run.status === 'running' && (await new Promise((resolve) => setTimeout(resolve, 500))) === undefined);
      expect(run).toMatchObject({status: 'done', result: {name, split: 'dev', runId: expect.any(Number)}});
      expect(run.result.score).toBeGreaterThan(0);
      copyFileSync(path.join(solutions, solution), workspace.solution);
      const compared = await transcript.call(client, 'compare', {name, baseline: 'baseline', candidate: workspace.solution, repetitions: 1, maxSeconds: 0});
      expect(compared.verdict).toBe(compare);
      const submitted = await transcript.call(client, 'submit_test', {name, solution: workspace.workspace});
      expect(submitted).toMatchObject({name, verdict: sealed, budget: {used: 1, of: 5}});
      // The sealed answer, and the session's remaining (lib/mcp/session.ts): nothing else.
      expect(Object.keys(submitted).sort()).toEqual(['bucket', 'budget', 'id', 'name', 'remaining', 'verdict']);
      if (compare === 'worse') expect(submitted.bucket).toBe('failed');
    };
    await Promise.all(cases.map(drive));
    await expectSealed(transcript, zoo, 3);
  });
});
