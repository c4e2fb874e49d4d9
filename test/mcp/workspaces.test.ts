/**
 * The workspaces checkout makes, as later servers see them: accepted by any
 * server on the same zoo and workspaces folder, refused by one with another
 * folder; a folder made by hand in the workspaces folder, or put in the place
 * of a workspace, is not one (the record is the server's, in the zoo's MCP
 * store, never a file in a workspace); an abandoned workspace is removed at
 * the next start past --keep-days, and a server that stops leaves nothing in
 * its temp folder.
 */
import {copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {cliPath} from '../helpers/cli.js';
import {runsSettled, salt, Transcript, zooCopy} from './helpers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Set the workspaces' last use (the zoo's MCP store's `used`, lib/mcp/store.ts) to `ms`, as if no tool had used them since. */
async function lastUsed(zoo: string, workspaces: string[], ms: number): Promise<void> {
  const {default: Sqlite} = await import('better-sqlite3');
  const db = new Sqlite(path.join(zoo, '.arbor/runs.db.mcp.db'), {fileMustExist: true});
  try {
    const set = db.prepare('UPDATE workspaces SET used = ? WHERE path = ?');
    for (const workspace of workspaces) expect(set.run(new Date(ms).toISOString(), workspace).changes, workspace).toBe(1);
  } finally {
    db.close();
  }
}

describe('arbor mcp workspaces across servers', () => {
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

  /** One call on a new server (its workspaces folder, temp folder and options); the result, or the tool error's text; and the server's stderr. */
  async function once(workspaces: string, tool: string, args: Record<string, unknown>, extra: string[] = [], tmp = path.join(root, 'tmp')) {
    mkdirSync(tmp, {recursive: true});
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, 'mcp', zoo, '--workspaces', workspaces, ...extra],
      env: {...(process.env as Record<string, string>), ARBOR_TEST_SALT: salt, TMPDIR: tmp},
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const client = new Client({name: 'arbor-workspace-agent', version: '1.0.0'});
    await client.connect(transport);
    const transcript = new Transcript();
    try {
      const result = await transcript.raw(client, tool, args, {});
      const text = (result.content as Array<{text: string}>)[0]!.text;
      return {
        result: result.isError ? undefined : (result.structuredContent as Record<string, any>),
        error: result.isError ? text : undefined,
        stderr: () => stderr,
      };
    } finally {
      await client.close();
    }
  }

  it('a checkout is known to the next server on the same folder, not to one on another; a folder made by hand or put in its place is not a workspace', {
    timeout: 120_000,
  }, async () => {
    const folder = path.join(root, 'workspaces');
    const checkout = (await once(folder, 'checkout', {name: 'relu_poly', dest: 'mine'})).result!;
    expect(checkout.workspace).toBe(path.join(folder, 'mine'));
    // A background evaluate on a new server: the run starts (the path was accepted), or the call's error.
    const refusal = (given: Record<string, unknown>, dir = folder) =>
      once(dir, 'evaluate', {...given, background: true}).then((each) => each.error ?? each.result!.status);
    expect(await refusal({workspace: checkout.workspace})).toBe('running');
    expect(await refusal({solution: checkout.solution})).toBe('running');

    const outside = /: outside the zoo and the workspaces checkout made: pass a path in a workspace from checkout$/;
    // Another workspaces folder: another agent's space.
    expect(await refusal({workspace: checkout.workspace}, path.join(root, 'other-workspaces'))).toMatch(outside);
    // A folder made by hand next to it, with a marker-looking file: not a checkout.
    const forged = path.join(folder, 'forged');
    mkdirSync(forged);
    writeFileSync(path.join(forged, '.arbor-workspace'), JSON.stringify({name: 'relu_poly'}));
    writeFileSync(path.join(forged, 'solution.py'), 'print(1)\n');
    expect(await refusal({workspace: forged})).toMatch(outside);
    expect(await refusal({name: 'relu_poly', solution: path.join(forged, 'solution.py')})).toMatch(outside);
    // The workspace moved away and another folder put in its place: refused too.
    renameSync(checkout.workspace, path.join(folder, 'moved'));
    mkdirSync(checkout.workspace);
    writeFileSync(checkout.solution, 'print(2)\n');
    expect(await refusal({workspace: checkout.workspace})).toMatch(outside);
  });

  it('reads a solution as it is at the call: a link put in its place later, or a link in a folder given to compare, reads nothing outside', {
    timeout: 120_000,
  }, async () => {
    const folder = path.join(root, 'workspaces');
    const secret = path.join(root, 'secret.txt');
    writeFileSync(secret, 'SECRET-7f3a9c-not-for-the-agent\n');
    const checkout = (await once(folder, 'checkout', {name: 'relu_poly', dest: 'links'})).result!;
    // compare: the candidate folder's solution is a link out of the workspace: refused, as a path given would be.
    rmSync(checkout.solution);
    symlinkSync(secret, checkout.solution);
    const refused = await once(folder, 'compare', {name: 'relu_poly', baseline: 'baseline', candidate: checkout.workspace});
    expect(refused.error).toMatch(
      /^candidate \/\S+\/solution\.py: outside the zoo and the workspaces checkout made: pass a path in a workspace from checkout$/,
    );
    // evaluate: the call takes the file as it is; a link swapped in right after it is not what runs.
    rmSync(checkout.solution);
    copyFileSync(path.join(zoo, 'relu_poly/solution.py'), checkout.solution);
    const started = (await once(folder, 'evaluate', {workspace: checkout.workspace, background: true})).result!;
    rmSync(checkout.solution);
    symlinkSync(secret, checkout.solution);
    let run: Record<string, any> | undefined;
    for (let tries = 0; tries < 120 && run?.status !== 'done'; tries++, await sleep(500)) run = (await once(folder, 'get_run', {id: started.id})).result;
    expect(run).toMatchObject({status: 'done', result: {name: 'relu_poly', cases: expect.any(Array)}});
    expect(JSON.stringify(run)).not.toContain('SECRET');
    expect(run!.result.cases.every((c: {status: string}) => c.status === 'ok' || c.status === 'failed')).toBe(true);
    // The copy the run read is gone with it.
    expect(readdirSync(path.join(zoo, '.arbor/mcp-snapshots'))).toEqual([]);
  });

  it('removes at start the workspaces no tool used for --keep-days, and says so; a stopped server leaves nothing in its temp folder', {
    timeout: 120_000,
  }, async () => {
    const folder = path.join(root, 'kept');
    const tmp = path.join(root, 'server-tmp');
    const [old, fresh] = [
      (await once(folder, 'checkout', {name: 'relu_poly', dest: 'old'}, [], tmp)).result!,
      (await once(folder, 'checkout', {name: 'relu_poly', dest: 'fresh'}, [], tmp)).result!,
    ];
    // Both last used 2 days ago, as the zoo's store says (instead of waiting out a --keep-days, 9 s before, whose
    // next server had to start within it under CI's load), then one of the two used now: only the other is removed.
    await lastUsed(zoo, [old.workspace, fresh.workspace], Date.now() - 2 * 86_400_000);
    expect((await once(folder, 'evaluate', {workspace: fresh.workspace, background: true}, [], tmp)).result).toMatchObject({status: 'running'});
    const next = await once(folder, 'list_benchmarks', {}, ['--keep-days', '1'], tmp);
    expect(next.stderr()).toContain('arbor mcp: removed 1 workspace(s) no tool used for 1 days: old\n');
    expect(existsSync(old.workspace)).toBe(false);
    expect(statSync(fresh.workspace).isDirectory()).toBe(true);
    // The run started above has ended meanwhile, or ends soon: then nothing of any server or run is left in their temp folder.
    for (let tries = 0; tries < 120 && readdirSync(tmp).length > 0; tries++) await sleep(250);
    expect(readdirSync(tmp)).toEqual([]);
  });
});
