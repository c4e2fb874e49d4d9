/**
 * The sealed answer's stated clock and the one test exposure count, through
 * the SDK's client and the CLI: get_benchmark and list_benchmarks state each
 * entry's sealedAnswerSeconds before any call (relu_poly's within 45 s, 30 s
 * measured; a 10 s speed entry's within 45 s; each shipped speed entry's
 * above its compare's budget and within 105 s once measured); the first progress message says when the
 * answer comes; a client whose request timeout is shorter than the period gets
 * its answer because progress resets it, another through background + get_run;
 * a CLI `eval test` warns that test comes before dev, and it and MCP's
 * submit_test count one exposure: MCP's `used` and `arbor benchmark runs` agree.
 */
import {readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {loadPlan} from '../../lib/benchmark/plan.js';
import {sealedAnswerSeconds, sealedCompareCost} from '../../lib/mcp/release.js';
import {cliPath, runCli} from '../helpers/cli.js';
import {runsSettled, salt, startedRun, Transcript, zooCopy} from './helpers.js';

/**
 * The release period this file's server uses for its sealed calls (ARBOR_SEALED_RELEASE): longer than the client's
 * timeout below. Two distinct candidates are submitted, and a sealed turn is held to its release time, so the file
 * waits two periods: 12 s each (20 s before, 50 s for the file); long-sealed.test.ts holds a call over 3 timeouts.
 */
const release = 12;
/** The client's request timeout: shorter than the release period; progress (every 5 s) resets it. */
const timeout = 8_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function connect(zoo: string, env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath, 'mcp', zoo, '--workspaces', path.join(path.dirname(zoo), 'workspaces')],
    env: {...(process.env as Record<string, string>), ARBOR_TEST_SALT: salt, ...env},
    stderr: 'ignore',
  });
  const client = new Client({name: 'arbor-clock-agent', version: '1.0.0'});
  await client.connect(transport);
  return client;
}

/** `arbor benchmark runs` of the zoo: relu_poly's test exposure line. */
function exposureLine(zoo: string): string {
  const runs = runCli(['benchmark', 'runs', path.join(zoo, 'relu_poly')], {env: {...process.env, ARBOR_TEST_SALT: salt}});
  expect(runs.code, runs.stderr).toBe(0);
  return runs.stdout.split('\n').find((line) => /^ {2}relu_poly +\d/.test(line)) ?? runs.stdout;
}

describe('arbor mcp: the sealed answer on a stated clock, one exposure count', () => {
  let zoo: string;
  let remove = () => {};
  beforeAll(() => {
    ({zoo, remove} = zooCopy([], ['relu_poly']));
  });
  afterAll(async () => {
    await runsSettled(zoo);
    remove();
  });

  it('states each entry period before any call, from the plan and the entry solution measured in the ledger, never the candidate', async () => {
    const client = await connect(zoo);
    const transcript = new Transcript();
    try {
      const unmeasured = (await transcript.call(client, 'get_benchmark', {name: 'relu_poly'})).sealedAnswerSeconds;
      expect(unmeasured).toBeLessThanOrEqual(45);
      expect((await transcript.call(client, 'list_benchmarks')).benchmarks[0].sealedAnswerSeconds).toBe(unmeasured);
      const tools = await client.listTools();
      const description = tools.tools.find((tool) => tool.name === 'submit_test')!.description!;
      expect(description).toContain("see get_benchmark's sealedAnswerSeconds");
      expect(description).toMatch(/MCP task.*progress.*background: true and poll get_run/);
    } finally {
      await client.close();
    }
    // A 10 s speed entry (max_seconds = 10, the fewest 3 repetitions, 8 test cases) measured at 10 ms a case.
    const plan = await loadPlan(path.join(zoo, 'relu_poly'));
    expect(
      sealedAnswerSeconds({...plan, metric: 'speedup', maxSeconds: 10, repetitions: 3, test: {...plan.test, seeds: plan.test.seeds.slice(0, 8)}}, 0.01),
    ).toBeLessThanOrEqual(45);
    expect(sealedAnswerSeconds(plan, 0.005)).toBe(30);
  });

  it("sizes each shipped speed entry's period to its sealed compare: above the compare's budget, proportionate once measured", async () => {
    const {readdirSync, existsSync} = await import('node:fs');
    const {repoRoot} = await import('../helpers/cli.js');
    const shipped = readdirSync(path.join(repoRoot, 'zoo')).filter((name) => existsSync(path.join(repoRoot, 'zoo', name, 'plan.toml')));
    let speed = 0;
    for (const name of shipped) {
      const plan = await loadPlan(path.join(repoRoot, 'zoo', name));
      if (plan.metric !== 'speedup') continue;
      speed++;
      // Whatever the candidate, the compare may run to its budget (1.5 x max_seconds) and one repetition past it: the period covers that, measured or not.
      for (const caseSeconds of [null, 0.001, 0.2]) {
        expect(sealedCompareCost(plan, caseSeconds), name).toBeGreaterThan(1.5 * plan.maxSeconds);
        expect(sealedAnswerSeconds(plan, caseSeconds), name).toBeGreaterThan(1.5 * plan.maxSeconds + 10);
      }
      // Measured at 0.1 s a case (the shipped entries' own solutions take 0.02-0.17 s), within 105 s (the old model gave 135-240 s).
      expect(sealedAnswerSeconds(plan, 0.1), name).toBeLessThanOrEqual(105);
    }
    expect(speed).toBeGreaterThanOrEqual(8);
  });

  it('a CLI eval test warns that test came before dev; submit_test answers through progress that resets a short timeout and through background + get_run; MCP and runs count one exposure', {
    timeout: 180_000,
  }, async () => {
    // The owner's CLI eval on test of the entry's own solution, with no dev eval of it on record.
    const cli = runCli(['benchmark', 'eval', path.join(zoo, 'relu_poly'), 'test', '--json'], {env: {...process.env, ARBOR_TEST_SALT: salt}});
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout).warnings).toEqual([
      expect.stringMatching(/^warning: this solution of relu_poly has no dev eval on record: score it on dev first/),
    ]);
    expect(cli.stderr).toContain('warning: this solution of relu_poly has no dev eval on record');
    expect(exposureLine(zoo)).toMatch(/relu_poly +1 of budget 5$/);

    const client = await connect(zoo, {ARBOR_SEALED_RELEASE: String(release)});
    const transcript = new Transcript();
    const solution = path.join(zoo, 'relu_poly/solution.py');
    const source = readFileSync(solution, 'utf8');
    const candidate = (n: number) => {
      const file = path.join(zoo, `relu_poly/candidate${n}.py`);
      writeFileSync(file, `${source}\n# candidate ${n}\n`);
      return `relu_poly/candidate${n}.py`;
    };
    try {
      // A plain call whose client times out after 8 s: progress every 5 s resets it, the answer comes at 12 s.
      const progress: string[] = [];
      const called = Date.now();
      const plain = transcript.call(
        client,
        'submit_test',
        {name: 'relu_poly', solution: candidate(1)},
        {timeout, resetTimeoutOnProgress: true, maxTotalTimeout: 120_000, onprogress: (p) => void progress.push(p.message ?? '')},
      );
      for (let tries = 0; tries < 100 && progress.length === 0; tries++) await sleep(100);
      expect(progress[0]).toMatch(/^run-\S+ started: answer at \d\d:\d\d:\d\d, in (11|12) s; should this call time out, poll get_run/);
      // Counted at the call: the CLI's count and MCP's agree (the owner's CLI look and this call).
      expect(exposureLine(zoo)).toMatch(/relu_poly +2 of budget 5$/);

      // Another client's way: background, then get_run until done.
      const started = await transcript.call(client, 'submit_test', {name: 'relu_poly', solution: candidate(2), background: true});
      expect(started.status).toBe('running');
      let polled: Record<string, any> = {};
      for (let tries = 0; tries < 120; tries++) {
        polled = await transcript.call(client, 'get_run', {id: started.id});
        if (polled.status !== 'running') break;
        await sleep(1000);
      }

      const answered = await plain;
      expect(Date.now() - called).toBeGreaterThanOrEqual(release * 1000);
      expect(answered).toMatchObject({name: 'relu_poly', verdict: 'same', bucket: '0.9-1.1x', budget: {used: 2, of: 5}});
      expect(startedRun(progress[0])).toBe(answered.id);
      expect(progress.slice(1).every((line) => / answer at \d\d:\d\d:\d\d, in \d+ s$/.test(line))).toBe(true);
      expect(polled).toMatchObject({status: 'done', result: {verdict: 'same', bucket: '0.9-1.1x', budget: {used: 3, of: 5}}});
      expect(exposureLine(zoo)).toMatch(/relu_poly +3 of budget 5$/);
      // The owner's CLI eval of a second distinct solution on test says so.
      const second = runCli(['benchmark', 'eval', path.join(zoo, 'relu_poly'), 'test', '--solution', path.join(zoo, 'relu_poly/candidate1.py')], {
        env: {...process.env, ARBOR_TEST_SALT: salt},
      });
      expect(second.stderr).toMatch(/warning: 3 distinct solutions of relu_poly have now been scored on test/);
    } finally {
      await client.close();
    }
  });
});
