/**
 * A sealed eval shares the machine with nothing of the agent's: the server's
 * dev evals run side by side (shared), a sealed eval alone (exclusive: it
 * waits for the running ones, and the ones asked for meanwhile wait for it).
 * So no run of the agent's can read, while a sealed run goes, what that run
 * leaves in the page cache or the machine's load. As root, the page cache is
 * dropped when a sealed eval ends, before any other eval starts: a fixed test
 * case's input (an accuracy entry's) that a sealed run read leaves no trace a
 * later run can time.
 */
import {writeFileSync} from 'node:fs';

type Waiter = {exclusive: boolean; go: () => void};

/** The server's evals, shared or exclusive, first come first served (an exclusive one is never starved). */
export class EvalIsolation {
  #shared = 0;
  #exclusive = false;
  readonly #waiting: Waiter[] = [];

  /** Run `work` once the isolation allows: alongside other shared work, or alone. */
  async run<T>(exclusive: boolean, work: () => Promise<T>, cancelled?: Promise<never>, onWait?: () => void): Promise<T> {
    await this.#enter(exclusive, cancelled, onWait);
    try {
      return await work();
    } finally {
      if (exclusive) dropPageCache();
      this.#leave(exclusive);
    }
  }

  /** How many evals wait for their turn (for a progress line). */
  get waiting(): number {
    return this.#waiting.length;
  }

  #enter(exclusive: boolean, cancelled?: Promise<never>, onWait?: () => void): Promise<void> {
    if (this.#free(exclusive) && this.#waiting.length === 0) {
      this.#take(exclusive);
      return Promise.resolve();
    }
    onWait?.();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {exclusive, go: () => resolve()};
      this.#waiting.push(waiter);
      cancelled?.catch((error: unknown) => {
        const at = this.#waiting.indexOf(waiter);
        if (at < 0) return;
        this.#waiting.splice(at, 1);
        reject(error);
        this.#wake();
      });
    });
  }

  #free(exclusive: boolean): boolean {
    return !this.#exclusive && (!exclusive || this.#shared === 0);
  }

  #take(exclusive: boolean): void {
    if (exclusive) this.#exclusive = true;
    else this.#shared++;
  }

  #leave(exclusive: boolean): void {
    if (exclusive) this.#exclusive = false;
    else this.#shared--;
    this.#wake();
  }

  /** Let in, in order, every waiter that may go now (shared ones together; an exclusive one stops the line). */
  #wake(): void {
    while (this.#waiting.length && this.#free(this.#waiting[0]!.exclusive)) {
      const next = this.#waiting.shift()!;
      this.#take(next.exclusive);
      next.go();
    }
  }
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
