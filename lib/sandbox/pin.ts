/**
 * Which CPU an eval pins its runs to (`taskset -c`), and where its runs start
 * ahead of their turn: ARBOR_EVAL_CPU, or a CPU leased from the other evals
 * on this host (cpu-lease.ts), the idlest first in a fixed order.
 */
import {spawnSync} from 'node:child_process';
import {readFileSync} from 'node:fs';
import {UsageError} from '../errors.js';
import {
  CpusHeldByOthers,
  defaultForeignWait,
  describeUids,
  foreignWaitVariable,
  leaseFolder,
  leaseOneOf,
  LeaseUnavailable,
  type CpuLease,
} from './cpu-lease.js';

/** ARBOR_EVAL_CPU: "auto" (the default), "none" or a CPU number; anything else is a usage error. */
function cpuSetting(env: NodeJS.ProcessEnv): string {
  const cpu = (env.ARBOR_EVAL_CPU ?? 'auto').trim();
  if (cpu !== 'none' && cpu !== 'auto' && !/^\d+$/.test(cpu)) {
    throw new UsageError(
      `ARBOR_EVAL_CPU=${env.ARBOR_EVAL_CPU} is not a CPU number, expected e.g. 0, "auto" (a free allowed CPU, leased for the eval; the default) or "none" (no pinning)`,
    );
  }
  return cpu;
}

/** ARBOR_CPU_LEASE_FOREIGN_WAIT: seconds (default 60); anything but a number >= 0 is a usage error. */
function foreignWait(env: NodeJS.ProcessEnv): number {
  const text = env[foreignWaitVariable]?.trim();
  if (!text) return defaultForeignWait;
  const seconds = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !Number.isFinite(seconds)) {
    throw new UsageError(
      `${foreignWaitVariable}=${env[foreignWaitVariable]} is not a number of seconds, expected e.g. 60 (the default): how long an eval waits while processes of other users hold every CPU's lease`,
    );
  }
  return seconds;
}

/** Whether `taskset -c <cpu>` works here (util-linux present, CPU allowed). */
export function tasksetWorks(cpu: string): boolean {
  return spawnSync('taskset', ['-c', cpu, 'true'], {stdio: 'ignore'}).status === 0;
}

/** The CPU an eval pins its runs to, and the lease that keeps other evals off it until release(). */
export interface PinnedCpu {
  cpu?: string;
  /** Set when the CPU is leased (ARBOR_EVAL_CPU=auto). */
  lease?: CpuLease;
}

/**
 * The CPU to pin an eval's runs to with `taskset -c`: ARBOR_EVAL_CPU, a CPU
 * number (used as is, no lease), "none", or "auto" (the default): a CPU no
 * other eval on this host holds, leased until the eval releases it (the idlest
 * over the last 50 ms among the free ones); while every allowed CPU is
 * leased, the eval waits (`onWait` says how long so far), for ever while an
 * eval of this user holds one, else for ARBOR_CPU_LEASE_FOREIGN_WAIT seconds.
 * Only on Linux where taskset works; where no lease can be taken (no flock,
 * other users' processes holding every CPU past the bound), the idlest CPU
 * without one, and `onWarning` says why; it also says when the shared lease
 * folder is not trusted and the eval leases in its user's own.
 */
export async function pinCpu(
  env: NodeJS.ProcessEnv = process.env,
  hooks: {onWait?: (text: string) => void; onWarning?: (text: string) => void} = {},
): Promise<PinnedCpu> {
  const setting = cpuSetting(env);
  if (process.platform !== 'linux' || setting === 'none') return {};
  if (setting !== 'auto') return tasksetWorks(setting) ? {cpu: setting} : {};
  const bound = foreignWait(env);
  const allowed = allowedCpus();
  if (!allowed.length) return {};
  const order = byIdleness(allowed);
  let lease: CpuLease;
  try {
    lease = await leaseOneOf(leaseFolder(env), order, {
      onWait: (waited) =>
        hooks.onWait?.(
          `waiting for a CPU: every allowed CPU (${allowed.join(',')}) is leased by another eval on this host${waited ? ` (${Math.round(waited)} s so far)` : ''}; ARBOR_EVAL_CPU=<n> pins to one regardless`,
        ),
      onWarning: hooks.onWarning,
      foreignWait: bound,
    });
  } catch (error) {
    if (!(error instanceof LeaseUnavailable)) throw error;
    if (error instanceof CpusHeldByOthers) {
      // Measured again: the idlest CPU may not be the one it was before the wait.
      const cpu = String(byIdleness(allowed)[0]);
      hooks.onWarning?.(
        `no CPU lease: every allowed CPU (${allowed.join(',')}) has been leased for over ${bound} s by processes of ${describeUids(error.uids)}, not this user's evals; going on without a lease on CPU ${cpu}, the idlest: its times may be disturbed`,
      );
      return tasksetWorks(cpu) ? {cpu} : {};
    }
    hooks.onWarning?.(`no CPU lease (${error.message}): another eval on this host may time on the same CPU`);
    const cpu = String(order[0]);
    return tasksetWorks(cpu) ? {cpu} : {};
  }
  if (!tasksetWorks(String(lease.cpu))) {
    lease.release();
    return {};
  }
  return {cpu: String(lease.cpu), lease};
}

/**
 * Where the runs of an eval pinned to `cpu` start: every other allowed CPU, so
 * a run starting ahead of its turn loads Python beside the one being timed,
 * not on its core (the runner moves to `cpu` when served); `cpu` itself when
 * it is the only one.
 */
export function startCpusFor(cpu: string | undefined): string | undefined {
  if (cpu === undefined) return undefined;
  const others = allowedCpus().filter((other) => String(other) !== cpu);
  return others.length ? others.join(',') : cpu;
}

/** The CPUs this process may run on (Cpus_allowed_list of /proc/self/status). */
export function allowedCpus(): number[] {
  try {
    const list = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '';
    return list.split(',').flatMap((part) => {
      const [from, to = from] = part.split('-').map(Number);
      return Number.isInteger(from) && Number.isInteger(to) ? Array.from({length: to! - from! + 1}, (_, k) => from! + k) : [];
    });
  } catch {
    return [];
  }
}

/** Idle + iowait ticks of every CPU, from /proc/stat. */
function idleTicks(): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
    const match = /^cpu(\d+) (.*)$/.exec(line);
    if (!match) continue;
    const fields = match[2]!.trim().split(/\s+/).map(Number);
    ticks.set(Number(match[1]), (fields[3] ?? 0) + (fields[4] ?? 0));
  }
  return ticks;
}

/**
 * The CPUs in the order an eval tries to lease them: those about as idle as
 * the idlest over the next 50 ms (within 40% of the window) first, the
 * highest-numbered first among them, then the rest by idleness. The tie-break
 * is fixed so that evals run one after another time on the same CPU, idle or
 * evenly loaded: the CPUs of a virtual machine differ by a few percent in
 * speed (two vCPUs here: 52.2-52.4 on one, 52.9-53.7 on the other, for one
 * solution under two busy loops), and the idlest pick alone made that a
 * coin toss per eval.
 */
export function leaseOrder(cpus: readonly number[], idle: (cpu: number) => number, window: number): number[] {
  if (cpus.length <= 1) return [...cpus];
  const most = Math.max(...cpus.map(idle));
  const close = (cpu: number) => idle(cpu) >= most - 0.4 * window;
  return [...cpus].sort((a, b) => Number(close(b)) - Number(close(a)) || (close(a) ? b - a : idle(b) - idle(a)));
}

function byIdleness(cpus: number[]): number[] {
  if (cpus.length <= 1) return cpus;
  try {
    const before = idleTicks();
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    const after = idleTicks();
    // /proc/stat counts in USER_HZ ticks (100 a second on Linux): 5 in 50 ms.
    return leaseOrder(cpus, (cpu) => (after.get(cpu) ?? 0) - (before.get(cpu) ?? 0), 5);
  } catch {
    return cpus;
  }
}
