/**
 * Sessions with budgets, as an agent meets them through the SDK's client: the
 * owner's limits on `arbor mcp` (--max-dev-evals, --max-dev-seconds,
 * --max-sealed, --session-minutes) hold across a server restart; every answer
 * carries `remaining`, which goes down as the session spends; a call past a
 * limit is one line naming the limit and the flag, and costs nothing (no run,
 * no ledger record, no count); a run that fails has counted; another agent
 * (another workspaces folder) neither spends nor reads the first's session;
 * and the owner reads a session's calls in order with `arbor benchmark runs
 * --session`. Dev evals of relu_poly (a few seconds each) and one sealed eval.
 */
import {readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {CallToolResultSchema} from '@modelcontextprotocol/sdk/types.js';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {cliPath, runCli} from '../helpers/cli.js';
import {runsSettled, salt, Transcript, zooCopy} from './helpers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A server on `zoo` with its workspaces folder and limits; the client, the session id its startup line names, and close. */
async function serve(zoo: string, workspaces: string, limits: string[]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath, 'mcp', zoo, '--workspaces', workspaces, ...limits],
    // A sealed answer as soon as its eval ends (a 1 s period): nothing here times the period (clock and long-sealed do).
    env: {...(process.env as Record<string, string>), ARBOR_TEST_SALT: salt, ARBOR_SEALED_RELEASE: '1'},
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({name: 'arbor-session-agent', version: '1.0.0'});
  await client.connect(transport);
  for (let tries = 0; tries < 100 && !/session ses-/.test(stderr); tries++) await sleep(100);
  const session = /session (ses-[A-Za-z0-9_-]{16}) /.exec(stderr)?.[1];
  expect(session, stderr).toBeDefined();
  return {client, session: session!, close: () => client.close()};
}

/** The zoo ledger's runs on `split`. */
async function ledgerRuns(zoo: string, split: 'dev' | 'test'): Promise<number> {
  const {openLedger} = await import('../../lib/ledger/ledger.js');
  const ledger = openLedger(path.join(zoo, '.arbor/runs.db'), {readonly: true});
  try {
    return ledger.listRuns({split, withCases: false}).length;
  } finally {
    ledger.close();
  }
}

/** The owner's view of a session: `arbor benchmark runs <zoo> --session <id> --json`. */
function sessionLog(zoo: string, id: string) {
  const shown = runCli(['benchmark', 'runs', zoo, '--session', id, '--json']);
  expect(shown.code, shown.stderr).toBe(0);
  return JSON.parse(shown.stdout) as {
    session: {id: string; devEvals: number; devSeconds: number; sealed: number};
    actions: Array<{tool: string; args: string; digest: string; outcome: string; time: string}>;
  };
}

describe("arbor mcp sessions: the owner's limits, across restarts and agents", () => {
  let zoo: string;
  let root: string;
  let remove = () => {};
  beforeAll(() => {
    ({zoo, root, remove} = zooCopy([], ['relu_poly']));
  });
  afterAll(async () => {
    await runsSettled(zoo);
    remove();
  });

  it('dev evals and sealed submissions stay counted across a restart; the call past a limit is refused in one line and costs nothing', {
    timeout: 300_000,
  }, async () => {
    const workspaces = path.join(root, 'agent-a');
    const limits = ['--max-dev-evals', '2', '--max-sealed', '1'];
    const transcript = new Transcript();
    const first = await serve(zoo, workspaces, limits);
    const checkout = await transcript.call(first.client, 'checkout', {name: 'relu_poly'});
    expect(checkout.remaining).toEqual({devEvals: 2, devSeconds: null, sealed: 1, seconds: null});
    const evaluated = await transcript.call(first.client, 'evaluate', {workspace: checkout.workspace});
    expect(evaluated.remaining.devEvals).toBe(1);
    const submitted = await transcript.call(first.client, 'submit_test', {solution: checkout.solution});
    expect(submitted.verdict).toBeDefined();
    expect(submitted.remaining.sealed).toBe(0);
    await first.close();

    // A new server on the same workspaces folder: the same session, its counts where they were.
    const second = await serve(zoo, workspaces, limits);
    expect(second.session).toBe(first.session);
    expect((await transcript.call(second.client, 'list_benchmarks')).remaining.devEvals).toBe(1);
    expect((await transcript.call(second.client, 'evaluate', {workspace: checkout.workspace})).remaining.devEvals).toBe(0);
    const [devBefore, testBefore] = [await ledgerRuns(zoo, 'dev'), await ledgerRuns(zoo, 'test')];
    const budget = readFileSync(path.join(zoo, '.arbor/runs.db.sealed.json'), 'utf8');
    expect(await transcript.error(second.client, 'evaluate', {workspace: checkout.workspace})).toBe(
      "evaluate: this session's dev evaluations are spent (2 of --max-dev-evals 2): the zoo's owner raises it by restarting arbor mcp with a larger --max-dev-evals",
    );
    expect(await transcript.error(second.client, 'compare', {name: 'relu_poly', baseline: 'baseline', candidate: checkout.solution})).toMatch(
      /^compare: this session's dev evaluations are spent/,
    );
    expect(await transcript.error(second.client, 'submit_test', {solution: checkout.solution})).toBe(
      "submit_test: this session's sealed submissions are spent (1 of --max-sealed 1): the zoo's owner raises it by restarting arbor mcp with a larger --max-sealed",
    );
    // Nothing ran and nothing counted: no ledger run, the entry's test_budget file as it was, the session's counts as they were.
    await sleep(1000);
    expect([await ledgerRuns(zoo, 'dev'), await ledgerRuns(zoo, 'test')]).toEqual([devBefore, testBefore]);
    expect(readFileSync(path.join(zoo, '.arbor/runs.db.sealed.json'), 'utf8')).toBe(budget);
    const log = sessionLog(zoo, first.session);
    expect(log.session).toMatchObject({devEvals: 2, sealed: 1});
    // Every call, in order, from both servers; the refused ones with their line.
    expect(log.actions.map((each) => each.tool)).toEqual([
      'checkout',
      'evaluate',
      'submit_test',
      'list_benchmarks',
      'evaluate',
      'evaluate',
      'compare',
      'submit_test',
    ]);
    expect(log.actions[1]!.outcome).toMatch(/^ok run-[A-Za-z0-9_-]{22}$/);
    expect(log.actions[5]!.outcome).toMatch(/^error: evaluate: this session's dev evaluations are spent/);
    expect(log.actions[1]!.args).toContain('"workspace"');
    expect(log.actions[1]!.digest).toMatch(/^sha256:[0-9a-f]{12}$/);
    // The text form: a header with the counts, a line per call.
    const text = runCli(['benchmark', 'runs', zoo, '--session', first.session]);
    expect(text.stdout.split('\n')[0]).toMatch(new RegExp(`^session ${first.session} .*2 dev run\\(s\\), [0-9.]+ dev eval s, 1 sealed submission\\(s\\)$`));
    expect(text.stdout.trim().split('\n')).toHaveLength(1 + 8);
    // The owner raises the limit by restarting with a larger flag: the next call goes.
    await second.close();
    const third = await serve(zoo, workspaces, ['--max-dev-evals', '3']);
    expect((await transcript.call(third.client, 'evaluate', {workspace: checkout.workspace})).remaining).toEqual({
      devEvals: 0,
      devSeconds: null,
      sealed: null,
      seconds: null,
    });
    await third.close();
  });

  it("another agent (another workspaces folder) neither spends nor reads the first's session; a failed run has counted, with its seconds", {
    timeout: 300_000,
  }, async () => {
    const transcript = new Transcript();
    const limits = ['--max-dev-evals', '2', '--max-dev-seconds', '600'];
    const a = await serve(zoo, path.join(root, 'agent-c'), limits);
    const b = await serve(zoo, path.join(root, 'agent-d'), limits);
    expect(b.session).not.toBe(a.session);
    const mine = await transcript.call(a.client, 'checkout', {name: 'relu_poly'});
    // B names A's workspace and A's solution: refused as outside its own, and nothing of A's session is spent by it.
    expect(await transcript.error(b.client, 'evaluate', {workspace: mine.workspace})).toMatch(/outside the zoo and the workspaces checkout made/);
    expect(await transcript.error(b.client, 'submit_test', {solution: mine.solution})).toMatch(/outside the zoo and the workspaces checkout made/);
    // A path carrying a terminal escape sequence: refused, and logged escaped, so the owner's terminal never runs it.
    expect(await transcript.error(b.client, 'evaluate', {name: 'relu_poly', solution: '\u001b]0;owned\u0007x.py'})).toMatch(/does not exist/);
    // B spends its own session: A's remaining is untouched.
    const theirs = await transcript.call(b.client, 'checkout', {name: 'relu_poly'});
    expect((await transcript.call(b.client, 'evaluate', {workspace: theirs.workspace})).remaining.devEvals).toBe(1);
    expect((await transcript.call(a.client, 'list_runs')).remaining).toMatchObject({devEvals: 2, devSeconds: 600});
    // A solution that spends 3 s of CPU at import, outside any timed case (in its own sandboxed process): the session pays for them.
    const source = readFileSync(mine.solution, 'utf8');
    writeFileSync(mine.solution, `import time\n_t = time.process_time()\nwhile time.process_time() - _t < 3:\n    pass\n${source}`);
    const spun = await transcript.call(a.client, 'evaluate', {workspace: mine.workspace});
    expect(spun.remaining.devEvals).toBe(1);
    expect(spun.remaining.devSeconds).toBeLessThanOrEqual(597);
    // A solution that crashes: the run fails, and has counted (an eval and its seconds).
    writeFileSync(mine.solution, 'raise SystemExit("no")\n');
    const failed = await transcript.raw(a.client, 'evaluate', {workspace: mine.workspace}, {});
    const after = (await transcript.call(a.client, 'list_benchmarks')).remaining;
    expect(after.devEvals, JSON.stringify(failed)).toBe(0);
    expect(after.devSeconds).toBeLessThan(spun.remaining.devSeconds);
    // A's log holds A's calls only; B's refused calls are in B's log, never in A's.
    expect(sessionLog(zoo, a.session).actions.map((each) => each.tool)).toEqual(['checkout', 'list_runs', 'evaluate', 'evaluate', 'list_benchmarks']);
    expect(sessionLog(zoo, b.session).actions.map((each) => each.tool)).toEqual(['evaluate', 'submit_test', 'evaluate', 'checkout', 'evaluate']);
    const printed = runCli(['benchmark', 'runs', zoo, '--session', b.session]).stdout;
    expect(printed).toContain('\\u001b]0;owned\\u0007x.py');
    expect(/[\u0000-\u0008\u000b-\u001f]/.test(printed)).toBe(false);
    await Promise.all([a.close(), b.close()]);
  });

  it('past --max-dev-seconds the next dev run is refused; past --session-minutes the costly tools are, the reads still answer', {
    timeout: 300_000,
  }, async () => {
    const transcript = new Transcript();
    const cpu = await serve(zoo, path.join(root, 'agent-e'), ['--max-dev-seconds', '0.1']);
    const space = await transcript.call(cpu.client, 'checkout', {name: 'relu_poly'});
    // One run goes (the limit is not yet reached) and takes more than 0.1 s (python, numpy, the sandbox).
    expect((await transcript.call(cpu.client, 'evaluate', {workspace: space.workspace})).remaining.devSeconds).toBe(0);
    expect(await transcript.error(cpu.client, 'evaluate', {workspace: space.workspace})).toMatch(
      /^evaluate: this session's dev eval time is spent \([0-9.]+ of --max-dev-seconds 0\.1 s\): the zoo's owner raises it by restarting arbor mcp with a larger --max-dev-seconds$/,
    );
    await cpu.close();

    // A session whose wall clock is spent (0.01 minutes: 0.6 s from its first call).
    const clock = await serve(zoo, path.join(root, 'agent-f'), ['--session-minutes', '0.01']);
    expect((await transcript.call(clock.client, 'list_benchmarks')).remaining.seconds).toBe(0);
    await sleep(1000);
    const devBefore = await ledgerRuns(zoo, 'dev');
    expect(await transcript.error(clock.client, 'checkout', {name: 'relu_poly'})).toMatch(
      /^checkout: this session's wall clock is spent \(0\.01 minutes since its first call at .*\): the zoo's owner raises it by restarting arbor mcp with a larger --session-minutes$/,
    );
    expect(await transcript.error(clock.client, 'evaluate', {name: 'relu_poly'})).toMatch(/^evaluate: this session's wall clock is spent/);
    expect((await transcript.call(clock.client, 'get_benchmark', {name: 'relu_poly'})).remaining.seconds).toBe(0);
    expect(await ledgerRuns(zoo, 'dev')).toBe(devBefore);
    await clock.close();
  });

  it('a cancelled call has counted: its eval and the seconds it ran; the next past the limit is refused', {timeout: 300_000}, async () => {
    const transcript = new Transcript();
    const agent = await serve(zoo, path.join(root, 'agent-g'), ['--max-dev-evals', '1', '--max-dev-seconds', '600']);
    const space = await transcript.call(agent.client, 'checkout', {name: 'relu_poly'});
    // A solution that sleeps at import: the eval is under way when the agent cancels.
    writeFileSync(space.solution, `import time\ntime.sleep(60)\n${readFileSync(space.solution, 'utf8')}`);
    const controller = new AbortController();
    let runId: string | undefined;
    const call = transcript.raw(
      agent.client,
      'evaluate',
      {workspace: space.workspace},
      {
        signal: controller.signal,
        onprogress: (progress) => {
          runId ??= /^(run-[A-Za-z0-9_-]{22}) started/.exec(progress.message ?? '')?.[1];
          if (runId) setTimeout(() => controller.abort('the agent changed its mind'), 3000);
        },
      },
    );
    await expect(call).rejects.toThrow();
    expect(runId).toBeDefined();
    let status = 'running';
    for (let tries = 0; tries < 120 && status === 'running'; tries++, await sleep(250))
      status = (await transcript.call(agent.client, 'get_run', {id: runId})).status;
    expect(status).toBe('cancelled');
    expect(await transcript.error(agent.client, 'evaluate', {workspace: space.workspace})).toMatch(
      /^evaluate: this session's dev evaluations are spent \(1 of --max-dev-evals 1\)/,
    );
    // As an MCP task too: refused before any task is made, with the same line.
    const stream = agent.client.experimental.tasks.callToolStream({name: 'evaluate', arguments: {workspace: space.workspace}}, CallToolResultSchema, {
      task: {ttl: 60_000},
    });
    const first = (await stream.next()).value as {type: string; error?: Error};
    await stream.return(undefined);
    expect(first.type).toBe('error');
    expect(String(first.error?.message)).toMatch(/evaluate: this session's dev evaluations are spent \(1 of --max-dev-evals 1\)/);
    const log = sessionLog(zoo, agent.session);
    expect(log.session.devEvals).toBe(1);
    expect(log.actions.at(-1)).toMatchObject({tool: 'evaluate (task)', outcome: expect.stringMatching(/^error: .*dev evaluations are spent/)});
    expect(log.actions.find((each) => each.tool === 'evaluate')!.outcome).toMatch(/^error: run-.* was cancelled/);
    await agent.close();
  });

  it('bad limits and an unknown session are one line each', () => {
    const bad = runCli(['mcp', zoo, '--max-dev-evals', '1.5']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n').at(-1)).toMatch(/--max-dev-evals 1\.5: expected a whole number above 0 \(leave the flag out for no limit\)/);
    const unknown = runCli(['benchmark', 'runs', zoo, '--session', 'ses-nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--session ses-nope: no such session in .*runs\.db\.mcp\.db: expected one of ses-/);
  });
});
