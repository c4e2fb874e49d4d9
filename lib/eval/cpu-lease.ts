/**
 * One CPU per eval, machine-wide. An eval that pins its runs takes an
 * exclusive lease on a CPU: a lock file per CPU, held with flock(1) by a small
 * holder process for as long as the eval runs. The kernel releases a flock
 * when the last process holding it ends, so a lease never outlives its eval,
 * however the eval ends (the holder reads its stdin, which closes when the
 * eval's process goes, and exits). Evals on one host (several `eval`s, `run`,
 * queue workers, `compare`, of any user) therefore never time on the same
 * CPU, and one that finds every CPU leased waits for one.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import {chmodSync, mkdirSync} from 'node:fs';
import path from 'node:path';

/** Where the lock files live (`ARBOR_CPU_LEASES` names another folder; every eval of a host must use the same). */
export const leaseFolderVariable = 'ARBOR_CPU_LEASES';
const defaultLeaseFolder = '/tmp/arbor-cpu-leases';

/** flock's exit code when the lock is held by another process (`-E`). */
const busyCode = 75;

/** A CPU held by this eval until release(). */
export interface CpuLease {
  cpu: number;
  /** The lock file. */
  file: string;
  release(): void;
}

/** Why no lease could be taken (no flock, a lock folder that cannot be written), for a warning. */
export class LeaseUnavailable extends Error {}

/** The folder of the lock files, made world-writable (sticky) when it is new. */
export function leaseFolder(env: NodeJS.ProcessEnv = process.env): string {
  const folder = env[leaseFolderVariable] || defaultLeaseFolder;
  try {
    mkdirSync(folder, {mode: 0o1777});
    // mkdir's mode passes through the umask: every user's evals must be able to add a CPU's file.
    chmodSync(folder, 0o1777);
  } catch {
    // It exists already (made by another eval, maybe another user's).
  }
  return folder;
}

/**
 * Try to lease `cpu` at once: the lease, or undefined when another process
 * holds it. Throws LeaseUnavailable when the lock cannot be taken at all.
 */
export function tryLease(folder: string, cpu: number): Promise<CpuLease | undefined> {
  const file = path.join(folder, `cpu${cpu}.lock`);
  return new Promise((resolve, reject) => {
    let holder: ChildProcess;
    try {
      // flock opens (and creates) the file and runs the shell with the lock held: `held` tells
      // that it was taken; then the shell waits on its stdin, the eval's pipe, until it closes.
      holder = spawn('flock', ['-n', '-E', String(busyCode), file, 'sh', '-c', 'echo held; exec cat >/dev/null'], {stdio: ['pipe', 'pipe', 'pipe']});
    } catch (error) {
      reject(new LeaseUnavailable(`cannot start flock: ${(error as Error).message}`));
      return;
    }
    let settled = false;
    let stderr = '';
    holder.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    holder.stdin!.on('error', () => {});
    holder.stdout!.once('data', () => {
      settled = true;
      // The lease must not keep the event loop alive, and ends with this process at the latest.
      for (const stream of [holder.stdin, holder.stdout, holder.stderr] as Array<{unref?: () => void} | null>) stream?.unref?.();
      holder.unref();
      let released = false;
      resolve({
        cpu,
        file,
        release: () => {
          if (released) return;
          released = true;
          holder.stdin!.end();
          holder.kill('SIGKILL');
        },
      });
    });
    holder.on('error', (error) => {
      if (settled) return;
      settled = true;
      reject(new LeaseUnavailable(`cannot start flock (util-linux): ${error.message}`));
    });
    holder.on('exit', (code) => {
      if (settled) return;
      settled = true;
      if (code === busyCode) resolve(undefined);
      else reject(new LeaseUnavailable(`flock ${file} failed (exit ${code}): ${stderr.trim().split('\n').pop() ?? ''}`));
    });
  });
}

/**
 * Lease one of `cpus` (tried in the order given: the idlest first), waiting
 * while every one is leased; `onWait` is told once, and then every
 * `reportEvery` seconds, how long the eval has waited.
 */
export async function leaseOneOf(
  folder: string,
  cpus: readonly number[],
  options: {onWait?: (waitedSeconds: number) => void; pollMs?: number; reportEvery?: number; signal?: AbortSignal} = {},
): Promise<CpuLease> {
  const {onWait, pollMs = 250, reportEvery = 30} = options;
  const started = Date.now();
  let reported = -Infinity;
  for (;;) {
    for (const cpu of cpus) {
      const lease = await tryLease(folder, cpu);
      if (lease) return lease;
    }
    options.signal?.throwIfAborted();
    const waited = (Date.now() - started) / 1000;
    if (waited - reported >= reportEvery || reported === -Infinity) {
      reported = waited;
      onWait?.(waited);
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
