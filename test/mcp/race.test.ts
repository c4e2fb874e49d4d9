/**
 * evaluate's `against`: by default a speed entry's eval races the session's best dev eval, stopping as soon as
 * the verdict is decided; `none` gives a plain score; only runs the client can list can be named, dev only.
 */
import {readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {cliPath} from '../helpers/cli.js';
import {runsSettled, salt, Transcript, zooCopy} from './helpers.js';

describe('arbor mcp: evaluate races the session best', () => {
  let zoo: string;
  let root: string;
  let client: Client;
  let remove = () => {};
  const transcript = new Transcript();
  beforeAll(async () => {
    ({zoo, root, remove} = zooCopy([], ['polymul_negacyclic']));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, 'mcp', zoo, '--workspaces', path.join(root, 'workspaces')],
      env: {...(process.env as Record<string, string>), ARBOR_TEST_SALT: salt},
      stderr: 'pipe',
    });
    client = new Client({name: 'arbor-race-agent', version: '1.0.0'});
    await client.connect(transport);
  });
  afterAll(async () => {
    await client?.close();
    await runsSettled(zoo);
    remove();
  });

  it('answers a 3x slower workspace worse at its first looks, against the labelled best; none is a plain score', {timeout: 300_000}, async () => {
    const name = 'polymul_negacyclic';
    // No best yet: a plain eval (3 repetitions, so that it can be raced against).
    const reference = await transcript.call(client, 'evaluate', {name, label: 'ref', repetitions: 3, maxSeconds: 0});
    expect(reference.race).toBeUndefined();
    expect(reference.score).toBeGreaterThan(0);
    const checkout = await transcript.call(client, 'checkout', {name, dest: 'work'});
    // The entry's own solution, its work done three times over.
    const own = readFileSync(checkout.solution, 'utf8');
    writeFileSync(
      checkout.solution,
      `${own}\n\n_once = run\n\n\ndef run(state, inputs):\n    _once(state, inputs)\n    _once(state, inputs)\n    return _once(state, inputs)\n`,
    );
    const raced = await transcript.call(client, 'evaluate', {workspace: checkout.workspace, repetitions: 3, maxSeconds: 30});
    expect(raced).toMatchObject({
      verdict: 'worse',
      race: {decision: 'worse', confidence: 0.95, decided: true, against: {run: reference.runId}},
    });
    // Its first look is at 3 repetitions; a look later where load blurs one.
    expect(raced.race.repetitions).toBeGreaterThanOrEqual(3);
    expect(raced.race.repetitions).toBeLessThanOrEqual(4);
    expect(raced.race.interval[1]).toBeLessThan(1);
    const plain = await transcript.call(client, 'evaluate', {workspace: checkout.workspace, against: 'none', repetitions: 2, maxSeconds: 0});
    expect(plain.race).toBeUndefined();
    expect(plain.verdict).toBeUndefined();
    expect(plain.repetitions).toBe(2);

    // Only runs this client can list, on dev, of a speed entry.
    expect(await transcript.error(client, 'evaluate', {workspace: checkout.workspace, against: '999999'})).toBe(
      'against 999999: no such dev run among the runs list_runs shows you',
    );
    expect(await transcript.error(client, 'evaluate', {workspace: checkout.workspace, against: 'nobody'})).toMatch(
      /^against "nobody": no eval labelled so of polymul_negacyclic on dev/,
    );
    expect(await transcript.error(client, 'evaluate', {workspace: checkout.workspace, split: 'test', against: 'best'})).toMatch(
      /^evaluate runs the dev split only/,
    );

    // Another agent (another workspaces folder) cannot name this one's runs, by id or by label: as if they did not exist.
    const other = new Client({name: 'arbor-race-other', version: '1.0.0'});
    await other.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [cliPath, 'mcp', zoo, '--workspaces', path.join(root, 'other-workspaces')],
        env: {...(process.env as Record<string, string>), ARBOR_TEST_SALT: salt},
        stderr: 'pipe',
      }),
    );
    try {
      expect(await transcript.error(other, 'evaluate', {name, against: String(reference.runId)})).toBe(
        `against ${reference.runId}: no such dev run among the runs list_runs shows you`,
      );
      expect(await transcript.error(other, 'evaluate', {name, against: 'ref'})).toMatch(/^against "ref": no eval labelled so of polymul_negacyclic on dev/);
    } finally {
      await other.close();
    }

    // The race is on record as a verdict, never the best.
    const listed = await transcript.call(client, 'list_runs', {name});
    expect(listed.runs.find((run: {id: number}) => run.id === raced.runId)).toMatchObject({kind: 'compare', compare: {verdict: 'worse'}});
    expect(listed.summary[0].best).toBe(reference.runId);
  });
});
