/**
 * One cgroup per run, for the CPU clock and for killing every process of a
 * run: a process cannot leave its cgroup (the sandbox mounts no cgroupfs), so
 * the group's CPU counter covers every thread, child and daemon of the run,
 * including children the kernel already reaped, which a walk over /proc
 * misses. cgroup v1 (`cpuacct.usage`, nanoseconds) or v2 (`cpu.stat`
 * `usage_usec`); where neither can be created (no permission, no cgroupfs),
 * runs have no CPU clock and the report says so.
 */
import {spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {ownerAlive, ownerTag} from './owner.js';

/** A run's cgroup. */
export interface CpuGroup {
  dir: string;
  /** The file a process writes its pid to, to join the group. */
  procs: string;
  /** CPU seconds (user + system) used by every process that was ever in the group. */
  cpuSeconds(): number;
  /** Kill every process in the group and remove it. */
  destroy(): void;
}

interface Hierarchy {
  version: 1 | 2;
  /** The folder under which arbor creates its groups (this process's own group). */
  parent: string;
}

let hierarchy: Hierarchy | null | undefined;
const pause = new Int32Array(new SharedArrayBuffer(4));
let sequence = 0;

/** Where this process's cgroup lives, from /proc/self/cgroup and /proc/self/mountinfo. */
function findHierarchy(): Hierarchy | null {
  if (process.platform !== 'linux') return null;
  let groups: string;
  let mounts: string;
  try {
    groups = readFileSync('/proc/self/cgroup', 'utf8');
    mounts = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return null;
  }
  const mountOf = (test: (type: string, options: string) => boolean): string | undefined => {
    for (const line of mounts.split('\n')) {
      const [left, right] = line.split(' - ');
      if (!left || !right) continue;
      const [type, , options = ''] = right.split(' ');
      if (type && test(type, options)) return left.split(' ')[4];
    }
    return undefined;
  };
  for (const line of groups.split('\n')) {
    const [, controllers, own] = line.split(':');
    if (own === undefined) continue;
    if (controllers?.split(',').includes('cpuacct')) {
      const mount = mountOf((type, options) => type === 'cgroup' && options.split(',').includes('cpuacct'));
      if (mount) return {version: 1, parent: path.join(mount, own)};
    }
  }
  const unified = groups.split('\n').find((line) => line.startsWith('0::'));
  const mount = mountOf((type) => type === 'cgroup2');
  if (unified && mount) return {version: 2, parent: path.join(mount, unified.slice(3))};
  return null;
}

function readUsage(version: 1 | 2, dir: string): number {
  if (version === 1) return Number(readFileSync(path.join(dir, 'cpuacct.usage'), 'utf8')) / 1e9;
  const stat = readFileSync(path.join(dir, 'cpu.stat'), 'utf8');
  return Number(/^usage_usec (\d+)/m.exec(stat)?.[1] ?? NaN) / 1e6;
}

function killAndRemove(dir: string): void {
  const kill = path.join(dir, 'cgroup.kill');
  if (existsSync(kill)) {
    try {
      writeFileSync(kill, '1');
    } catch {
      // Fall back to signalling each process.
    }
  }
  for (let attempt = 0; attempt < 200; attempt++) {
    let pids: number[];
    try {
      pids = readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
    } catch {
      return;
    }
    if (pids.length === 0) break;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    // SIGKILL is asynchronous: give the kernel a moment before looking again.
    Atomics.wait(pause, 0, 0, 5);
  }
  try {
    rmdirSync(dir);
  } catch {
    // Still busy: the next eval removes it.
  }
}

/** Remove the groups of evals that are gone (killed before they could clean up). */
function removeStale(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const match = /^arbor-(\d+\.\d+)-\d+$/.exec(name);
    if (match && !ownerAlive(match[1]!)) killAndRemove(path.join(parent, name));
  }
}

/** Whether a process can join a group made here: checked once with a real process. */
function canJoin(found: Hierarchy): boolean {
  const dir = path.join(found.parent, `arbor-${ownerTag()}-probe`);
  try {
    mkdirSync(dir);
  } catch {
    return false;
  }
  const joined = spawnSync('/bin/sh', ['-c', 'echo $$ > "$0"', path.join(dir, 'cgroup.procs')], {stdio: 'ignore'}).status === 0;
  const readable = Number.isFinite(readUsage(found.version, dir));
  killAndRemove(dir);
  return joined && readable;
}

/** Whether runs get cgroups here (found, stale groups of dead evals removed, and joinable; checked once). */
export function cgroupsWork(): boolean {
  if (hierarchy === undefined) {
    hierarchy = findHierarchy();
    if (hierarchy) {
      removeStale(hierarchy.parent);
      if (!canJoin(hierarchy)) hierarchy = null;
    }
  }
  return hierarchy !== null;
}

/** A new cgroup for one run, or undefined where none can be made. */
export function createGroup(): CpuGroup | undefined {
  if (!cgroupsWork() || !hierarchy) return undefined;
  const {version, parent} = hierarchy;
  const dir = path.join(parent, `arbor-${ownerTag()}-${sequence++}`);
  try {
    mkdirSync(dir);
  } catch {
    return undefined;
  }
  return {
    dir,
    procs: path.join(dir, 'cgroup.procs'),
    cpuSeconds: () => {
      try {
        return readUsage(version, dir);
      } catch {
        return NaN;
      }
    },
    destroy: () => killAndRemove(dir),
  };
}
