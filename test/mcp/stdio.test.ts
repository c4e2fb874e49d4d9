/**
 * `arbor mcp` over stdio, driven by the SDK's own client as an agent would:
 * list, read, check out algotune_knn, evaluate on dev (past a client timeout,
 * polled with get_run), write a faster solution, compare, submit it to the
 * sealed test split, be refused past the budget; paths outside refused;
 * a cancelled eval leaves no process. Every result is scanned for secrets.
 */
import {copyFileSync, existsSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {cliPath, repoRoot} from '../helpers/cli.js';
import {expectSealed, runIdShape, runsSettled, salt, startedRun, Transcript, zooCopy} from './helpers.js';

const fast = path.join(repoRoot, 'test/zoo-entries/solutions/knn_gemm_f64.py');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A server on a zoo copy, and a connected client. */
async function connect(zoo: string, workspaces: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath, 'mcp', zoo, '--workspaces', workspaces],
    env: {...(process.env as Record<string, string>), ARBOR_TEST_SALT: salt, ARBOR_SEALED_RELEASE: '1'},
    stderr: 'ignore',
  });
  const client = new Client({name: 'arbor-test-agent', version: '1.0.0'});
  await client.connect(transport);
  return {client, transport};
}

/** Every process below `pid` (by parent id, from /proc). */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of parents) if (ppid === parent) found.push(child), walk(child);
  };
  walk(pid);
  return found;
}

/** get_run until the run is no longer running. */
async function settled(transcript: Transcript, client: Client, id: string) {
  for (;;) {
    const run = await transcript.call(client, 'get_run', {id});
    if (run.status !== 'running') return run;
    await sleep(500);
  }
}

describe('arbor mcp over stdio', () => {
  let zoo: string;
  let workspaces: string;
  let client: Client;
  let transport: StdioClientTransport;
  let remove = () => {};
  const transcript = new Transcript();
  beforeAll(async () => {
    ({zoo, remove} = zooCopy(['algotune_knn']));
    workspaces = path.join(path.dirname(zoo), 'workspaces');
    ({client, transport} = await connect(zoo, workspaces));
  });
  afterAll(async () => {
    await client?.close();
    await runsSettled(zoo);
    remove();
  });

  it('a scripted agent: list, checkout, evaluate, compare, submit_test, refused past the budget', {timeout: 300_000}, async () => {
    const tools = (await client.listTools()).tools;
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'checkout',
      'compare',
      'evaluate',
      'get_benchmark',
      'get_run',
      'list_benchmarks',
      'list_runs',
      'submit_test',
    ]);
    expect(tools.every((tool) => tool.outputSchema && tool.inputSchema)).toBe(true);

    const listed = await transcript.call(client, 'list_benchmarks');
    expect(listed.benchmarks.map((row: {name: string}) => row.name)).toEqual(['algotune_knn', 'polymul_negacyclic', 'relu_poly', 'toeplitz_solve']);
    expect(listed.benchmarks[2]).toMatchObject({name: 'relu_poly', metric: 'accuracy', direction: 'maximize', verify: 'ok', bestDev: null});

    const described = await transcript.call(client, 'get_benchmark', {name: 'algotune_knn'});
    expect(described.readme).toContain('# algotune_knn');
    expect(described.contract).toMatchObject({solution: 'solution.py', editable: ['solution.py']});
    expect(described.contract.signatures[0].args.map((arg: {name: string}) => arg.name)).toContain('db');
    expect(described.splits.dev).toEqual({seeds: '0-3', points: [{N: 4096, Q: 256, D: 16, K: 10}]});
    expect(described.splits.test).toEqual({sealed: true, cases: 8, points: [{N: 4096, Q: 256, D: 16, K: 10}]});

    const checkout = await transcript.call(client, 'checkout', {name: 'algotune_knn', dest: 'knn'});
    expect(checkout.workspace).toBe(path.join(workspaces, 'knn'));
    expect(existsSync(path.join(checkout.workspace, '.git'))).toBe(true);

    // The client gives up after 1.5 s; the eval runs on and get_run gives its result.
    let first: string | undefined;
    const timedOut = await transcript
      .raw(
        client,
        'evaluate',
        {workspace: checkout.workspace, repetitions: 1, maxSeconds: 0},
        {timeout: 1500, onprogress: (p) => void (first ??= startedRun(p.message))},
      )
      .catch((error: Error) => error);
    expect(String(timedOut)).toMatch(/timed out/i);
    expect(first).toMatch(runIdShape);
    const polled = await settled(transcript, client, first!);
    expect(polled).toMatchObject({
      tool: 'evaluate',
      status: 'done',
      result: {id: first, name: 'algotune_knn', split: 'dev', metric: 'speedup', repetitions: 1},
    });
    expect(polled.result.score).toBeGreaterThan(0.5);
    expect(polled.result.cases).toHaveLength(4);
    expect(polled.result.cases.every((c: {status: string}) => c.status === 'ok')).toBe(true);
    expect(polled.progress.updates).toBeGreaterThan(3);

    copyFileSync(fast, checkout.solution);
    const progress: string[] = [];
    const compared = await transcript.call(
      client,
      'compare',
      {name: 'algotune_knn', baseline: 'baseline', candidate: checkout.workspace, repetitions: 1, maxSeconds: 0},
      {onprogress: (p) => void progress.push(p.message ?? '')},
    );
    expect(compared).toMatchObject({name: 'algotune_knn', split: 'dev', verdict: 'better'});
    expect(compared.ratio).toBeGreaterThan(2);
    expect(startedRun(progress[0])).toBe(compared.id);
    expect(compared.id).not.toBe(first);
    // The run's steps as they come. (Its last lines race the answer in the SDK's client, which
    // drops a notification read in the same chunk as the response: the server pauses, but a
    // client that is not scheduled meanwhile can still miss them; the result holds their figures.)
    for (const step of ['reference', 'baseline', 'candidate']) {
      expect(
        progress.some((line) => line.endsWith(`: repetition 1: ${step}`)),
        progress.join('\n'),
      ).toBe(true);
    }

    const runs = await transcript.call(client, 'list_runs', {name: 'algotune_knn'});
    expect(runs.runs.map((run: {kind: string}) => run.kind)).toEqual(['compare', 'eval']);
    expect((await transcript.call(client, 'list_benchmarks')).benchmarks[0].latestDev).toMatchObject({run: 1});

    const sealedProgress: string[] = [];
    const submitted = await transcript.call(
      client,
      'submit_test',
      {solution: checkout.workspace},
      {onprogress: (p) => void sealedProgress.push(p.message ?? '')},
    );
    // The verdict, the bucket, the budget and the session's remaining (no limits here): nothing else.
    expect(submitted).toEqual({
      remaining: {devEvals: null, devSeconds: null, sealed: null, seconds: null},
      id: expect.stringMatching(runIdShape),
      name: 'algotune_knn',
      verdict: 'PASS',
      bucket: expect.stringMatching(/^(2-10x|>=10x)$/),
      budget: {used: 1, of: 2},
    });
    expect(
      sealedProgress
        .slice(1)
        .every((line) => line.startsWith(`${submitted.id}: test eval running (`) && / \(\d+ updates\), answer at \d\d:\d\d:\d\d, in \d+ s$/.test(line)),
    ).toBe(true);
    expect({...(await transcript.call(client, 'get_run', {id: submitted.id})).result, remaining: submitted.remaining}).toEqual(submitted);

    // The same solution again counts too, and gets its first answer without a rerun (the ledger still holds one test run).
    const again = await transcript.call(client, 'submit_test', {solution: checkout.workspace});
    expect(again).toEqual({...submitted, id: expect.stringMatching(runIdShape), budget: {used: 2, of: 2}});
    expect(again.id).not.toBe(submitted.id);
    // Another solution (one more line): past the budget of 2, refused before anything runs.
    writeFileSync(checkout.solution, `${readFileSync(checkout.solution, 'utf8')}\n# another try\n`);
    expect(await transcript.error(client, 'submit_test', {name: 'algotune_knn', solution: checkout.solution})).toBe(
      'submit_test: the test split of algotune_knn has answered 2 submissions (every call counts, a resubmitted solution too), its test_budget of 2 is spent: choose between solutions on dev with compare',
    );
    // The dev history holds no test run; the owner's view outside MCP has it.
    expect((await transcript.call(client, 'list_runs', {})).runs.every((run: {kind: string; score: number}) => run.kind !== undefined)).toBe(true);
    await expectSealed(transcript, zoo, 1);
  });

  it('refuses paths outside the zoo and its workspaces, the test split outside submit_test, unknown names: one line each', async () => {
    const errors = [
      await transcript.error(client, 'evaluate', {name: 'algotune_knn', solution: '/etc/passwd'}),
      await transcript.error(client, 'evaluate', {workspace: '../../..'}),
      await transcript.error(client, 'evaluate', {name: 'algotune_knn', solution: '.arbor/runs.db'}),
      await transcript.error(client, 'compare', {name: 'algotune_knn', baseline: 'baseline', candidate: '/tmp'}),
      await transcript.error(client, 'submit_test', {name: 'algotune_knn', solution: path.join(repoRoot, 'zoo/algotune_knn/solution.py')}),
      await transcript.error(client, 'checkout', {name: 'algotune_knn', dest: '/tmp/elsewhere'}),
      await transcript.error(client, 'evaluate', {name: 'algotune_knn', split: 'test'}),
      await transcript.error(client, 'get_benchmark', {name: 'nope'}),
      await transcript.error(client, 'get_run', {id: 'run-99'}),
    ];
    expect(errors.slice(0, 5).every((text) => /: outside the zoo and the workspaces checkout made: pass a path in a workspace from checkout$/.test(text))).toBe(
      true,
    );
    expect(errors[5]).toMatch(/^dest \/tmp\/elsewhere: outside the workspaces folder .*: pass a new folder name \(e\.g\. algotune_knn-work\)$/);
    expect(errors[6]).toBe('evaluate runs the dev split only: the test split is sealed; submit a solution to it with submit_test');
    expect(errors[7]).toBe(`benchmark "nope" is not in the zoo: expected one of algotune_knn, polymul_negacyclic, relu_poly, toeplitz_solve`);
    expect(errors[8]).toBe(
      'run "run-99" is not a run of this zoo\'s servers: pass the id an evaluate, compare or submit_test call gave (ended runs are kept 7 days)',
    );
    expect(errors.every((text) => !text.includes('\n'))).toBe(true);
    // A link in a workspace leads where a path given would be refused: refused too, as a file and through its folder.
    const linked = await transcript.call(client, 'checkout', {name: 'relu_poly', dest: 'links'});
    rmSync(linked.solution);
    symlinkSync('/etc/passwd', linked.solution);
    for (const args of [{solution: linked.solution}, {workspace: linked.workspace}]) {
      expect(await transcript.error(client, 'evaluate', args)).toMatch(
        /^(solution|workspace) \/\S+: outside the zoo and the workspaces checkout made: pass a path in a workspace from checkout$/,
      );
    }
  });

  it('a cancelled call stops its eval: no process of it is left', {timeout: 120_000}, async () => {
    const controller = new AbortController();
    let seen: number[] = [];
    let triggered = false;
    let runId: string | undefined;
    const call = transcript.raw(
      client,
      'evaluate',
      {name: 'algotune_knn', repetitions: 3},
      {
        signal: controller.signal,
        onprogress: (p) => {
          runId ??= startedRun(p.message);
          if (triggered || !/repetition 1: (reference|solution)/.test(p.message ?? '')) return;
          triggered = true;
          // The run this status announces starts right after it: cancel once it is there (or after 5 s).
          void (async () => {
            for (let tries = 0; tries < 50 && seen.length <= 1; tries++, await sleep(100)) seen = descendants(transport.pid!);
            controller.abort('the agent changed its mind');
          })();
        },
      },
    );
    await expect(call).rejects.toThrow();
    expect(seen.length).toBeGreaterThan(1); // the eval process and at least a run
    // The run the first notification named.
    expect(runId).toBeDefined();
    const run = await settled(transcript, client, runId!);
    expect(run).toMatchObject({tool: 'evaluate', status: 'cancelled', error: `${runId} was cancelled: its eval was stopped and its work folder removed`});
    let left = seen;
    for (let tries = 0; tries < 40 && left.length; tries++, await sleep(250)) left = seen.filter((pid) => existsSync(`/proc/${pid}`));
    expect(left).toEqual([]);
    expect(descendants(transport.pid!)).toEqual([]);
  });
});
