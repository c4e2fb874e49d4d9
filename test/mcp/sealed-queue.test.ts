/**
 * `arbor mcp --sealed-queue`: submit_test's compare runs on a real `arbor
 * benchmark worker` (its own zoo copy and ARBOR_TEST_SALT) through a real
 * Redis, never on the serving machine: the server, whose python does not
 * even exist, answers a verdict computed from the worker's signed compare,
 * records it in its own ledger as a test compare, and says nothing secret (not
 * the worker's salt, its seeds, the scores, the key). A job the worker refuses
 * is the fixed failure answer, the reason on the server's stderr; no key, a
 * bad URL or an unreachable Redis is one line and exit 2 at startup. One eval
 * in all (abs-a's test compare, 3 cases a side).
 */
import {spawn, type ChildProcess} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {cpSync, existsSync, mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {loadPlan} from '../../lib/benchmark/plan.js';
import {deriveSeeds, warmupSeed} from '../../lib/eval/seeds.js';
import {openLedger} from '../../lib/ledger/index.js';
import {cliPath, fixtures, repoRoot, runCli} from '../helpers/cli.js';
import {freePort, startRedis, type TestRedis} from '../helpers/redis.js';
import {runIdShape, Transcript} from './helpers.js';

const queueKey = randomBytes(32).toString('hex');
/** The worker's salt: the server never has it. */
const workerSalt = `sealed-queue-worker-salt-${randomBytes(6).toString('hex')}`;
const queueName = `sealed-${process.pid}`;
const release = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('arbor mcp --sealed-queue: submit_test on a queue worker', () => {
  let redis: TestRedis;
  let root: string;
  let zoo: string;
  let workerZoo: string;
  let worker: ChildProcess;
  let workerErr = '';
  let client: Client;
  let serverErr = '';
  const transcript = new Transcript();

  beforeAll(async () => {
    redis = await startRedis();
    root = mkdtempSync(path.join(tmpdir(), 'arbor-sealed-queue-'));
    // The server's zoo: abs-a and abs-b. The worker's own checkout: abs-a only.
    zoo = path.join(root, 'zoo');
    workerZoo = path.join(root, 'worker-zoo');
    for (const name of ['abs-a', 'abs-b']) cpSync(path.join(fixtures, 'run/zoo', name), path.join(zoo, name), {recursive: true});
    cpSync(path.join(fixtures, 'run/zoo/abs-a'), path.join(workerZoo, 'abs-a'), {recursive: true});

    worker = spawn(process.execPath, [cliPath, 'benchmark', 'worker', '--queue', redis.url, '--queue-name', queueName, '--zoo', workerZoo], {
      cwd: repoRoot,
      env: {...process.env, NO_COLOR: '1', ARBOR_QUEUE_KEY: queueKey, ARBOR_TEST_SALT: workerSalt, ARBOR_LEDGER: path.join(root, 'worker-ledger.db')},
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    worker.stderr!.setEncoding('utf8').on('data', (text: string) => (workerErr += text));
    for (let tries = 0; tries < 300 && !workerErr.includes('taking jobs'); tries++) await sleep(100);
    expect(workerErr).toContain('taking jobs');

    // The server: no salt of the worker's, a python that does not exist (an eval run here would fail), the queue key.
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      XDG_CONFIG_HOME: path.join(root, 'config'),
      ARBOR_SEALED_RELEASE: String(release),
      ARBOR_QUEUE_KEY: queueKey,
      ARBOR_PYTHON: path.join(root, 'no-python'),
    };
    delete env.ARBOR_TEST_SALT;
    const args = [cliPath, 'mcp', zoo, '--workspaces', path.join(root, 'workspaces'), '--sealed-queue', redis.url, '--sealed-queue-name', queueName];
    const transport = new StdioClientTransport({command: process.execPath, args, env, stderr: 'pipe'});
    transport.stderr!.on('data', (chunk: Buffer) => (serverErr += chunk.toString('utf8')));
    client = new Client({name: 'arbor-test-agent', version: '1.0.0'});
    await client.connect(transport);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    if (worker && worker.exitCode === null) {
      worker.kill('SIGTERM');
      await new Promise((resolve) => worker.once('close', resolve));
    }
    await redis?.stop();
    if (root) rmSync(root, {recursive: true, force: true});
  });

  it("answers a verdict from the worker's compare, records it here as a test compare, runs nothing of it here and says nothing secret", {
    timeout: 180_000,
  }, async () => {
    expect(serverErr).toContain(`arbor mcp: submit_test compares on the workers of queue ${queueName} at ${redis.url}, not here\n`);
    const {workspace} = await transcript.call(client, 'checkout', {name: 'abs-a'});
    const answer = await transcript.call(client, 'submit_test', {solution: workspace, label: 'queued try'});
    // The entry's own solution as the candidate: the same answers on both sides.
    expect(answer).toEqual({
      remaining: {devEvals: null, devSeconds: null, sealed: null, seconds: null},
      id: expect.stringMatching(runIdShape),
      name: 'abs-a',
      verdict: 'same',
      bucket: '0.9-1.1x',
      budget: {used: 1, of: expect.any(Number)},
    });

    // The worker ran it: the compare job, started and answered there.
    expect(workerErr).toMatch(/job compare-\S+ \(abs-a test compare\): started\n/);
    expect(workerErr).toMatch(/job compare-\S+ \(abs-a test compare\): same, ratio 1 in \d+\.\d s\n/);
    // The server did not (its python does not exist): no failure on its stderr.
    expect(serverErr).not.toContain('gave no verdict');

    // On record in the server's ledger (the worker records nothing): a test compare on seeds derived from the worker's salt.
    const ledger = openLedger(path.join(zoo, '.arbor/runs.db'), {readonly: true});
    const runs = ledger.listRuns({split: 'test', withCases: true});
    ledger.close();
    expect(runs).toHaveLength(1);
    const run = runs[0]!;
    expect(run).toMatchObject({
      kind: 'compare',
      split: 'test',
      benchmark: {name: 'run_abs_a', path: path.join(zoo, 'abs-a')},
      seeds: {source: 'derived', count: 3},
      status: 'ok',
      // Named by the call's label, never by the copy the worker was sent; the baseline by the entry's file and digest.
      solutionLabel: 'queued try',
      labelKind: 'given',
    });
    expect(run.compare).toMatchObject({verdict: 'same', ratio: 1, baselineLabel: expect.stringMatching(/^solution\.py@[0-9a-f]{6}$/)});
    expect(run.cases).toHaveLength(3);
    expect(existsSync(path.join(root, 'worker-ledger.db'))).toBe(false);

    // Nothing the client saw holds the worker's salt, its derived seeds, the key, or the recorded numbers.
    const plan = await loadPlan(path.join(zoo, 'abs-a'));
    const seeds = deriveSeeds(workerSalt, plan.name, plan.test.seeds.length, plan.dev.seeds);
    const warm = warmupSeed({...plan, test: {...plan.test, seeds}}, seeds);
    const numbers = [run.score, ...(run.interval ?? []), ...run.cases.flatMap((c) => [c.ratio, c.seconds])].filter(
      (n): n is number => typeof n === 'number' && String(n).length >= 8,
    );
    const all = transcript.texts.join('\n');
    for (const secret of [workerSalt, queueKey, redis.url, ...[...seeds, warm].map(String), ...numbers.map(String)])
      expect(all, `a result holds ${secret}`).not.toContain(secret);
  });

  it("a job the worker refuses (an entry its zoo lacks) is the fixed failure answer; the reason is on the server's stderr only", {
    timeout: 60_000,
  }, async () => {
    const {workspace} = await transcript.call(client, 'checkout', {name: 'abs-b'});
    const text = await transcript.error(client, 'submit_test', {solution: workspace});
    expect(text).toBe("submit_test: the test eval of abs-b gave no verdict (this submission counted; the owner finds why in the server's log)");
    expect(serverErr).toMatch(
      /arbor mcp: submit_test of abs-b \(solution [0-9a-f]{12}\) gave no verdict: worker \S+: refused the job: this worker's zoo \(.*worker-zoo\) has no entry abs-b\n/,
    );
    expect(workerErr).toMatch(/job compare-\S+ \(abs-b test compare\): refused the job/);
  });

  it('--help documents it; no queue key, a URL that is not redis://, or a Redis that cannot be reached: one line on stderr, exit 2', async () => {
    const help = runCli(['mcp', '--help']).stdout;
    for (const text of ['--sealed-queue ', '--sealed-queue-name', 'ARBOR_SEALED_QUEUE', 'ARBOR_QUEUE_KEY_FILE']) expect(help).toContain(text);
    const noKey = runCli(['mcp', zoo, '--sealed-queue', redis.url], {env: {ARBOR_QUEUE_KEY: '', ARBOR_QUEUE_KEY_FILE: ''}});
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/^arbor: no queue key: set ARBOR_QUEUE_KEY to a secret shared by the submitter and its workers [^\n]*\n$/);
    const notRedis = runCli(['mcp', zoo, '--sealed-queue', 'http://127.0.0.1:6379'], {env: {ARBOR_QUEUE_KEY: queueKey}});
    expect(notRedis.code).toBe(2);
    expect(notRedis.stderr).toBe(
      'arbor: --sealed-queue http://127.0.0.1:6379: unsupported scheme http, expected redis://HOST:PORT[/DB], e.g. redis://127.0.0.1:6379/0\n',
    );
    const port = await freePort();
    const gone = runCli(['mcp', zoo], {env: {ARBOR_QUEUE_KEY: queueKey, ARBOR_SEALED_QUEUE: `redis://127.0.0.1:${port}/0`}});
    expect(gone.code).toBe(2);
    expect(gone.stderr).toBe(
      `arbor: cannot reach Redis at redis://127.0.0.1:${port}/0: connect ECONNREFUSED 127.0.0.1:${port}; start redis-server there or fix ARBOR_SEALED_QUEUE\n`,
    );
  });
});
