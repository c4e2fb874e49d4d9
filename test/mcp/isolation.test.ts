// A sealed eval shares the machine with nothing of the agent's: the dev evals of every server on the
// zoo run side by side, a sealed one alone, across processes (the turns are in the zoo's MCP store);
// a process that dies holding a turn gives it up; as root the page cache is dropped when a sealed eval ends.
import {spawn, spawnSync} from 'node:child_process';
import {readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {dropPageCache, takeTurn} from '../../lib/mcp/isolation.js';
import {McpStore} from '../../lib/mcp/store.js';
import {repoRoot, tempDir} from '../helpers/cli.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A turn taken in the background: when it started, and its release. */
function turn(store: McpStore, run: number, exclusive: boolean, log: string[], name: string) {
  const waited: string[] = [];
  const taken = takeTurn(store, run, exclusive, {onWait: () => waited.push(name)}).then((leave) => {
    log.push(`${name} starts`);
    return () => {
      log.push(`${name} ends`);
      leave();
    };
  });
  return {taken, waited};
}

describe('the evals of the arbor mcp servers on a zoo', () => {
  it('run side by side, a sealed one alone: it waits for the running ones, and the ones asked for meanwhile wait for it', async () => {
    const store = await McpStore.open(path.join(tempDir(), 'runs.db.mcp.db'));
    const log: string[] = [];
    const dev1 = turn(store, 1, false, log, 'dev1');
    const dev2 = turn(store, 2, false, log, 'dev2');
    const [leave1, leave2] = [await dev1.taken, await dev2.taken];
    const sealed = turn(store, 3, true, log, 'sealed');
    const dev3 = turn(store, 4, false, log, 'dev3');
    await sleep(500);
    expect(log).toEqual(['dev1 starts', 'dev2 starts']);
    expect([...sealed.waited, ...dev3.waited]).toEqual(['sealed', 'dev3']);
    leave1();
    await sleep(500);
    expect(log).toEqual(['dev1 starts', 'dev2 starts', 'dev1 ends']);
    leave2();
    const leaveSealed = await sealed.taken;
    await sleep(500);
    expect(log.slice(3)).toEqual(['dev2 ends', 'sealed starts']);
    leaveSealed();
    (await dev3.taken)();
    expect(log.slice(5)).toEqual(['sealed ends', 'dev3 starts', 'dev3 ends']);
    store.close();
  });

  it('a turn held by a process that died is given up: the next one goes', {timeout: 30_000}, async () => {
    const file = path.join(tempDir(), 'runs.db.mcp.db');
    const store = await McpStore.open(file);
    // Another process takes an exclusive turn and is killed holding it (SIGKILL: no cleanup of its own).
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const {McpStore} = await import(${JSON.stringify(path.join(repoRoot, 'dist/lib/mcp/store.js'))});
         const {takeTurn} = await import(${JSON.stringify(path.join(repoRoot, 'dist/lib/mcp/isolation.js'))});
         const store = await McpStore.open(${JSON.stringify(file)});
         await takeTurn(store, 1, true);
         console.log('holding');
         setInterval(() => {}, 1000);`,
      ],
      {stdio: ['ignore', 'pipe', 'inherit']},
    );
    await new Promise<void>((resolve) => holder.stdout.on('data', () => resolve()));
    const log: string[] = [];
    const dev = turn(store, 2, false, log, 'dev');
    await sleep(500);
    expect(log).toEqual([]);
    expect(dev.waited).toEqual(['dev']);
    holder.kill('SIGKILL');
    (await dev.taken)();
    expect(log).toEqual(['dev starts', 'dev ends']);
    store.close();
  });

  it('a sealed turn whose process died is given up at its release time, not when it died', {timeout: 30_000}, async () => {
    const file = path.join(tempDir(), 'runs.db.mcp.db');
    const store = await McpStore.open(file);
    const from = Date.now();
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const {McpStore} = await import(${JSON.stringify(path.join(repoRoot, 'dist/lib/mcp/store.js'))});
         const {takeTurn} = await import(${JSON.stringify(path.join(repoRoot, 'dist/lib/mcp/isolation.js'))});
         const store = await McpStore.open(${JSON.stringify(file)});
         await takeTurn(store, 1, true, {release: {from: ${from}, every: 4000}});
         console.log('holding');
         setInterval(() => {}, 1000);`,
      ],
      {stdio: ['ignore', 'pipe', 'inherit']},
    );
    await new Promise<void>((resolve) => holder.stdout.on('data', () => resolve()));
    holder.kill('SIGKILL');
    const log: string[] = [];
    const dev = turn(store, 2, false, log, 'dev');
    (await dev.taken)();
    // It died within a second of its start; the dev turn went at its release time, 4 s after it.
    expect(Date.now() - from).toBeGreaterThanOrEqual(4000);
    expect(log).toEqual(['dev starts', 'dev ends']);
    store.close();
  });

  it.skipIf(process.getuid?.() !== 0 || spawnSync('fincore', ['--version']).status !== 0)(
    'as root, a sealed eval ends with the page cache dropped: a file it read is no longer cached',
    async () => {
      const file = path.join(tempDir(), 'read-by-a-sealed-run.bin');
      writeFileSync(file, Buffer.alloc(1 << 20, 7));
      spawnSync('sync');
      readFileSync(file);
      const resident = () => Number(spawnSync('fincore', ['--bytes', '--noheadings', '--output', 'RES', file], {encoding: 'utf8'}).stdout.trim());
      expect(resident()).toBe(1 << 20);
      const store = await McpStore.open(path.join(tempDir(), 'runs.db.mcp.db'));
      const leave = await takeTurn(store, 1, true);
      readFileSync(file);
      // As sealed-run.ts does: the cache dropped as the eval ends, inside the turn.
      expect(dropPageCache()).toBe(true);
      leave();
      expect(resident()).toBe(0);
      store.close();
    },
  );
});
