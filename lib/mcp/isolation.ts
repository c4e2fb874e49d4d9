/**
 * A sealed eval shares the machine with nothing of the agent's: the dev evals
 * of every `arbor mcp` on the zoo run side by side (shared turns), a sealed
 * eval alone (an exclusive turn: it waits for the running ones, and the ones
 * asked for meanwhile wait for it), first come first served. The turns are
 * kept in the zoo's MCP store, so servers started per call, and runs that
 * outlived their server, wait for each other too. As root, the sealed run drops
 * the page cache as its eval ends, inside its turn, before any other eval starts: a fixed test
 * case's input (an accuracy entry's) that a sealed run read leaves no trace a
 * later run can time.
 */
import {writeFileSync} from 'node:fs';
import type {McpStore, ReleaseClock} from './store.js';

/** How often a waiting turn looks again. */
const pollMs = 200;

/**
 * Wait for the turn of run `run` (exclusive: alone; with `release`, a turn
 * whose process died is given up at a release time), then return its release. `onWait`
 * is told once, when the turn has to wait. A process that ends holding a turn
 * gives it up with it (the next one finds it gone).
 */
export async function takeTurn(
  store: McpStore,
  run: number,
  exclusive: boolean,
  options: {onWait?: () => void; release?: ReleaseClock} = {},
): Promise<() => void> {
  let seq = store.enterTurn(run, exclusive, options.release);
  let told = false;
  for (;;) {
    const go = store.mayGo(seq);
    if (go === true) break;
    // Its row was dropped (its process looked gone to another): back in line.
    if (go === 'gone') seq = store.enterTurn(run, exclusive, options.release);
    if (!told) options.onWait?.();
    told = true;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return () => store.leaveTurn(seq);
}

/**
 * Drop the machine's clean page cache (root only; elsewhere nothing happens):
 * what a sealed run read is then read from disk by whoever reads it next.
 * Other work on the machine pays for it with a few reads from disk.
 */
export function dropPageCache(): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    writeFileSync('/proc/sys/vm/drop_caches', '1');
    return true;
  } catch {
    // A container whose /proc/sys is read-only: nothing to do here; the trust model says what remains.
    return false;
  }
}
