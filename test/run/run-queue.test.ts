/**
 * `arbor benchmark run --queue` and `arbor benchmark worker` against a real
 * Redis (Debian's redis-server on a free loopback port): two worker
 * processes, one killed mid-job, every eval scored once in the submitter's
 * ledger; a job whose files do not match their hashes refused; an
 * unreachable Redis a one-line error.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import {existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {Queue, QueueEvents} from 'bullmq';
import {Redis} from 'ioredis';
import {openLedger} from '../../lib/ledger/index.js';
import {encodeJob} from '../../lib/run/job.js';
import type {RunResult} from '../../lib/run/result.js';
import {cliPath, fixtures, repoRoot, runCli, tempDir} from '../helpers/cli.js';
import {freePort, startRedis, type TestRedis} from '../helpers/redis.js';

const zoo = path.join(fixtures, 'run/zoo');
const slow = path.join(fixtures, 'run/solutions/slow.py');

/** A CLI process running in the background, its stderr collected as it comes. */
interface Background {
  child: ChildProcess;
  stderr(): string;
  stdout(): string;
  /** Resolves once stderr matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<{code: number | null; signal: NodeJS.Signals | null}>;
}

const running: ChildProcess[] = [];

function background(args: string[], env: NodeJS.ProcessEnv = {}): Background {
  const child = spawn(process.execPath, [cliPath, ...args], {cwd: repoRoot, env: {...process.env, NO_COLOR: '1', ...env}, stdio: ['ignore', 'pipe', 'pipe']});
  running.push(child);
  let err = '';
  let out = '';
  const waiters: (() => void)[] = [];
  child.stderr!.setEncoding('utf8').on('data', (text: string) => {
    err += text;
    for (const waiter of [...waiters]) waiter();
  });
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (out += text));
  const exited = new Promise<{code: number | null; signal: NodeJS.Signals | null}>((resolve) => child.on('close', (code, signal) => resolve({code, signal})));
  return {
    child,
    stderr: () => err,
    stdout: () => out,
    exited,
    waitFor: (pattern, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = err.match(pattern);
          if (!match) return false;
          waiters.splice(waiters.indexOf(check), 1);
          clearTimeout(timer);
          resolve(match);
          return true;
        };
        const timer = setTimeout(() => reject(new Error(`stderr never matched ${pattern}:\n${err}`)), timeoutMs);
        waiters.push(check);
        check();
      }),
  };
}

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await redis?.stop();
});

/** A fresh queue name per test, so no test sees another's jobs. */
let queues = 0;
const queueName = () => `test-${process.pid}-${++queues}`;

describe('arbor benchmark run --queue with arbor benchmark worker', () => {
  it('two workers, one killed mid-job: every eval scored once, with the worker\'s seeds and environment; secrets never travel', async () => {
    const dir = tempDir();
    const ledger = path.join(dir, 'runs.db');
    const json = path.join(dir, 'results.json');
    const name = queueName();
    const salt = `worker-only-salt-${process.pid}`;
    // The workers hold the test salt; the submitter does not.
    const workerEnv = {ARBOR_TEST_SALT: salt, ARBOR_LEDGER: path.join(dir, 'worker-ledger.db')};
    const workerArgs = ['benchmark', 'worker', '--queue', redis.url, '--queue-name', name, '--stalled-seconds', '2'];
    const first = background(workerArgs, workerEnv);
    const second = background(workerArgs, workerEnv);
    await Promise.all([first.waitFor(/taking jobs/), second.waitFor(/taking jobs/)]);

    const submitEnv = {ARBOR_LEDGER: ledger, ARBOR_TEST_SALT: ''};
    const submitter = background(
      ['benchmark', 'run', path.join(zoo, 'abs-a'), path.join(zoo, 'abs-b'), '--solution', `abs-b=${slow}`, '--split', 'dev', '--split', 'test', '--queue', redis.url, '--queue-name', name, '--json', json],
      submitEnv,
    );
    // Kill whichever worker takes the slow eval first, the moment it starts.
    const victim = await Promise.race([first, second].map((worker) => worker.waitFor(/job (\S+) \(abs-b=slow\.py dev\): started/).then((match) => ({worker, job: match[1]!}))));
    victim.worker.child.kill('SIGKILL');
    const survivor = victim.worker === first ? second : first;

    const {code} = await submitter.exited;
    expect(code, submitter.stderr()).toBe(0);
    const lines = submitter.stdout().split('\n');
    expect(lines.slice(1, 5).map((line) => line.trim().split(/\s{2,}/))).toEqual([
      ['abs-a', 'dev', '0.199', '–', 'ok'],
      ['abs-a', 'test', expect.any(String), '–', 'ok'],
      ['abs-b=slow.py', 'dev', '1', '–', 'ok'],
      ['abs-b=slow.py', 'test', '1', '–', 'ok'],
    ]);
    expect(submitter.stdout()).toMatch(/\n4 of 4 eval\(s\) scored in \d+\.\d s\n$/);
    // The submitter saw the job come back and start again on the other worker.
    expect(submitter.stderr()).toContain('abs-b=slow.py dev: its worker stopped answering: the job goes back on the queue for another worker');
    expect(submitter.stderr()).toMatch(/abs-b=slow\.py dev: started again on \S+ \(its previous worker stopped\)/);
    expect(survivor.stderr()).toContain(`job ${victim.job} (abs-b=slow.py dev): started`);

    // Every eval exactly once in the submitter's ledger; test seeds derived from the workers' salt.
    const runs = openLedger(ledger, {readonly: true}).listRuns();
    expect(runs.map((run) => `${run.benchmark.name} ${run.split} ${run.seeds.source}`).sort()).toEqual([
      'run_abs_a dev published',
      'run_abs_a test derived',
      'run_abs_b dev published',
      'run_abs_b test derived',
    ]);
    for (const run of runs) expect(run.benchmark.path).toBe(path.join(zoo, run.benchmark.name === 'run_abs_a' ? 'abs-a' : 'abs-b'));
    // The workers record nothing themselves.
    expect(existsSync(path.join(dir, 'worker-ledger.db'))).toBe(false);

    // --json: each result with its job, its worker, the worker's environment fingerprint and its ledger id.
    const document = JSON.parse(readFileSync(json, 'utf8')) as {mode: string; results: RunResult[]};
    expect(document.mode).toBe('queue');
    const survivorName = `${survivor.stderr().match(/worker (\S+) taking jobs/)![1]}`;
    const retried = document.results.find((result) => result.jobId === victim.job)!;
    expect(retried).toMatchObject({entry: 'abs-b', split: 'dev', worker: survivorName, status: 'ok', score: 1});
    for (const result of document.results) {
      const run = runs.find((r) => r.id === result.runId)!;
      expect(run.environment.fingerprint).toBe(result.environment);
      expect(result.environment).toMatch(/^[0-9a-f]{16}$/);
    }

    // What travelled: the split's name and files, never the salt.
    const client = new Redis(redis.url);
    const testJob = document.results.find((result) => result.entry === 'abs-a' && result.split === 'test')!.jobId!;
    const data = await client.hget(`bull:${name}:${testJob}`, 'data');
    await client.quit();
    expect(data).toContain('"split":"test"');
    expect(data).not.toContain(salt);

    // A stopped worker exits 0.
    survivor.child.kill('SIGTERM');
    expect((await survivor.exited).code).toBe(0);
    expect(survivor.stderr()).toMatch(/worker \S+ stopping\n$/);
  });

  it('records a job once however often its completion is announced', async () => {
    const dir = tempDir();
    const ledger = path.join(dir, 'runs.db');
    const name = queueName();
    const worker = background(['benchmark', 'worker', '--queue', redis.url, '--queue-name', name]);
    await worker.waitFor(/taking jobs/);
    // abs-a first; while the slow one runs, its completion is announced twice more on the queue's event stream.
    const submitter = background(['benchmark', 'run', path.join(zoo, 'abs-a'), path.join(zoo, 'abs-b'), '--solution', `abs-b=${slow}`, '--queue', redis.url, '--queue-name', name, '--quiet'], {ARBOR_LEDGER: ledger});
    const [, job] = await worker.waitFor(/job (\S+) \(abs-a dev\): score/);
    await worker.waitFor(/\(abs-b=slow\.py dev\): started/);
    const client = new Redis(redis.url);
    const returnvalue = await client.hget(`bull:${name}:${job}`, 'returnvalue');
    for (let k = 0; k < 2; k++) await client.xadd(`bull:${name}:events`, '*', 'event', 'completed', 'jobId', job!, 'returnvalue', returnvalue!);
    await client.quit();
    const {code} = await submitter.exited;
    expect(code, submitter.stderr()).toBe(0);
    const runs = openLedger(ledger, {readonly: true}).listRuns();
    expect(runs.map((run) => run.benchmark.name).sort()).toEqual(['run_abs_a', 'run_abs_b']);
    worker.child.kill('SIGTERM');
    await worker.exited;
  });

  it('refuses a job whose files do not match their hashes: the job fails once, without retry', async () => {
    const name = queueName();
    const worker = background(['benchmark', 'worker', '--queue', redis.url, '--queue-name', name, '--stalled-seconds', '2']);
    await worker.waitFor(/taking jobs/);
    const job = await encodeJob({index: 0, target: {entry: 'abs-a', dir: path.join(zoo, 'abs-a'), shown: 'abs-a'}, split: 'dev'});
    const verify = job.files.find((file) => file.path === 'bundle/verify.mjs')!;
    verify.content = Buffer.from('export default () => ({passed: true});\n').toString('base64');

    const connection = {url: redis.url};
    const queue = new Queue(name, {connection});
    const events = new QueueEvents(name, {connection});
    await events.waitUntilReady();
    const added = await queue.add('eval', job, {jobId: 'tampered', attempts: 3});
    await expect(added.waitUntilFinished(events, 30_000)).rejects.toThrow(/^refused the job: abs-a\/bundle\/verify\.mjs does not match its SHA-256/);
    const failed = await queue.getJob('tampered');
    expect(await failed!.getState()).toBe('failed');
    expect(failed!.attemptsMade).toBe(1);
    await Promise.all([events.close(), queue.close()]);
    expect(worker.stderr().match(/job tampered \(abs-a dev\): started/g)).toHaveLength(1);
    expect(worker.stderr()).toMatch(/job tampered \(abs-a dev\): refused the job: abs-a\/bundle\/verify\.mjs does not match its SHA-256/);
    worker.child.kill('SIGTERM');
    expect((await worker.exited).code).toBe(0);
  });

  it('a Redis that cannot be reached: one line, exit 2, for the submitter and the worker', async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const message = `arbor: cannot reach Redis at ${url}: connect ECONNREFUSED 127.0.0.1:${url.split(':').pop()}; start redis-server there or fix --queue\n`;
    const submit = runCli(['benchmark', 'run', path.join(zoo, 'abs-a'), '--queue', url], {env: {ARBOR_LEDGER: path.join(tempDir(), 'runs.db')}});
    expect(submit.stderr).toBe(message);
    expect(submit.code).toBe(2);
    expect(submit.stdout).toBe('');
    const worker = runCli(['benchmark', 'worker', '--queue', url]);
    expect(worker.stderr).toBe(message);
    expect(worker.code).toBe(2);
  });
});
