// A sealed eval shares the machine with nothing of the agent's: the dev evals of the server run
// side by side, a sealed one alone; as root the page cache is dropped when it ends.
import {spawnSync} from 'node:child_process';
import {readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {dropPageCache, EvalIsolation} from '../../lib/mcp/isolation.js';
import {tempDir} from '../helpers/cli.js';

/** A piece of work that records when it starts and ends, and ends when told. */
function work(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    run: async () => {
      log.push(`${name} starts`);
      await done;
      log.push(`${name} ends`);
      return name;
    },
    finish,
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('the evals of an arbor mcp server', () => {
  it('run side by side, a sealed one alone: it waits for the running ones, and the ones asked for meanwhile wait for it', async () => {
    const isolation = new EvalIsolation();
    const log: string[] = [];
    const [dev1, dev2, sealed, dev3] = ['dev1', 'dev2', 'sealed', 'dev3'].map((name) => work(log, name));
    const waited: string[] = [];
    const runs = [
      isolation.run(false, dev1!.run),
      isolation.run(false, dev2!.run),
      isolation.run(true, sealed!.run, undefined, () => waited.push('sealed')),
      isolation.run(false, dev3!.run, undefined, () => waited.push('dev3')),
    ];
    await tick();
    expect(log).toEqual(['dev1 starts', 'dev2 starts']);
    expect(waited).toEqual(['sealed', 'dev3']);
    dev1!.finish();
    await tick();
    expect(log).toEqual(['dev1 starts', 'dev2 starts', 'dev1 ends']);
    dev2!.finish();
    await tick();
    expect(log.slice(3)).toEqual(['dev2 ends', 'sealed starts']);
    sealed!.finish();
    await tick();
    expect(log.slice(5)).toEqual(['sealed ends', 'dev3 starts']);
    dev3!.finish();
    expect(await Promise.all(runs)).toEqual(['dev1', 'dev2', 'sealed', 'dev3']);
  });

  it('an eval cancelled while it waits never starts, and lets the next one in', async () => {
    const isolation = new EvalIsolation();
    const log: string[] = [];
    const [sealed, dev] = ['sealed', 'dev'].map((name) => work(log, name));
    const blocked = work(log, 'blocked');
    const first = isolation.run(true, sealed!.run);
    let cancel!: (error: Error) => void;
    const cancelled = new Promise<never>((_, reject) => (cancel = reject));
    const waiting = isolation.run(false, blocked.run, cancelled);
    const after = isolation.run(false, dev!.run);
    cancel(new Error('cancelled'));
    await expect(waiting).rejects.toThrow('cancelled');
    sealed!.finish();
    await tick();
    dev!.finish();
    await Promise.all([first, after]);
    expect(log).toEqual(['sealed starts', 'sealed ends', 'dev starts', 'dev ends']);
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
      const isolation = new EvalIsolation();
      await isolation.run(true, async () => readFileSync(file));
      expect(resident()).toBe(0);
      expect(dropPageCache()).toBe(true);
    },
  );
});
