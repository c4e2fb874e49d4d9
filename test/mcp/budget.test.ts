/**
 * The sealed test split as an adversary meets it, through the SDK's client:
 * a server with no ARBOR_TEST_SALT makes its own (0600, in the config folder)
 * and derives the test seeds from it; checkout leaves a path split's test data
 * out; every submit_test call counts, the same file twice gets the same answer
 * without a second ledger run, and both answers come at the fixed release
 * time (in the background too: get_run shows no result before it); an
 * accuracy entry's baseline is `0.9-1.1x`, not `failed`; the dev history names
 * no solution of the owner's by its path. One test eval in all (relu_poly).
 */
import {mkdirSync, readFileSync, readdirSync, statSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {cliPath, runCli} from '../helpers/cli.js';
import {runIdShape, runsSettled, Transcript, zooCopy} from './helpers.js';

/**
 * Seconds from a submit_test call to its answer on this server: more than relu_poly's test compare takes (about 5 s),
 * so the answer waits for the period, not the eval. The two calls wait it out one after the other (15 s before).
 */
const release = 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A server with no salt in its environment, its config folder at `config`; its stderr kept. */
async function connect(zoo: string, config: string) {
  const env: Record<string, string> = {...(process.env as Record<string, string>), XDG_CONFIG_HOME: config, ARBOR_SEALED_RELEASE: String(release)};
  delete env.ARBOR_TEST_SALT;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath, 'mcp', zoo, '--workspaces', path.join(path.dirname(zoo), 'workspaces')],
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({name: 'arbor-test-agent', version: '1.0.0'});
  await client.connect(transport);
  for (let tries = 0; tries < 50 && !stderr.includes('\n'); tries++) await sleep(100);
  return {client, stderr: () => stderr};
}

/** The zoo ledger's test runs. */
async function testRuns(zoo: string) {
  const {openLedger} = await import('../../lib/ledger/ledger.js');
  const ledger = openLedger(path.join(zoo, '.arbor/runs.db'), {readonly: true});
  try {
    return ledger.listRuns({split: 'test', withCases: false});
  } finally {
    ledger.close();
  }
}

/** Every file under `dir`, relative. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(path.join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`],
  );
}

describe('arbor mcp: the sealed test split against an adversary', () => {
  let zoo: string;
  let config: string;
  let owner: string;
  let client: Client;
  let stderr: () => string;
  let remove = () => {};
  const transcript = new Transcript();
  beforeAll(async () => {
    ({zoo, remove} = zooCopy(['relu_poly'], ['relu_poly', 'shortest_path']));
    config = path.join(path.dirname(zoo), 'config');
    // The owner's dev eval of a solution of their own, outside the zoo: the ledger labels it with its absolute path.
    owner = path.join(path.dirname(zoo), 'owner-private', 'deep', 'er');
    const solution = path.join(owner, 'relu_owner_fast.py');
    mkdirSync(owner, {recursive: true});
    writeFileSync(solution, readFileSync(path.join(zoo, 'relu_poly/solution.py')));
    const evaluated = runCli(['benchmark', 'eval', path.join(zoo, 'relu_poly'), 'dev', '--solution', solution], {cwd: zoo});
    expect(evaluated.code, evaluated.stderr).toBe(0);
    ({client, stderr} = await connect(zoo, config));
  });
  afterAll(async () => {
    await client?.close();
    await runsSettled(zoo);
    remove();
  });

  it('makes its own salt once (0600 in the config folder), says where, and reuses it', async () => {
    const file = path.join(config, 'arbor', 'test-salt');
    expect(stderr()).toContain(`arbor mcp: test salt made in ${file} (ARBOR_TEST_SALT is not set)`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    const salt = readFileSync(file, 'utf8');
    expect(salt.trim()).toMatch(/^[0-9a-f]{64}$/);
    // A second server of the same user reads it, never writes another.
    const second = await connect(zoo, config);
    expect(second.stderr()).toContain(`arbor mcp: test salt from ${file}`);
    await second.client.close();
    expect(readFileSync(file, 'utf8')).toBe(salt);
  });

  it("checkout leaves a path split's test data out and says so", async () => {
    const checkout = await transcript.call(client, 'checkout', {name: 'shortest_path'});
    expect(checkout.sealedTestData).toEqual({folder: 'data/test', files: filesUnder(path.join(zoo, 'shortest_path/data/test')).length});
    expect(filesUnder(path.join(checkout.workspace, 'data/test'))).toEqual(['SEALED/README.md', 'SEALED/manifest.json']);
    expect(filesUnder(path.join(checkout.workspace, 'data/dev'))).toEqual(filesUnder(path.join(zoo, 'shortest_path/data/dev')));
    const relu = await transcript.call(client, 'checkout', {name: 'relu_poly'});
    expect(relu.sealedTestData).toBeNull();
  });

  it('counts every call, answers a digest scored before as the first time without a rerun, at the fixed release time', {timeout: 240_000}, async () => {
    // The entry's own solution, unchanged, as the candidate: the same answers on both sides.
    const {workspace} = await transcript.call(client, 'checkout', {name: 'relu_poly', dest: 'same'});
    let started = Date.now();
    const first = await transcript.call(client, 'submit_test', {solution: workspace});
    const firstSeconds = (Date.now() - started) / 1000;
    // Every answer carries the session's remaining (lib/mcp/session.ts): this server sets no limit.
    const unlimited = {devEvals: null, devSeconds: null, sealed: null, seconds: null};
    expect(first).toEqual({
      id: expect.stringMatching(runIdShape),
      name: 'relu_poly',
      verdict: 'same',
      bucket: '0.9-1.1x',
      budget: {used: 1, of: 2},
      remaining: unlimited,
    });
    expect(firstSeconds).toBeGreaterThanOrEqual(release);
    const runs = await testRuns(zoo);
    expect(runs).toHaveLength(1);
    // Seeds derived from the server's own salt (the eval process never had it).
    expect(runs[0]!.seeds.source).toBe('derived');

    // Again, in the background: no result before its release time, then the first answer; no second ledger run.
    started = Date.now();
    const call = await transcript.call(client, 'submit_test', {solution: workspace, background: true});
    expect(call).toEqual({id: expect.stringMatching(runIdShape), status: 'running', remaining: unlimited});
    let polled = await transcript.call(client, 'get_run', {id: call.id});
    expect(polled.status).toBe('running');
    expect(polled.result).toBeUndefined();
    while (polled.status === 'running') {
      await sleep(500);
      polled = await transcript.call(client, 'get_run', {id: call.id});
    }
    const secondSeconds = (Date.now() - started) / 1000;
    expect(polled.status).toBe('done');
    // The run's own result: the call's remaining is the call's.
    expect({...polled.result, remaining: unlimited}).toEqual({...first, id: call.id, budget: {used: 2, of: 2}});
    expect(secondSeconds).toBeGreaterThanOrEqual(release);
    expect(await testRuns(zoo)).toHaveLength(1);

    // Past the budget: refused at once, whatever the solution.
    expect(await transcript.error(client, 'submit_test', {solution: workspace})).toBe(
      'submit_test: the test split of relu_poly has answered 2 submissions (every call counts, a resubmitted solution too), its test_budget of 2 is spent: choose between solutions on dev with compare',
    );
    // The budget is kept next to the ledger, out of every tool's reach.
    const kept = path.join(zoo, '.arbor/runs.db.sealed.json');
    expect(statSync(kept).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(kept, 'utf8')).entries.relu_poly.calls).toBe(2);
    expect(await transcript.error(client, 'evaluate', {name: 'relu_poly', solution: '.arbor/runs.db.sealed.json'})).toMatch(
      /outside the zoo and the workspaces checkout made/,
    );
  });

  it("names no solution of the owner's by its path: list_runs and list_benchmarks give its digest", async () => {
    const runs = await transcript.call(client, 'list_runs', {name: 'relu_poly'});
    const listed = await transcript.call(client, 'list_benchmarks');
    const text = JSON.stringify([runs, listed]);
    expect(runs.runs[0].solution).toMatch(/^sha256:[0-9a-f]{12}$/);
    expect(listed.benchmarks.find((row: {name: string}) => row.name === 'relu_poly').latestDev.solution).toBe(runs.runs[0].solution);
    for (const secret of [owner, 'owner-private', 'relu_owner_fast', zoo]) expect(text).not.toContain(secret);
    // Nothing the client saw holds the salt or a path of the zoo.
    const all = transcript.texts.join('\n');
    expect(all).not.toContain(readFileSync(path.join(config, 'arbor', 'test-salt'), 'utf8').trim());
    expect(all).not.toContain(`${zoo}/`);
  });
});
