/**
 * One cgroup per run, for the CPU clock, the run's limits and for killing
 * every process of a run: a process cannot leave its cgroup (the sandbox
 * mounts no cgroupfs, and its seccomp filter denies mount), so
 * the group's CPU counter covers every thread, child and daemon of the run,
 * including children the kernel already reaped, which a walk over /proc
 * misses. cgroup v1 (`cpuacct.usage`, nanoseconds) or v2 (`cpu.stat`
 * `usage_usec`); where neither can be created (no permission, no cgroupfs),
 * runs have no CPU clock and the report says so. Where the memory and pids
 * controllers can be used too (v1: their own hierarchies; v2: enabled for the
 * parent's children), the group bounds the run's memory (swap included: none)
 * and its processes and threads, and tells afterwards whether a limit was hit.
 */
import {spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {ownerAlive, ownerTag} from './owner.js';

/** The limits a run's group enforces, where the controllers exist. */
export interface GroupLimits {
  memoryBytes: number;
  processes: number;
}

/** A run's cgroup. */
export interface CpuGroup {
  dir: string;
  /** The files a process writes its pid to, to join the group (one per hierarchy). */
  procs: string[];
  /** Which limits the group enforces (false: no such controller here). */
  bounds: {memory: boolean; processes: boolean};
  /** The limits asked for, if any. */
  limits?: GroupLimits;
  /** CPU seconds (user + system) used by every process that was ever in the group. */
  cpuSeconds(): number;
  /** Whether the kernel killed a process of the group at its memory limit. */
  overMemory(): boolean;
  /** Whether a fork or thread failed at the group's process limit. */
  overProcesses(): boolean;
  /** Whether the group can be frozen here (cgroup v2's cgroup.freeze, or v1's freezer hierarchy). */
  canFreeze: boolean;
  /**
   * Stop every process of the group until thaw() (the kernel's freezer: no
   * signal it could catch, no CPU time while frozen); returns once the kernel
   * says the whole group is frozen, false when it could not freeze it.
   */
  freeze(): boolean;
  /** Let the group's processes run again. */
  thaw(): void;
  /** Kill every process in the group and remove it. */
  destroy(): void;
}

interface Hierarchy {
  version: 1 | 2;
  /** The folder under which arbor creates its groups (this process's own group; v1: the cpuacct hierarchy's). */
  parent: string;
  /** Where the memory and pids groups go: v1, their own hierarchies' folders; v2, the parent (when the controller is enabled for its children). */
  memory?: string;
  pids?: string;
  /** v1: the freezer hierarchy's folder; v2: the parent (every v2 group but the root has cgroup.freeze). */
  freezer?: string;
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
  const v1 = (controller: string): string | undefined => {
    for (const line of groups.split('\n')) {
      const [, controllers, own] = line.split(':');
      if (own === undefined || !controllers?.split(',').includes(controller)) continue;
      const mount = mountOf((type, options) => type === 'cgroup' && options.split(',').includes(controller));
      if (mount) return path.join(mount, own);
    }
    return undefined;
  };
  const cpuacct = v1('cpuacct');
  if (cpuacct) return {version: 1, parent: cpuacct, memory: v1('memory'), pids: v1('pids'), freezer: v1('freezer')};
  const unified = groups.split('\n').find((line) => line.startsWith('0::'));
  const mount = mountOf((type) => type === 'cgroup2');
  if (!unified || !mount) return null;
  const parent = path.join(mount, unified.slice(3));
  let enabled: string[] = [];
  try {
    enabled = readFileSync(path.join(parent, 'cgroup.subtree_control'), 'utf8').trim().split(/\s+/);
  } catch {
    // No controllers for the children: the CPU counter (always there) is enough for the clock.
  }
  return {version: 2, parent, memory: enabled.includes('memory') ? parent : undefined, pids: enabled.includes('pids') ? parent : undefined, freezer: parent};
}

/** The number after `key` in a flat-keyed cgroup file (memory.events, pids.events, memory.oom_control), or 0. */
function eventCount(file: string, key: string): number {
  try {
    return Number(new RegExp(`^${key} (\\d+)`, 'm').exec(readFileSync(file, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Write a limit; false when the kernel refuses it (the limit then does not hold). */
function setLimit(file: string, value: string): boolean {
  try {
    writeFileSync(file, value);
    return true;
  } catch {
    return false;
  }
}

function readUsage(version: 1 | 2, dir: string): number {
  if (version === 1) return Number(readFileSync(path.join(dir, 'cpuacct.usage'), 'utf8')) / 1e9;
  const stat = readFileSync(path.join(dir, 'cpu.stat'), 'utf8');
  return Number(/^usage_usec (\d+)/m.exec(stat)?.[1] ?? NaN) / 1e6;
}

/**
 * Freeze (or thaw) the group whose freezer is `dir`. v2 writes cgroup.freeze and reads "frozen 1"
 * in cgroup.events; v1 writes freezer.state and reads it back until FROZEN (freezing is
 * asynchronous in both). Whether the group reached the state within about a second.
 */
function setFrozen(version: 1 | 2, dir: string, frozen: boolean): boolean {
  const file = path.join(dir, version === 1 ? 'freezer.state' : 'cgroup.freeze');
  try {
    writeFileSync(file, version === 1 ? (frozen ? 'FROZEN' : 'THAWED') : frozen ? '1' : '0');
  } catch {
    return false;
  }
  if (!frozen) return true;
  for (let attempt = 0; attempt < 1000; attempt++) {
    try {
      const state = version === 1 ? readFileSync(file, 'utf8').trim() === 'FROZEN' : /^frozen 1$/m.test(readFileSync(path.join(dir, 'cgroup.events'), 'utf8'));
      if (state) return true;
    } catch {
      return false;
    }
    Atomics.wait(pause, 0, 0, attempt < 50 ? 0.2 : 1);
  }
  return false;
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

/** Remove the groups of evals that are gone (killed before they could clean up), in every hierarchy. */
function removeStale(found: Hierarchy): void {
  const stale = (parent: string): string[] => {
    try {
      return readdirSync(parent)
        .filter((name) => {
          const match = /^arbor-(\d+\.\d+)-\d+$/.exec(name);
          return match !== null && !ownerAlive(match[1]!);
        })
        .map((name) => path.join(parent, name));
    } catch {
      return [];
    }
  };
  // A run its eval left frozen (the eval was killed while it waited) dies of SIGKILL only once thawed.
  if (found.freezer !== undefined) for (const dir of stale(found.freezer)) setFrozen(found.version, dir, false);
  for (const parent of new Set([found.parent, found.memory, found.pids, found.freezer])) {
    if (parent === undefined) continue;
    for (const dir of stale(parent)) killAndRemove(dir);
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
      removeStale(hierarchy);
      if (!canJoin(hierarchy)) hierarchy = null;
    }
  }
  return hierarchy !== null;
}

let boundsCache: {memory: boolean; processes: boolean} | undefined;

/** Which limits a run's group can enforce here (checked once, with a group that is made and removed). */
export function cgroupBounds(limits: GroupLimits): {memory: boolean; processes: boolean} {
  if (!boundsCache) {
    const probe = createGroup(limits);
    boundsCache = probe ? {...probe.bounds} : {memory: false, processes: false};
    probe?.destroy();
  }
  return boundsCache;
}

/**
 * A new cgroup for one run, or undefined where none can be made; with
 * `limits`, bounded in memory and processes wherever the controllers allow
 * (`bounds` says which held).
 */
export function createGroup(limits?: GroupLimits): CpuGroup | undefined {
  if (!cgroupsWork() || !hierarchy) return undefined;
  const {version, parent} = hierarchy;
  const name = `arbor-${ownerTag()}-${sequence++}`;
  const dir = path.join(parent, name);
  try {
    mkdirSync(dir);
  } catch {
    return undefined;
  }
  // v1: a group of the same name in the memory and pids hierarchies; v2: the one group.
  const extra = (controllerParent: string | undefined): string | undefined => {
    if (!limits || controllerParent === undefined) return undefined;
    const own = path.join(controllerParent, name);
    if (own === dir) return dir;
    try {
      mkdirSync(own);
      return own;
    } catch {
      return undefined;
    }
  };
  const memoryDir = extra(hierarchy.memory);
  const pidsDir = extra(hierarchy.pids);
  // The freezer: v2, the group itself; v1, a group of the same name in the freezer hierarchy (made whatever the limits).
  let freezerDir: string | undefined;
  if (version === 2) freezerDir = existsSync(path.join(dir, 'cgroup.freeze')) ? dir : undefined;
  else if (hierarchy.freezer !== undefined) {
    const own = path.join(hierarchy.freezer, name);
    try {
      mkdirSync(own);
      freezerDir = own;
    } catch {
      freezerDir = undefined;
    }
  }
  const bytes = String(limits?.memoryBytes ?? 0);
  let memory = false;
  if (memoryDir !== undefined) {
    memory =
      version === 1
        ? setLimit(path.join(memoryDir, 'memory.limit_in_bytes'), bytes) &&
          // With swap accounting, memory + swap gets the same bound: a run does not swap its way past it.
          (!existsSync(path.join(memoryDir, 'memory.memsw.limit_in_bytes')) || setLimit(path.join(memoryDir, 'memory.memsw.limit_in_bytes'), bytes))
        : setLimit(path.join(memoryDir, 'memory.max'), bytes) &&
          (!existsSync(path.join(memoryDir, 'memory.swap.max')) || setLimit(path.join(memoryDir, 'memory.swap.max'), '0'));
  }
  const processes = pidsDir !== undefined && setLimit(path.join(pidsDir, 'pids.max'), String(limits!.processes));
  const dirs = [...new Set([dir, memoryDir, pidsDir, freezerDir].filter((each): each is string => each !== undefined))];
  return {
    dir,
    procs: dirs.map((each) => path.join(each, 'cgroup.procs')),
    bounds: {memory, processes},
    limits,
    cpuSeconds: () => {
      try {
        return readUsage(version, dir);
      } catch {
        return NaN;
      }
    },
    overMemory: () => memoryDir !== undefined && eventCount(path.join(memoryDir, version === 1 ? 'memory.oom_control' : 'memory.events'), 'oom_kill') > 0,
    overProcesses: () => pidsDir !== undefined && eventCount(path.join(pidsDir, 'pids.events'), 'max') > 0,
    canFreeze: freezerDir !== undefined,
    freeze: () => freezerDir !== undefined && setFrozen(version, freezerDir, true),
    thaw: () => {
      if (freezerDir !== undefined) setFrozen(version, freezerDir, false);
    },
    destroy: () => {
      // A frozen process does not die of SIGKILL until it is thawed.
      if (freezerDir !== undefined) setFrozen(version, freezerDir, false);
      // Every process is in the first group too: killing through it empties the others.
      for (const each of dirs) killAndRemove(each);
    },
  };
}
