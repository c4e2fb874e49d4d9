/**
 * A client that starts a fresh `arbor mcp` for every single call, as the MCP
 * Inspector's CLI does (and many agent frameworks and shell tools): the real
 * Inspector CLI (2.12.0, a devDependency) drives list -> checkout -> evaluate
 * -> compare -> submit_test on a speed and an accuracy entry, the long calls
 * in the background and polled with get_run from later servers, workspaces
 * in the default folder of the user and zoo. Nothing is left in the servers'
 * temp folder. Over HTTP, the Inspector sends the bearer token.
 */
import {spawn, spawnSync} from 'node:child_process';
import {copyFileSync, mkdirSync, readdirSync, rmSync} from 'node:fs';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {cliPath, repoRoot} from '../helpers/cli.js';
import {expectSealed, runIdShape, runsSettled, salt, Transcript, zooCopy} from './helpers.js';

const inspector = path.join(repoRoot, 'node_modules/.bin/mcp-inspector');
const fastKnn = path.join(repoRoot, 'test/zoo-entries/solutions/knn_gemm_f64.py');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The Inspector CLI with `args` (HOME `home`), without blocking; killed after 120 s. */
function inspect(args: string[], home: string): Promise<{status: number | null; stdout: string; stderr: string}> {
  const child = spawn(inspector, args, {env: {...process.env, HOME: home}, stdio: ['ignore', 'pipe', 'pipe']});
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  let [stdout, stderr] = ['', ''];
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({status, stdout, stderr});
    });
  });
}

describe('arbor mcp, a fresh server for every call (the MCP Inspector CLI)', () => {
  let zoo: string;
  let root: string;
  let remove = () => {};
  /** The servers' temp folder and state folder (their default workspaces folder lies in it), and the Inspector's home. */
  let tmp: string;
  let state: string;
  let home: string;
  const transcript = new Transcript();
  beforeAll(() => {
    ({zoo, root, remove} = zooCopy(['algotune_knn', 'relu_poly'], ['algotune_knn', 'relu_poly']));
    for (const dir of [(tmp = path.join(root, 'tmp')), (state = path.join(root, 'state')), (home = path.join(root, 'home'))]) mkdirSync(dir);
  });
  afterAll(async () => {
    await runsSettled(zoo);
    remove();
  });

  /**
   * One call: `mcp-inspector --cli node arbor mcp <zoo> --method tools/call …`; the tool's structured result (throws with
   * its text on a tool error). Without blocking: the two entries' calls go side by side.
   */
  async function call(tool: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
    const env = ['ARBOR_TEST_SALT', salt, 'ARBOR_SEALED_RELEASE', '1', 'TMPDIR', tmp, 'XDG_STATE_HOME', state];
    const pairs = env.flatMap((value, i) => (i % 2 === 0 ? ['-e', `${value}=${env[i + 1]}`] : []));
    const result = await inspect(
      ['--cli', process.execPath, cliPath, 'mcp', zoo, ...pairs, '--method', 'tools/call', '--tool-name', tool, '--tool-args-json', JSON.stringify(args)],
      home,
    );
    transcript.texts.push(result.stdout, result.stderr);
    const answer = JSON.parse(result.stdout || '{}') as {structuredContent?: Record<string, any>; content?: Array<{text: string}>; isError?: boolean};
    if (result.status !== 0 || answer.isError) throw new Error(`${tool}: exit ${result.status}: ${answer.content?.[0]?.text ?? result.stderr}`);
    return answer.structuredContent!;
  }

  /** get_run, each poll from a new server, until the run ends. */
  async function polled(id: string): Promise<Record<string, any>> {
    for (let tries = 0; tries < 300; tries++) {
      const run = await call('get_run', {id});
      if (run.status !== 'running') return run;
      await sleep(1000);
    }
    throw new Error(`${id} still running`);
  }

  it('lists, checks out, evaluates, compares and submits a speed and an accuracy entry', {timeout: 600_000}, async () => {
    expect(spawnSync(inspector, ['--cli', '--version'], {encoding: 'utf8'}).stdout.trim()).toBe('2.12.0');
    expect((await call('list_benchmarks')).benchmarks.map((row: {name: string}) => row.name)).toEqual(['algotune_knn', 'relu_poly']);
    // The two entries side by side: each its own workspace and runs (a dev eval waits out the other's sealed turn).
    const drive = async (name: 'algotune_knn' | 'relu_poly', faster?: string) => {
      const checkout = await call('checkout', {name});
      // The default workspaces folder: one per user and zoo, so the next server (another process) knows the workspace.
      expect(path.dirname(checkout.workspace)).toMatch(new RegExp(`^${state}/arbor/workspaces/zoo-[0-9a-f]{8}$`));
      if (faster) copyFileSync(faster, checkout.solution);

      const started = await call('evaluate', {workspace: checkout.workspace, repetitions: 2, maxSeconds: 0, background: true});
      expect(started).toEqual({id: expect.stringMatching(runIdShape), status: 'running', remaining: expect.any(Object)});
      const evaluated = await polled(started.id);
      expect(evaluated, JSON.stringify(evaluated)).toMatchObject({tool: 'evaluate', status: 'done', result: {name, split: 'dev'}});
      expect(evaluated.result.score).toBeGreaterThan(name === 'algotune_knn' ? 2 : 0);

      const compare = await polled(
        (await call('compare', {name, baseline: 'baseline', candidate: checkout.workspace, repetitions: 2, maxSeconds: 0, background: true})).id,
      );
      expect(compare.status, JSON.stringify(compare)).toBe('done');
      expect(compare.result.verdict).toBe(name === 'algotune_knn' ? 'better' : 'same');

      const submitted = await polled((await call('submit_test', {solution: checkout.workspace, background: true})).id);
      expect(submitted.status, JSON.stringify(submitted)).toBe('done');
      expect(submitted.result).toMatchObject({name, budget: {used: 1, of: 2}});
      expect(submitted.result.verdict).toBe(name === 'algotune_knn' ? 'PASS' : 'same');
    };
    await Promise.all([drive('algotune_knn', fastKnn), drive('relu_poly')]);
    // Two test runs, one per entry, in the ledger; nothing of them in any answer.
    await expectSealed(transcript, zoo, 2);
    // Every run's process is gone and nothing is left in the servers' temp folder.
    for (let tries = 0; tries < 40 && readdirSync(tmp).length > 0; tries++) await sleep(250);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('over HTTP, sends the bearer token with --header; a wrong token is refused', {timeout: 60_000}, async () => {
    const token = 'per-call-test-token';
    const server = spawn(process.execPath, [cliPath, 'mcp', zoo, '--http', '0'], {
      env: {...process.env, ARBOR_MCP_TOKEN: token, ARBOR_TEST_SALT: salt, TMPDIR: tmp, XDG_STATE_HOME: state},
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    server.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    try {
      for (let tries = 0; tries < 100 && !/serving .* at (\S+)/.test(stderr); tries++) await sleep(100);
      const url = /serving .* at (\S+)/.exec(stderr)![1]!;
      const ask = (bearer: string) =>
        spawnSync(
          inspector,
          ['--cli', url, '--transport', 'http', '--header', `Authorization: Bearer ${bearer}`, '--method', 'tools/call', '--tool-name', 'list_benchmarks'],
          {
            encoding: 'utf8',
            env: {...process.env, HOME: home},
            timeout: 60_000,
          },
        );
      const listed = ask(token);
      expect(listed.status, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout).structuredContent.benchmarks).toHaveLength(2);
      const refused = ask('not-the-token');
      expect(refused.status).not.toBe(0);
      expect(refused.stdout).not.toContain('benchmarks');
    } finally {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('close', resolve));
    }
    rmSync(path.join(home, '.mcp-inspector'), {recursive: true, force: true});
  });
});
