/**
 * One CPU per eval, machine-wide. An eval that pins its runs takes an
 * exclusive lease on a CPU: a flock on a lock file per CPU, taken on a
 * descriptor this process opened and holds for as long as the eval runs
 * (flock(1) locks it as its fd 3 and exits; the lock stays with the open file).
 * The kernel releases a flock when the last descriptor of its open file
 * closes, so a lease never outlives its eval, however the eval ends; the
 * descriptor is close-on-exec, so no run inherits it. Evals on one host
 * (several `eval`s, `run`, queue workers, `compare`, of any user) therefore
 * never time on the same CPU, and one that finds every CPU leased waits for one.
 *
 * The folder is shared between users, so it is trusted only when it is a real
 * folder owned by root or the caller and writable by its owner alone, and a
 * lock file only when it is opened without following a symlink and is a
 * regular file of the folder's owner with one link: otherwise another user
 * could plant links there (root would create files where they point) or
 * files of their own. An untrusted folder or file sends the eval to a folder
 * of its user's own (`<folder>-<uid>`), with a warning. A lease held by a
 * process of another uid (anyone may flock a file they can read) stalls an
 * eval only for a bound (`foreignWait`): then it goes on without one.
 */
import {spawn} from 'node:child_process';
import {closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, existsSync} from 'node:fs';
import {cpus as osCpus} from 'node:os';
import path from 'node:path';

/** Where the lock files live (`ARBOR_CPU_LEASES` names another folder; every eval of a host must use the same). */
export const leaseFolderVariable = 'ARBOR_CPU_LEASES';
/** Seconds an eval waits while every CPU is leased by processes of other uids before it goes on without a lease. */
export const foreignWaitVariable = 'ARBOR_CPU_LEASE_FOREIGN_WAIT';
export const defaultForeignWait = 60;
export const defaultLeaseFolder = '/tmp/arbor-cpu-leases';

/** flock's exit code when the lock is held by another process (`-E`). */
const busyCode = 75;

/** A CPU held by this eval until release(). */
export interface CpuLease {
  cpu: number;
  /** The lock file. */
  file: string;
  release(): void;
}

/** Why no lease could be taken (no flock, a lock folder that cannot be used), for a warning. */
export class LeaseUnavailable extends Error {}

/** A lease folder or lock file another user could have planted or can change: its message says which and why. */
export class LeaseUntrusted extends LeaseUnavailable {}

/** Every CPU asked for has been leased past the bound, by processes of other uids only (`undefined`: a holder this user cannot see). */
export class CpusHeldByOthers extends LeaseUnavailable {
  constructor(
    readonly uids: Array<number | undefined>,
    readonly waitedSeconds: number,
  ) {
    super(`every CPU has been leased for ${Math.round(waitedSeconds)} s by processes of ${describeUids(uids)}`);
  }
}

export function describeUids(uids: ReadonlyArray<number | undefined>): string {
  const known = uids.filter((uid): uid is number => uid !== undefined);
  const parts = known.length ? [`uid ${known.join(', ')}`] : [];
  if (known.length < uids.length) parts.push('a process this user cannot see');
  return parts.join(' and ');
}

const myUid = () => process.getuid?.() ?? -1;

/**
 * The folder of the lock files (`ARBOR_CPU_LEASES`, else /tmp/arbor-cpu-leases).
 * When this call makes it, it is 0755, with a 0644 lock file for every CPU of the
 * machine: other users' evals open them read-only (flock needs no more), and
 * trust them when root made them.
 */
export function leaseFolder(env: NodeJS.ProcessEnv = process.env): string {
  const folder = path.resolve(env[leaseFolderVariable] || defaultLeaseFolder);
  makeFolder(folder, 0o755);
  return folder;
}

/** The folder an eval leases in when `folder` cannot be trusted: its user's own, next to it. */
function privateLeaseFolder(folder: string): string {
  return `${path.resolve(folder)}-${myUid()}`;
}

/** Make `folder` with `mode` (not the umask's) and its lock files, unless it exists. */
function makeFolder(folder: string, mode: number): void {
  try {
    mkdirSync(folder, {mode});
  } catch {
    return; // It exists already (made by another eval, maybe another user's): trusted or not when used.
  }
  let fd: number | undefined;
  try {
    fd = openFolder(folder).fd;
    fchmodSync(fd, mode);
    for (const cpu of machineCpus()) closeSync(openLockFile(folder, cpu, fd).fd);
  } catch {
    // Checked again, and reported, when a lease is taken.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The CPUs of the machine (/sys/devices/system/cpu/present), allowed to this process or not. */
function machineCpus(): number[] {
  try {
    return readFileSync('/sys/devices/system/cpu/present', 'utf8')
      .trim()
      .split(',')
      .flatMap((part) => {
        const [from, to = from] = part.split('-').map(Number);
        return Number.isInteger(from) && Number.isInteger(to) ? Array.from({length: to! - from! + 1}, (_, k) => from! + k) : [];
      });
  } catch {
    return osCpus().map((_, k) => k);
  }
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/** Open `folder` (not through a symlink) and check that only root or this user can change what is in it. */
function openFolder(folder: string): {fd: number; uid: number} {
  let fd: number;
  try {
    fd = openSync(folder, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ELOOP' || code === 'ENOTDIR') {
      const symlink = (() => {
        try {
          return lstatSync(folder).isSymbolicLink();
        } catch {
          return false;
        }
      })();
      throw new LeaseUntrusted(`${folder} is not trusted: ${symlink ? 'a symlink' : 'not a folder'}`);
    }
    if (code === 'EACCES') throw new LeaseUntrusted(`${folder} is not trusted: this user cannot open it`);
    throw new LeaseUnavailable(`cannot open the lease folder ${folder}: ${(error as Error).message}`);
  }
  const stat = fstatSync(fd);
  const problem =
    stat.uid !== 0 && stat.uid !== myUid()
      ? `owned by uid ${stat.uid}, neither root nor this user`
      : stat.mode & 0o022
        ? `writable by ${stat.mode & 0o002 ? 'others' : 'its group'} (mode ${(stat.mode & 0o7777).toString(8)})`
        : undefined;
  if (problem) {
    closeSync(fd);
    throw new LeaseUntrusted(`${folder} is not trusted: ${problem}`);
  }
  return {fd, uid: stat.uid};
}

const procFds = existsSync('/proc/self/fd');

/**
 * Open (making it when this user may) the lock file of `cpu` in the folder open as `folderFd`,
 * never through a symlink, and check it is the folder owner's regular file with one link.
 * The descriptor is close-on-exec (libuv opens so). `key` names it as /proc/locks does.
 */
function openLockFile(folder: string, cpu: number, folderFd: number): {fd: number; key: string} {
  const name = `cpu${cpu}.lock`;
  const file = path.join(folder, name);
  // Through the folder's descriptor (openat's equivalent): the folder checked is the one the file is in.
  const via = procFds ? `/proc/self/fd/${folderFd}/${name}` : file;
  const folderUid = fstatSync(folderFd).uid;
  let fd: number;
  try {
    fd = openSync(via, constants.O_RDONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o644);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ELOOP') throw new LeaseUntrusted(`${file} is not trusted: a symlink`);
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
      const missing = !existsSync(via);
      throw new LeaseUntrusted(
        missing ? `${file} is missing, and only the folder's owner (uid ${folderUid}) can make it` : `${file} cannot be opened by this user`,
      );
    }
    throw new LeaseUnavailable(`cannot open ${file}: ${(error as Error).message}`);
  }
  const stat = fstatSync(fd, {bigint: true});
  const problem = !stat.isFile()
    ? 'not a regular file'
    : Number(stat.uid) !== folderUid
      ? `owned by uid ${stat.uid}, not the folder's owner (uid ${folderUid})`
      : stat.nlink !== 1n
        ? `${stat.nlink} links to it`
        : undefined;
  if (problem) {
    closeSync(fd);
    throw new LeaseUntrusted(`${file} is not trusted: ${problem}`);
  }
  // A umask may have taken other users' read permission from a file made here.
  if (Number(stat.uid) === myUid() && (Number(stat.mode) & 0o777) !== 0o644) fchmodSync(fd, 0o644);
  return {fd, key: lockKey(stat.dev, stat.ino)};
}

/** A file as /proc/locks names it: major:minor:inode (the numbers in decimal). */
function lockKey(dev: bigint, ino: bigint): string {
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & 0xfffff000n);
  const minor = (dev & 0xffn) | ((dev >> 12n) & 0xffffff00n);
  return `${major}:${minor}:${ino}`;
}

/** flock -n on the descriptor, as the child's fd 3: its exit code (0 locked, busyCode held elsewhere). */
function flockDescriptor(fd: number): Promise<{code: number | null; stderr: string}> {
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn('flock', ['-n', '-E', String(busyCode), '3'], {stdio: ['ignore', 'ignore', 'pipe', fd]});
    } catch (error) {
      reject(error);
      return;
    }
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({code, stderr}));
  });
}

/** Lease `cpu` in `folder` at once, or say which file (its /proc/locks key) another process holds. */
async function attempt(folder: string, cpu: number): Promise<CpuLease | {busy: string}> {
  const file = path.join(folder, `cpu${cpu}.lock`);
  const opened = openFolder(folder);
  let fd: number;
  let key: string;
  try {
    ({fd, key} = openLockFile(folder, cpu, opened.fd));
  } finally {
    closeSync(opened.fd);
  }
  let result: {code: number | null; stderr: string};
  try {
    result = await flockDescriptor(fd);
  } catch (error) {
    closeSync(fd);
    throw new LeaseUnavailable(`cannot start flock (util-linux): ${(error as Error).message}`);
  }
  if (result.code !== 0) {
    closeSync(fd);
    if (result.code === busyCode) return {busy: key};
    throw new LeaseUnavailable(`flock ${file} failed (exit ${result.code}): ${result.stderr.trim().split('\n').pop() ?? ''}`);
  }
  let released = false;
  return {
    cpu,
    file,
    release: () => {
      if (released) return;
      released = true;
      closeSync(fd);
    },
  };
}

/**
 * Try to lease `cpu` at once: the lease, or undefined when another process
 * holds it. Throws LeaseUntrusted when the folder or the lock file cannot be
 * trusted, LeaseUnavailable when the lock cannot be taken at all.
 */
export async function tryLease(folder: string, cpu: number): Promise<CpuLease | undefined> {
  const result = await attempt(folder, cpu);
  return 'busy' in result ? undefined : result;
}

/**
 * The uids of the processes holding a flock on each of `keys` (files as /proc/locks
 * names them); a key absent is not locked now; `undefined` stands for a holder
 * this user cannot see. /proc/locks names the process that took the lock, which
 * may have ended (flock(1) on an inherited descriptor) or its pid gone to another
 * process: a holder is a process whose descriptor carries the lock (its fdinfo
 * lists it), looked for among all processes when the named one is not.
 */
function lockHolders(keys: readonly string[]): Map<string, Set<number | undefined>> {
  const wanted = new Set(keys);
  const lockers = new Map<string, Set<number>>();
  let locks = '';
  try {
    locks = readFileSync('/proc/locks', 'utf8');
  } catch {
    return new Map();
  }
  for (const line of locks.split('\n')) {
    // `1: FLOCK  ADVISORY  WRITE 5620 fe:00:2146865 0 EOF`; a waiter's line has `->` before FLOCK.
    const match = /^\d+:\s+FLOCK\s+\S+\s+\S+\s+(-?\d+)\s+([0-9a-f]+):([0-9a-f]+):(\d+)\s/.exec(line);
    if (!match) continue;
    const key = `${parseInt(match[2]!, 16)}:${parseInt(match[3]!, 16)}:${match[4]}`;
    if (!wanted.has(key)) continue;
    if (!lockers.has(key)) lockers.set(key, new Set());
    lockers.get(key)!.add(Number(match[1]));
  }
  const holders = new Map<string, Set<number | undefined>>();
  const unresolved: string[] = [];
  for (const [key, pids] of lockers) {
    const uids = new Set<number | undefined>();
    for (const pid of pids) {
      const uid = pid > 0 && locksHeldBy(pid).has(key) ? uidOf(pid) : undefined;
      if (uid !== undefined) uids.add(uid);
    }
    holders.set(key, uids);
    if (!uids.size) unresolved.push(key);
  }
  if (unresolved.length) {
    for (const entry of safeReaddir('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const pid = Number(entry);
      const held = locksHeldBy(pid);
      for (const key of unresolved) {
        if (!held.has(key)) continue;
        const uid = uidOf(pid);
        if (uid !== undefined) holders.get(key)!.add(uid);
      }
    }
    for (const key of unresolved) if (!holders.get(key)!.size) holders.get(key)!.add(undefined);
  }
  return holders;
}

function safeReaddir(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

/** The files (keys) a process's descriptors hold flocks on. */
function locksHeldBy(pid: number): Set<string> {
  const held = new Set<string>();
  for (const fd of safeReaddir(`/proc/${pid}/fdinfo`)) {
    let info: string;
    try {
      info = readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8');
    } catch {
      continue;
    }
    for (const match of info.matchAll(/^lock:\s+\d+:\s+FLOCK\s+\S+\s+\S+\s+-?\d+\s+([0-9a-f]+):([0-9a-f]+):(\d+)\s/gm)) {
      held.add(`${parseInt(match[1]!, 16)}:${parseInt(match[2]!, 16)}:${match[3]}`);
    }
  }
  return held;
}

/** A process's real uid (/proc/<pid>/status). */
function uidOf(pid: number): number | undefined {
  try {
    const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return uid === undefined ? undefined : Number(uid);
  } catch {
    return undefined;
  }
}

/** How often, at most, the holders of busy CPUs are looked up once the bound has passed (a look may read every process's fdinfo). */
const holderCheckMs = 5000;

/**
 * Lease one of `cpus` (tried in the order given: the idlest first), waiting
 * while every one is leased; `onWait` is told once, and then every
 * `reportEvery` seconds, how long the eval has waited. Where `folder` or a lock
 * file in it cannot be trusted (LeaseUntrusted), the lease is taken in the
 * user's own folder (privateLeaseFolder) instead, and `onWarning` says so. Once
 * the eval has waited `foreignWait` seconds (default: for ever), it stops
 * waiting when every CPU is held by processes of other uids only: a
 * CpusHeldByOthers names them.
 */
export async function leaseOneOf(
  folder: string,
  cpus: readonly number[],
  options: {
    onWait?: (waitedSeconds: number) => void;
    onWarning?: (text: string) => void;
    pollMs?: number;
    reportEvery?: number;
    foreignWait?: number;
    signal?: AbortSignal;
  } = {},
): Promise<CpuLease> {
  const {onWait, onWarning, pollMs = 250, reportEvery = 30, foreignWait = Infinity} = options;
  const started = Date.now();
  let current = folder;
  let reported = -Infinity;
  let checked = -Infinity;
  for (;;) {
    const busy: string[] = [];
    try {
      for (const cpu of cpus) {
        const result = await attempt(current, cpu);
        if (!('busy' in result)) return result;
        busy.push(result.busy);
      }
    } catch (error) {
      if (!(error instanceof LeaseUntrusted) || current !== folder) throw error;
      current = privateLeaseFolder(folder);
      onWarning?.(`CPU leases: ${error.message}; leasing in ${current} instead, which evals of other users do not see`);
      makeFolder(current, 0o700);
      continue;
    }
    options.signal?.throwIfAborted();
    const waited = (Date.now() - started) / 1000;
    if (waited - reported >= reportEvery || reported === -Infinity) {
      reported = waited;
      onWait?.(waited);
    }
    if (waited >= foreignWait && busy.length && Date.now() - checked >= holderCheckMs) {
      checked = Date.now();
      const holders = lockHolders(busy);
      const uids = busy.map((key) => holders.get(key));
      // A file no longer locked is free at the next try; one a process of this uid holds is worth the wait.
      if (uids.every((each) => each && each.size && !each.has(myUid()))) {
        const all = [...new Set(uids.flatMap((each) => [...each!]))].sort((a, b) => (a ?? Infinity) - (b ?? Infinity));
        throw new CpusHeldByOthers(all, waited);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
