/**
 * What an MCP run is called, everywhere its history shows: the path the agent passed (relative to its
 * workspace) and a short digest, or the label it gave; never the private copy the run read
 * (`.arbor/mcp-snapshots/call-…`), in list_runs, `arbor benchmark runs --json` or the report's model.
 * A throwaway file of the workspace is listed, never the best.
 */
import {readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {cliPath, runCli} from '../helpers/cli.js';
import {runsSettled, salt, Transcript, zooCopy} from './helpers.js';

describe('arbor mcp: run labels', () => {
  let zoo: string;
  let root: string;
  let client: Client;
  let remove = () => {};
  const transcript = new Transcript();
  beforeAll(async () => {
    ({zoo, root, remove} = zooCopy([], ['relu_poly']));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, 'mcp', zoo, '--workspaces', path.join(root, 'workspaces')],
      env: {...(process.env as Record<string, string>), ARBOR_TEST_SALT: salt, ARBOR_SEALED_RELEASE: '5'},
      stderr: 'pipe',
    });
    client = new Client({name: 'arbor-labels-agent', version: '1.0.0'});
    await client.connect(transport);
  });
  afterAll(async () => {
    await client?.close();
    await runsSettled(zoo);
    remove();
  });

  it('names each run by what the agent passed or called it, nowhere by the copy it read; a throwaway is never the best', {timeout: 300_000}, async () => {
    const checkout = await transcript.call(client, 'checkout', {name: 'relu_poly', dest: 'work'});
    // A weaker solution the agent names, and a throwaway (the entry's own code under another name) that scores higher.
    const own = readFileSync(checkout.solution, 'utf8');
    writeFileSync(checkout.solution, own.replace('    return {"coef": coef}', '    return {"coef": np.zeros_like(coef)}'));
    const scratch = path.join(checkout.workspace, 'scratch.py');
    writeFileSync(scratch, own);
    const cheap = {repetitions: 1, maxSeconds: 0};
    const named = await transcript.call(client, 'evaluate', {workspace: checkout.workspace, label: 'zeros v1', ...cheap});
    const throwaway = await transcript.call(client, 'evaluate', {name: 'relu_poly', solution: scratch, ...cheap});
    expect(throwaway.score).toBeGreaterThan(named.score);
    const file = await transcript.call(client, 'evaluate', {solution: checkout.solution, ...cheap});
    const compared = await transcript.call(client, 'compare', {name: 'relu_poly', baseline: 'baseline', candidate: checkout.workspace, ...cheap});
    expect(compared.candidate.label).toMatch(/^work@[0-9a-f]{6}$/);
    expect(compared.baseline.label).toMatch(/^solution\.py@[0-9a-f]{6}$/);
    const submitted = await transcript.call(client, 'submit_test', {solution: scratch, label: 'scratch for test'});
    expect(submitted.budget).toMatchObject({used: 1});

    const listed = await transcript.call(client, 'list_runs', {name: 'relu_poly'});
    const byId = new Map(listed.runs.map((run: {id: number}) => [run.id, run]));
    expect(byId.get(named.runId)).toMatchObject({solution: 'zeros v1'});
    expect(byId.get(throwaway.runId)).toMatchObject({solution: expect.stringMatching(/^scratch\.py@[0-9a-f]{6}$/)});
    expect(byId.get(file.runId)).toMatchObject({solution: expect.stringMatching(/^solution\.py@[0-9a-f]{6}$/)});
    expect(byId.get(compared.runId)).toMatchObject({solution: compared.candidate.label, compare: {baseline: compared.baseline.label}});
    // The best of the dev evals is the named one (its solution file scored the same), never the throwaway's higher score.
    expect(listed.summary).toEqual([expect.objectContaining({benchmark: 'relu_poly', bestScore: named.score})]);
    expect(listed.summary[0].best).not.toBe(throwaway.runId);
    expect(JSON.stringify(listed)).not.toMatch(/\.arbor|mcp-snapshots|call-/);

    // The owner's views: the ledger's labels and the report's model.
    const runs = runCli(['benchmark', 'runs', '--json'], {cwd: zoo});
    expect(runs.code, runs.stderr).toBe(0);
    const history = JSON.parse(runs.stdout) as {
      runs: Array<{split: string; solutionLabel: string; labelKind: string; compare: {baselineLabel: string} | null}>;
    };
    expect(history.runs).toHaveLength(5);
    const labels = history.runs.flatMap((run) => [run.solutionLabel, run.compare?.baselineLabel ?? '']);
    expect(labels.filter((label) => /\.arbor|mcp-snapshots|call-/.test(label))).toEqual([]);
    expect(history.runs.find((run) => run.split === 'test')).toMatchObject({solutionLabel: 'scratch for test', labelKind: 'given'});
    const {collectReport} = await import('../../lib/report/index.js');
    const model = await collectReport({zoo, cwd: zoo, env: {...process.env, ARBOR_LEDGER: ''}});
    expect(JSON.stringify(model.entries)).not.toMatch(/\.arbor\/|mcp-snapshots|call-/);
  });

  it('refuses a bad label with a tool error naming the argument, before anything runs', async () => {
    const text = await transcript.error(client, 'evaluate', {name: 'relu_poly', label: 'two\nlines'});
    expect(text).toBe(
      'label "two\\nlines": expected 1 to 80 printable characters naming the solution (no line breaks or control characters), e.g. label: "blocked v2"',
    );
    expect(await transcript.error(client, 'submit_test', {name: 'relu_poly', solution: 'relu_poly/solution.py', label: ''})).toMatch(
      /^label "": expected 1 to 80/,
    );
  });
});
