/**
 * `arbor benchmark run --queue` and `arbor benchmark worker` against a real
 * Redis (Debian's redis-server on a free loopback port, one for the file):
 * two worker processes, one killed mid-job, every eval scored once in the
 * submitter's ledger, the test salt and the queue key nowhere in Redis nor in
 * the eval's own process; answers forged by a process without the key never
 * recorded nor shown as scores; jobs not signed with the key, for an entry
 * the worker lacks, with another lock or carrying protected files refused;
 * the Redis ACLs of lib/run/README.md enough; no key, an unreachable Redis or
 * one that refuses INFO a one-line error.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {cpSync, existsSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {Queue, QueueEvents, Worker} from 'bullmq';
import {Redis} from 'ioredis';
import {writeLock} from '../../lib/benchmark/lock.js';
import {deriveSeeds, warmupSeed} from '../../lib/eval/seeds.js';
import {loadPlan} from '../../lib/benchmark/plan.js';
import {openLedger} from '../../lib/ledger/index.js';
import {sign, verifySigned} from '../../lib/run/auth.js';
import {encodeJob} from '../../lib/run/job.js';
import type {RunResult} from '../../lib/run/result.js';
import {cliPath, fixtures, repoRoot, runCli, tempDir} from '../helpers/cli.js';
import {freePort, startRedis, type TestRedis} from '../helpers/redis.js';

const zoo = path.join(fixtures, 'run/zoo');
const slow = path.join(fixtures, 'run/solutions/slow.py');
/** The queue key every submitter and worker of these tests shares (unless a test says otherwise). */
const queueKey = randomBytes(32).toString('hex');
const key = Buffer.from(queueKey);

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
  const child = spawn(process.execPath, [cliPath, ...args], {
    cwd: repoRoot,
    env: {...process.env, NO_COLOR: '1', ARBOR_QUEUE_KEY: queueKey, ...env},
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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

/** Every key in the Redis and every value under it, as text. */
async function redisContents(url: string): Promise<string> {
  const client = new Redis(url);
  const parts: string[] = [];
  for (const name of await client.keys('*')) {
    parts.push(name);
    const type = await client.type(name);
    if (type === 'string') parts.push(String(await client.get(name)));
    else if (type === 'hash') parts.push(JSON.stringify(await client.hgetall(name)));
    else if (type === 'list') parts.push(...(await client.lrange(name, 0, -1)));
    else if (type === 'set') parts.push(...(await client.smembers(name)));
    else if (type === 'zset') parts.push(...(await client.zrange(name, '0', '-1', 'WITHSCORES')));
    else if (type === 'stream') parts.push(JSON.stringify(await client.xrange(name, '-', '+')));
    else throw new Error(`key ${name} of type ${type}: read it too`);
  }
  await client.quit();
  return parts.join('\n');
}

/** The salted test seeds an eval of the entry derives from `salt`, and its warm-up seeds. */
async function secretSeeds(entry: string, salt: string): Promise<string[]> {
  const plan = await loadPlan(path.join(zoo, entry));
  const seeds = deriveSeeds(salt, plan.name, plan.test.seeds.length, plan.dev.seeds);
  const warm = warmupSeed({...plan, test: {...plan.test, seeds}}, seeds);
  return [...seeds, warm, warm + 1, warm + 2].map(String);
}

/** The ledger's runs, none when it was never written. */
const ledgerRuns = (ledger: string) => (existsSync(ledger) ? openLedger(ledger, {readonly: true}).listRuns() : []);

describe('arbor benchmark run --queue with arbor benchmark worker', () => {
  it("two workers, one killed mid-job: every eval scored once, with the worker's seeds and environment; the salt and the key never travel nor reach the eval's process", async () => {
    const dir = tempDir();
    const ledger = path.join(dir, 'runs.db');
    const json = path.join(dir, 'results.json');
    const spy = path.join(dir, 'spy.jsonl');
    const keyFile = path.join(dir, 'queue.key');
    writeFileSync(keyFile, `${queueKey}\n`, {mode: 0o600});
    const name = queueName();
    const salt = `worker-only-salt-${process.pid}-${randomBytes(4).toString('hex')}`;
    // The workers hold the test salt; the submitter does not. abs-a's generator writes what of the secrets its process sees to the spy file.
    const workerEnv = {ARBOR_TEST_SALT: salt, ARBOR_LEDGER: path.join(dir, 'worker-ledger.db'), ARBOR_RUN_SPY: spy};
    const workerArgs = ['benchmark', 'worker', '--queue', redis.url, '--queue-name', name, '--stalled-seconds', '2', '--zoo', zoo];
    const first = background(workerArgs, workerEnv);
    // The second worker reads the same key from a file.
    const second = background([...workerArgs, '--queue-key-file', keyFile], {...workerEnv, ARBOR_QUEUE_KEY: ''});
    await Promise.all([first.waitFor(/taking jobs/), second.waitFor(/taking jobs/)]);

    const submitEnv = {ARBOR_LEDGER: ledger, ARBOR_TEST_SALT: ''};
    const submitter = background(
      [
        'benchmark',
        'run',
        path.join(zoo, 'abs-a'),
        path.join(zoo, 'abs-b'),
        '--solution',
        `abs-b=${slow}`,
        '--split',
        'dev',
        '--split',
        'test',
        '--queue',
        redis.url,
        '--queue-name',
        name,
        '--json-file',
        json,
      ],
      submitEnv,
    );
    // Kill whichever worker takes the slow eval first, the moment it starts.
    const victim = await Promise.race(
      [first, second].map((worker) => worker.waitFor(/job (\S+) \(abs-b=slow\.py dev\): started/).then((match) => ({worker, job: match[1]!}))),
    );
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
    // The submitter saw the job come back and start again on the other worker, and the workers' (signed) progress.
    expect(submitter.stderr()).toContain('abs-b=slow.py dev: its worker stopped answering: the job goes back on the queue for another worker');
    expect(submitter.stderr()).toMatch(/abs-b=slow\.py dev: started again on \S+ \(its previous worker stopped\)/);
    expect(submitter.stderr()).toContain('abs-a dev: point 1/1: accuracy 0.1990 (2/2 cases with a valid answer)');
    expect(survivor.stderr()).toContain(`job ${victim.job} (abs-b=slow.py dev): started`);

    // Every eval exactly once in the submitter's ledger; test seeds derived from the workers' salt.
    const runs = ledgerRuns(ledger);
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

    // What travelled: the entry's name, its lock, the split and the solution; no protected file.
    const client = new Redis(redis.url);
    const testJob = document.results.find((result) => result.entry === 'abs-a' && result.split === 'test')!.jobId!;
    const data = JSON.parse((await client.hget(`bull:${name}:${testJob}`, 'data'))!) as Record<string, unknown> & {files: {path: string}[]};
    await client.quit();
    expect(data).toMatchObject({entry: 'abs-a', split: 'test', mac: expect.stringMatching(/^[0-9a-f]{64}$/)});
    expect(data.files.map((file) => file.path)).toEqual(['solution.py']);

    // The process that ran abs-a's generator saw neither the salt nor the key (two dev, three test cases and warm-ups).
    const seen = readFileSync(spy, 'utf8').trim().split('\n');
    expect(seen.length).toBeGreaterThanOrEqual(5);
    for (const line of seen) expect(JSON.parse(line)).toEqual({salt: null, key: null, keyFile: null});

    // Nothing in Redis, nor anything the submitter printed or wrote, holds the salt, the key or a salted seed.
    const everything = [await redisContents(redis.url), submitter.stdout(), submitter.stderr(), readFileSync(json, 'utf8')].join('\n');
    expect(everything).toContain(`bull:${name}:${testJob}`);
    expect(everything).not.toContain(salt);
    expect(everything).not.toContain(queueKey);
    for (const seed of [...(await secretSeeds('abs-a', salt)), ...(await secretSeeds('abs-b', salt))]) expect(everything).not.toContain(seed);

    // A stopped worker exits 0.
    survivor.child.kill('SIGTERM');
    expect((await survivor.exited).code).toBe(0);
    expect(survivor.stderr()).toMatch(/worker \S+ stopping\n$/);
  });

  it('records a job once however often its completion is announced', async () => {
    const dir = tempDir();
    const ledger = path.join(dir, 'runs.db');
    const name = queueName();
    const worker = background(['benchmark', 'worker', '--queue', redis.url, '--queue-name', name, '--zoo', zoo]);
    await worker.waitFor(/taking jobs/);
    // abs-a first; while the slow one runs, its completion is announced twice more on the queue's event stream.
    const submitter = background(
      [
        'benchmark',
        'run',
        path.join(zoo, 'abs-a'),
        path.join(zoo, 'abs-b'),
        '--solution',
        `abs-b=${slow}`,
        '--queue',
        redis.url,
        '--queue-name',
        name,
        '--quiet',
      ],
      {ARBOR_LEDGER: ledger},
    );
    const [, job] = await worker.waitFor(/job (\S+) \(abs-a dev\): score/);
    await worker.waitFor(/\(abs-b=slow\.py dev\): started/);
    const client = new Redis(redis.url);
    const returnvalue = await client.hget(`bull:${name}:${job}`, 'returnvalue');
    for (let k = 0; k < 2; k++) await client.xadd(`bull:${name}:events`, '*', 'event', 'completed', 'jobId', job!, 'returnvalue', returnvalue!);
    await client.quit();
    const {code} = await submitter.exited;
    expect(code, submitter.stderr()).toBe(0);
    expect(
      ledgerRuns(ledger)
        .map((run) => run.benchmark.name)
        .sort(),
    ).toEqual(['run_abs_a', 'run_abs_b']);
    worker.child.kill('SIGTERM');
    await worker.exited;
  });

  it('an answer forged by a process without the key (made up, or signed with another key) is refused: never recorded nor shown as a score, exit 1', async () => {
    const dir = tempDir();
    const ledger = path.join(dir, 'runs.db');
    const name = queueName();
    const submitter = background(['benchmark', 'run', path.join(zoo, 'abs-a'), path.join(zoo, 'abs-b'), '--queue', redis.url, '--queue-name', name], {
      ARBOR_LEDGER: ledger,
    });
    // A rogue worker: any process that can reach the Redis. It shows made-up progress and returns a made-up report with a score no eval gives.
    const made = {
      benchmark: 'x',
      name: 'run_abs_a',
      split: 'dev',
      metric: 'accuracy',
      solution: 'x',
      score: 999,
      seeds: {source: 'published', count: 2},
      repetitions: 0,
      sandbox: 'bwrap',
      cgroup: true,
      lock: 'ok',
      pinned: false,
      points: [],
      seconds: 1,
      processSeconds: 1,
    };
    const rogue = new Worker(
      name,
      async (job) => {
        await job.updateProgress({kind: 'line', text: 'point 1/1: accuracy 999 (forged)'});
        if (job.data.entry === 'abs-a') return {report: made, worker: 'rogue:1'};
        // Signed, but with a key of its own; bound to the right job and its MAC, as a real worker's answer is.
        return sign(
          Buffer.from('f0'.repeat(32)),
          'answer',
          {queue: name, jobId: job.id!},
          {report: {...made, name: 'run_abs_b'}, worker: 'rogue:2'},
          {job: job.data.mac},
        );
      },
      {connection: {url: redis.url}},
    );
    const {code} = await submitter.exited;
    await rogue.close();
    expect(code).toBe(1);
    const stdout = submitter.stdout();
    expect(
      stdout
        .split('\n')
        .slice(1, 3)
        .map((line) => line.trim().split(/\s{2,}/)),
    ).toEqual([
      ['abs-a', 'dev', '–', '–', 'error'],
      ['abs-b', 'dev', '–', '–', 'error'],
    ]);
    expect(stdout).toContain(
      'abs-a dev: error: the answer to this job is not authenticated (it carries no MAC): not recorded; a worker with another queue key, or a process without the key writing to this queue',
    );
    expect(stdout).toContain('abs-b dev: error: the answer to this job is not authenticated (its MAC does not verify with this queue key): not recorded');
    expect(stdout).toMatch(/\n0 of 2 eval\(s\) scored \(2 without a score\) in \d+\.\d s\n$/);
    expect(`${stdout}${submitter.stderr()}`).not.toContain('999');
    expect(ledgerRuns(ledger)).toEqual([]);
  });

  it('refuses a job not signed with its key, one that carries protected files, one for an entry its zoo lacks or has in another version; runs none of them', async () => {
    const name = queueName();
    const worker = background(['benchmark', 'worker', '--queue', redis.url, '--queue-name', name, '--stalled-seconds', '2', '--zoo', zoo]);
    await worker.waitFor(/taking jobs/);
    const job = await encodeJob({index: 0, target: {entry: 'abs-a', dir: path.join(zoo, 'abs-a'), shown: 'abs-a'}, split: 'dev'});
    const scope = (jobId: string) => ({queue: name, jobId});
    const verify = job.files.find((file) => file.path === 'solution.py')!;
    // A bundle of its own: a verifier that passes everything, in the job's files.
    const foreign = {
      ...job,
      files: [...job.files, {...verify, path: 'bundle/verify.mjs', content: Buffer.from('export default () => ({passed: true});\n').toString('base64')}],
    };

    const connection = {url: redis.url};
    const queue = new Queue(name, {connection});
    const events = new QueueEvents(name, {connection});
    await events.waitUntilReady();
    const add = (id: string, data: object) => queue.add('eval', data, {jobId: id, attempts: 3});
    const unsigned = await add('unsigned', job);
    const wrongKey = await add('wrong-key', sign(Buffer.from('f0'.repeat(32)), 'job', scope('wrong-key'), job));
    const moved = await add('moved', sign(key, 'job', scope('elsewhere'), job));
    const bundled = await add('bundled', sign(key, 'job', scope('bundled'), foreign));
    await expect(unsigned.waitUntilFinished(events, 30_000)).rejects.toThrow(
      /^refused the job: it is not authenticated \(it carries no MAC; a submitter with another queue key, or a job not made by arbor\)$/,
    );
    await expect(wrongKey.waitUntilFinished(events, 30_000)).rejects.toThrow(
      /^refused the job: it is not authenticated \(its MAC does not verify with this queue key;/,
    );
    await expect(moved.waitUntilFinished(events, 30_000)).rejects.toThrow(/its MAC does not verify with this queue key/);
    // A signed job the worker refuses: its answer says why, signed and bound to the job.
    const answer = (await bundled.waitUntilFinished(events, 30_000)) as unknown;
    const verified = verifySigned(key, 'answer', scope('bundled'), answer, {job: (bundled.data as {mac: string}).mac});
    expect(verified).toMatchObject({
      ok: true,
      payload: {refused: expect.stringMatching(/^refused the job: abs-a\/bundle\/verify\.mjs is not an editable file of abs-a/)},
    });
    for (const id of ['unsigned', 'wrong-key', 'moved']) {
      const failed = await queue.getJob(id);
      expect(await failed!.getState()).toBe('failed');
      expect(failed!.attemptsMade).toBe(1);
    }
    await Promise.all([events.close(), queue.close()]);

    // Through the submitter: an entry the worker's zoo lacks, and abs-a with another generator (locked anew): refused, the reason shown.
    const dir = tempDir();
    const ledger = path.join(dir, 'runs.db');
    const other = path.join(dir, 'mine');
    cpSync(path.join(zoo, 'abs-a'), path.join(other, 'abs-a'), {recursive: true});
    cpSync(path.join(zoo, 'abs-a'), path.join(other, 'abs-z'), {recursive: true});
    writeFileSync(path.join(other, 'abs-a/bundle/generate.mjs'), 'export default (point) => ({x: new Float64Array(point.M)});\n');
    await writeLock(path.join(other, 'abs-a'));
    const submit = runCli(['benchmark', 'run', other, '--queue', redis.url, '--queue-name', name, '--quiet'], {
      env: {ARBOR_LEDGER: ledger, ARBOR_QUEUE_KEY: queueKey},
    });
    expect(submit.code, submit.stderr).toBe(1);
    expect(submit.stdout).toContain(
      "abs-a dev: error: refused the job: the submitter's abs-a is not this worker's (against the worker's arbor.lock, bundle/generate.mjs changed): check out the same zoo on both",
    );
    expect(submit.stdout).toContain(`abs-z dev: error: refused the job: this worker's zoo (${zoo}) has no entry abs-z`);
    expect(ledgerRuns(ledger)).toEqual([]);

    for (const id of ['unsigned', 'wrong-key', 'moved', 'bundled'])
      expect(worker.stderr().match(new RegExp(`job ${id} \\(abs-a dev\\): started`, 'g'))).toHaveLength(1);
    expect(worker.stderr()).toMatch(/job wrong-key \(abs-a dev\): refused the job: it is not authenticated/);
    // Nothing ran: no eval scored, no eval failed.
    expect(worker.stderr()).not.toMatch(/: (score|no score)/);
    worker.child.kill('SIGTERM');
    expect((await worker.exited).code).toBe(0);
  });

  it("Redis ACLs as lib/run/README.md sets them: users limited to the queue's keys are enough for submitter and worker; a user without INFO is one line, exit 2", async () => {
    const name = queueName();
    const admin = new Redis(redis.url);
    const rules = ['resetkeys', `~bull:${name}:*`, 'resetchannels', '+@all', '-@dangerous', '+info'];
    await admin.call('ACL', 'SETUSER', 'arbor-submit', 'on', '>arbor-submit-password', ...rules);
    await admin.call('ACL', 'SETUSER', 'arbor-worker', 'on', '>arbor-worker-password', ...rules);
    await admin.call('ACL', 'SETUSER', 'no-info', 'on', '>no-info-password', ...rules, '-info');
    await admin.call('ACL', 'LOG', 'RESET');
    const as = (user: string) => `redis://${user}:${user}-password@127.0.0.1:${redis.port}/0`;
    try {
      const worker = background(['benchmark', 'worker', '--queue', as('arbor-worker'), '--queue-name', name, '--stalled-seconds', '1', '--zoo', zoo]);
      await worker.waitFor(/taking jobs/);
      // An entry the worker lacks: a whole round trip (job, refusal, answer) without an eval.
      const mine = path.join(tempDir(), 'mine');
      cpSync(path.join(zoo, 'abs-a'), path.join(mine, 'abs-z'), {recursive: true});
      const submit = runCli(['benchmark', 'run', mine, '--queue', as('arbor-submit'), '--queue-name', name, '--quiet'], {
        env: {ARBOR_LEDGER: path.join(tempDir(), 'runs.db'), ARBOR_QUEUE_KEY: queueKey},
      });
      expect(submit.code, submit.stderr).toBe(1);
      expect(submit.stdout).toContain(`abs-z dev: error: refused the job: this worker's zoo (${zoo}) has no entry abs-z`);
      // Long enough for the worker's stalled-job checks to run too.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      worker.child.kill('SIGTERM');
      expect((await worker.exited).code).toBe(0);
      expect(await admin.call('ACL', 'LOG')).toEqual([]);

      const refused = runCli(['benchmark', 'worker', '--queue', as('no-info'), '--queue-name', name, '--zoo', zoo], {env: {ARBOR_QUEUE_KEY: queueKey}});
      expect(refused.stderr).toBe(
        `arbor: Redis at redis://no-info:***@127.0.0.1:${redis.port}/0 refuses what the queue needs: NOPERM this user has no permissions to run the 'info' command; give this user the queue's keys and commands (lib/run/README.md, "Redis ACLs")\n`,
      );
      expect(refused.code).toBe(2);
    } finally {
      await admin.call('ACL', 'DELUSER', 'arbor-submit', 'arbor-worker', 'no-info');
      await admin.quit();
    }
  });

  it('no queue key: one line saying how to make one, exit 2, before any connection, for the submitter and the worker', async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const message =
      'arbor: no queue key: set ARBOR_QUEUE_KEY to a secret shared by the submitter and its workers (make one with `openssl rand -hex 32`), or name a file holding it with --queue-key-file PATH or ARBOR_QUEUE_KEY_FILE\n';
    const env = {ARBOR_QUEUE_KEY: '', ARBOR_QUEUE_KEY_FILE: '', ARBOR_LEDGER: path.join(tempDir(), 'runs.db')};
    const submit = runCli(['benchmark', 'run', path.join(zoo, 'abs-a'), '--queue', url], {env});
    expect(submit.stderr).toBe(message);
    expect(submit.code).toBe(2);
    expect(submit.stdout).toBe('');
    const worker = runCli(['benchmark', 'worker', '--queue', url, '--zoo', zoo], {env});
    expect(worker.stderr).toBe(message);
    expect(worker.code).toBe(2);
    const stray = runCli(['benchmark', 'run', path.join(zoo, 'abs-a'), '--queue-key-file', 'key'], {env});
    expect(stray.stderr).toBe('arbor: --queue-key-file needs --queue redis://HOST:PORT[/DB]\n');
    expect(stray.code).toBe(2);
  });

  it('a Redis that cannot be reached: one line, exit 2, for the submitter and the worker', async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const message = `arbor: cannot reach Redis at ${url}: connect ECONNREFUSED 127.0.0.1:${url.split(':').pop()}; start redis-server there or fix --queue\n`;
    const submit = runCli(['benchmark', 'run', path.join(zoo, 'abs-a'), '--queue', url], {
      env: {ARBOR_LEDGER: path.join(tempDir(), 'runs.db'), ARBOR_QUEUE_KEY: queueKey},
    });
    expect(submit.stderr).toBe(message);
    expect(submit.code).toBe(2);
    expect(submit.stdout).toBe('');
    const worker = runCli(['benchmark', 'worker', '--queue', url, '--zoo', zoo], {env: {ARBOR_QUEUE_KEY: queueKey}});
    expect(worker.stderr).toBe(message);
    expect(worker.code).toBe(2);
  });
});
