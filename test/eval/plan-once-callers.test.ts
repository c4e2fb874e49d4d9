// plan.toml is read once per eval, whichever caller starts it (issue 51, "one door into an eval"): the
// caller reads and checks it, and the parsed plan travels with the request to whatever runs and records the
// eval (the door's secret-free child, compare's package, MCP's run process). A preload logs every read of
// plan.toml (fs/promises readFile, loadPlan's own read; the lock's hashing of the file is not a read of the
// plan) in every process of the command, children included (NODE_OPTIONS travels to them).
import {spawn, type ChildProcess} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {cpSync, existsSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {cliPath, fixtures, runCli, tempDir} from '../helpers/cli.js';
import {runsSettled, salt, Transcript, zooCopy} from '../mcp/helpers.js';
import {startRedis, type TestRedis} from '../helpers/redis.js';

/** A preload that appends one JSON line (pid, file, stack) to ARBOR_TEST_PLAN_LOG for each plan.toml read. */
const preload = `
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import {syncBuiltinESMExports} from 'node:module';
const log = process.env.ARBOR_TEST_PLAN_LOG;
const read = fsp.readFile;
fsp.readFile = async function (file, ...rest) {
  if (log && typeof file === 'string' && path.basename(file) === 'plan.toml')
    fs.appendFileSync(log, JSON.stringify({pid: process.pid, file, stack: new Error().stack}) + '\\n');
  return read.call(this, file, ...rest);
};
syncBuiltinESMExports();
`;

interface Read {
  pid: number;
  file: string;
  stack: string;
}

/** A log and the environment that loads the preload. */
function counter(root = tempDir('arbor-plan-reads-')): {env: Record<string, string>; reads: (file: string) => Read[]; reset: () => void} {
  const hook = path.join(root, 'count-plan-reads.mjs');
  writeFileSync(hook, preload);
  const log = path.join(root, 'reads.jsonl');
  const reset = () => writeFileSync(log, '');
  reset();
  const reads = (file: string) =>
    (existsSync(log) ? readFileSync(log, 'utf8') : '')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Read)
      .filter((each) => path.resolve(each.file) === file);
  return {env: {ARBOR_TEST_PLAN_LOG: log, NODE_OPTIONS: `--import=${pathToFileURL(hook).href}`}, reads, reset};
}

/** Where a read came from, for the failure message: the first frame of arbor's own code past the preload. */
const origin = (each: Read) =>
  `pid ${each.pid}: ${
    each.stack
      .split('\n')
      .filter((line) => line.includes('/dist/'))
      .slice(0, 2)
      .map((line) => line.trim())
      .join(' < ') || each.stack
  }`;

/** A copy of a fixture entry, locked, with a ledger of its own. */
function entry(fixture: string): {dir: string; plan: string; ledger: string} {
  const root = tempDir('arbor-plan-once-callers-');
  const dir = path.join(root, 'entry');
  cpSync(path.join(fixtures, 'eval', fixture), dir, {recursive: true});
  rmSync(path.join(dir, 'arbor.lock'), {force: true});
  expect(runCli(['benchmark', 'lock', dir]).code).toBe(0);
  return {dir, plan: path.join(dir, 'plan.toml'), ledger: path.join(root, 'runs.db')};
}

describe('each CLI caller reads plan.toml once per eval', {timeout: 240_000}, () => {
  const salted = {ARBOR_TEST_SALT: 'plan-once-callers-salt'};
  it.each([
    ['eval', 'accuracy-abs', (dir: string) => ['benchmark', 'eval', dir, 'dev'], {}],
    ['eval with a salt (the secret-free child)', 'accuracy-abs', (dir: string) => ['benchmark', 'eval', dir, 'test'], salted],
    ['calibrate', 'accuracy-abs', (dir: string) => ['benchmark', 'calibrate', dir, '--runs', '2'], {}],
    ['compare', 'accuracy-abs', (dir: string) => ['benchmark', 'compare', dir, `${dir}/solution.py`, `${dir}/solution.py`], {}],
    [
      'compare --package',
      'prefix-speed',
      (dir: string) => ['benchmark', 'compare', dir, `${dir}/solution.py`, `${dir}/solution.py`, '--package', `${dir}-package`],
      {},
    ],
    [
      'compare --package with a salt',
      'prefix-speed',
      (dir: string) => ['benchmark', 'compare', dir, `${dir}/solution.py`, `${dir}/solution.py`, '--split', 'test', '--package', `${dir}-package`],
      salted,
    ],
    ['run (the local runner, each eval in a child)', 'accuracy-abs', (dir: string) => ['benchmark', 'run', dir, '--split', 'dev'], {}],
  ])('%s', (_caller, fixture, args, extra) => {
    const {dir, plan, ledger} = entry(fixture);
    const count = counter();
    const result = runCli([...args(dir), '--quiet'], {env: {...process.env, ARBOR_LEDGER: ledger, ...count.env, ...extra}});
    expect(result.code, result.stderr).toBe(0);
    const reads = count.reads(plan);
    expect(reads.length, `plan.toml read ${reads.length} times:\n${reads.map(origin).join('\n')}`).toBe(1);
  });
});

describe('MCP reads plan.toml once per eval: in the server, which hands the parsed plan to the run process', () => {
  let zoo: string;
  let root: string;
  let client: Client;
  let remove = () => {};
  let count: ReturnType<typeof counter>;
  const transcript = new Transcript();
  beforeAll(async () => {
    ({zoo, root, remove} = zooCopy([], ['relu_poly']));
    count = counter(root);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, 'mcp', zoo, '--workspaces', path.join(root, 'workspaces')],
      env: {...(process.env as Record<string, string>), ARBOR_TEST_SALT: salt, ARBOR_SEALED_RELEASE: '5', ...count.env},
      stderr: 'pipe',
    });
    client = new Client({name: 'arbor-plan-once-agent', version: '1.0.0'});
    await client.connect(transport);
  });
  afterAll(async () => {
    await client?.close();
    await runsSettled(zoo);
    remove();
  });

  /**
   * The reads of one call. The path rule (context.ts, testFolders) reads every entry's plan for its test data folder
   * to refuse a path inside one: a check of the call's path, not of the eval, and not read again by anything that runs.
   */
  const evalReads = () => count.reads(path.join(zoo, 'relu_poly', 'plan.toml')).filter((each) => !each.stack.includes('testFolders'));

  /** The call's reads, one expected. */
  const once = () => {
    const reads = evalReads();
    expect(reads.length, `plan.toml read ${reads.length} times:\n${reads.map(origin).join('\n')}`).toBe(1);
  };
  let solution: string;

  it('evaluate', {timeout: 300_000}, async () => {
    solution = (await transcript.call(client, 'checkout', {name: 'relu_poly', dest: 'work'})).solution;
    count.reset();
    const evaluated = await transcript.call(client, 'evaluate', {solution, repetitions: 1, maxSeconds: 0});
    expect(evaluated.score).toBeGreaterThan(0);
    once();
  });

  it('compare', {timeout: 300_000}, async () => {
    count.reset();
    const compared = await transcript.call(client, 'compare', {name: 'relu_poly', baseline: 'baseline', candidate: solution, repetitions: 1, maxSeconds: 0});
    expect(compared.verdict).toMatch(/better|same|worse/);
    once();
  });

  it("submit_test (the sealed run: its seed redactor, its compare and its record under the server's plan)", {timeout: 300_000}, async () => {
    count.reset();
    const submitted = await transcript.call(client, 'submit_test', {solution});
    expect(submitted.budget).toMatchObject({used: 1});
    await runsSettled(zoo);
    once();
  });
});

describe('the queue reads plan.toml once per eval on each side: the submitter its own, the worker its own, checked against the job', () => {
  let redis: TestRedis | undefined;
  let worker: ChildProcess | undefined;
  afterAll(async () => {
    worker?.kill('SIGTERM');
    await redis?.stop();
  });

  it('run --queue with a worker holding the salt', {timeout: 240_000}, async () => {
    redis = await startRedis();
    const root = tempDir('arbor-plan-once-queue-');
    const [submitterZoo, workerZoo] = ['submitter', 'worker'].map((side) => {
      const dir = path.join(root, side, 'abs-a');
      cpSync(path.join(fixtures, 'run/zoo/abs-a'), dir, {recursive: true});
      return dir;
    });
    const count = counter(root);
    const env = {...process.env, ...count.env, NO_COLOR: '1', ARBOR_QUEUE_KEY: randomBytes(32).toString('hex')};
    const queue = ['--queue', redis.url, '--queue-name', `plan-once-${process.pid}`];
    worker = spawn(process.execPath, [cliPath, 'benchmark', 'worker', ...queue, '--zoo', path.dirname(workerZoo!)], {
      env: {...env, ARBOR_TEST_SALT: 'plan-once-worker-salt', ARBOR_LEDGER: path.join(root, 'worker.db')},
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let said = '';
    await new Promise<void>((resolve, reject) => {
      worker!.stderr!.setEncoding('utf8').on('data', (text: string) => {
        said += text;
        if (said.includes('taking jobs')) resolve();
      });
      worker!.on('close', () => reject(new Error(`the worker ended:\n${said}`)));
    });
    const submitter = spawn(process.execPath, [cliPath, 'benchmark', 'run', submitterZoo!, '--split', 'test', ...queue, '--quiet'], {
      env: {...env, ARBOR_LEDGER: path.join(root, 'submitter.db')},
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    submitter.stdout!.setEncoding('utf8').on('data', (text: string) => (out += text));
    submitter.stderr!.setEncoding('utf8').on('data', (text: string) => (out += text));
    const code = await new Promise<number | null>((resolve) => submitter.on('close', resolve));
    expect(code, `${out}\nworker:\n${said}`).toBe(0);
    expect(out).toMatch(/1 of 1 eval\(s\) scored/);
    // Both sides said at once: each reads its own plan.toml.
    const reads = [submitterZoo!, workerZoo!].map((dir) => count.reads(path.join(dir, 'plan.toml')));
    const counted = reads.map((each, k) => `${k ? 'worker' : 'submitter'}: plan.toml read ${each.length} times:\n${each.map(origin).join('\n')}`).join('\n');
    expect(
      reads.map((each) => each.length),
      counted,
    ).toEqual([1, 1]);
  });
});
