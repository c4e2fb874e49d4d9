/**
 * The sandbox boundary: how a solution or reference process is started.
 *
 * With bubblewrap (`bwrap`), every run gets fresh PID, network, IPC, UTS and
 * cgroup namespaces and a root that holds only the system (read-only: /usr
 * and the few files of /etc the loader and Python read), the Python
 * installation (read-only), arbor's runner and the run's own solution files
 * (read-only), a private /tmp, /dev/shm and HOME (tmpfs of a fixed size, gone
 * when the run ends), /proc/sys read-only, and an environment built from a
 * short allow-list. Nothing of the benchmark, of arbor or of the user's files
 * is mounted, so no solution can read cases ahead of time, read expected
 * answers, signal the harness, write its stdout, or leave anything for a later
 * run. `--die-with-parent` and the PID namespace end every process of the run
 * when the run (or the eval) ends.
 *
 * No run keeps a privilege (see Confinement): started by root, bwrap builds
 * the sandbox without a user namespace and the run drops to a uid and gid of
 * its own (setpriv: no groups, no capabilities, no way back); started by
 * anyone else, the run is that user inside a user namespace it cannot nest.
 * Either way a seccomp filter (seccomp.ts) is loaded before the run's first
 * command, and rlimits forbid core files (and, with a uid of its own, bound
 * its processes).
 *
 * Without bubblewrap (kind "none"), the same runner is started directly in
 * its own process group with the same environment: the protocol still keeps
 * the clock and the case data outside the solution's process, but the
 * machine's files are the user's.
 */
import {spawnSync} from 'node:child_process';
import {randomInt} from 'node:crypto';
import {accessSync, chmodSync, chownSync, constants, existsSync, lstatSync, readdirSync, readlinkSync, realpathSync, statSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {HarnessError} from '../errors.js';
import {counterEnvironment, counterFolderInside, valgrindArguments} from './instructions.js';
import {pyenvTarget} from '../pyenv.js';
import {existing, outermost, pythonPlaces} from './python.js';
import {seccompProgram} from './seccomp.js';

export type SandboxKind = 'bwrap' | 'none';

/** The interpreter that runs solutions, and the folders it needs to see. */
export interface PythonInstall {
  /** The real interpreter binary (a pyenv shim or wrapper script is resolved through Python itself). */
  executable: string;
  /** Folders outside the system folders that the interpreter reads (its prefix, site-packages). */
  roots: string[];
}

/** A process to start: command, arguments, environment, working folder. */
export interface Launch {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Bytes the process reads from this file descriptor before anything else (the seccomp program, for bwrap). */
  input?: {fd: number; bytes: Buffer};
}

/**
 * What a sandboxed run may use and who it is, beyond its namespaces. Every
 * limit is the plan's (`memory_mb`, `processes`, `tmpfs_mb`); memory and
 * processes are bounded through the run's cgroup where there is one (cgroup.ts),
 * and through rlimits here where a uid of its own makes them the run's alone.
 */
export interface Confinement {
  /** The seccomp BPF program (seccomp.ts), loaded by bwrap just before the run's first command (sandboxed runs). */
  seccomp?: Buffer;
  /** Size of each of the run's tmpfs (/tmp, /dev/shm, HOME), bytes (where bwrap has `--size`). */
  tmpfsBytes: number;
  /** Processes and threads a run may have at once: RLIMIT_NPROC, set only when the run has a uid of its own. */
  processes: number;
  /** RLIMIT_AS bytes, for a run whose memory no cgroup bounds (never under valgrind, which maps far more than it uses). */
  addressSpace?: number;
  /** Whether runs drop to a uid of their own (arbor runs as root), else keep the caller's uid in a user namespace. */
  dropToOwnUid: boolean;
}

/** The file descriptor bwrap reads the seccomp program from. */
export const seccompFd = 5;

/** Per-run uids and gids are drawn from here: far above any account, so a run's uid is nobody's. */
const ownUidRange = {from: 0x60000000, size: 0x10000000};

/**
 * Make snapshot files readable by any uid (folders 0755, files a+r, execute
 * bits kept): a run started by root reads them as a uid of its own. They lie
 * in the eval's private work folder (0700), so no other user reaches them.
 */
export function openToRuns(roots: string[]): void {
  const visit = (file: string) => {
    const info = lstatSync(file);
    if (info.isSymbolicLink()) return;
    if (info.isDirectory()) {
      chmodSync(file, 0o755);
      for (const name of readdirSync(file)) visit(path.join(file, name));
    } else {
      chmodSync(file, (info.mode & 0o7777) | 0o444);
    }
  };
  for (const root of roots) visit(root);
}

/** A fresh uid (also the gid) for one run. */
export function runUid(): number {
  return ownUidRange.from + randomInt(ownUidRange.size);
}

/** Whether this process runs as root, so runs must be given a uid of their own. */
export function runsAsRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** What one run sees. */
export interface RunMounts {
  /** arbor's runner.py (a private copy). */
  runner: string;
  /** The folder of solution files (a private copy); the runner imports `<solutionDir>/<entry>`. */
  solutionDir: string;
  entry: string;
  /** A private empty folder: the run's cwd and HOME when there is no sandbox. */
  scratch: string;
}

/**
 * Instructions clock: the run starts under valgrind's callgrind, which writes
 * its part files into `folder` (a private folder of the harness, writable by
 * this run only, bound at /callgrind in the sandbox) named `<runId>.<pid>[.<n>]`.
 */
export interface Counter {
  valgrind: string;
  folder: string;
  runId: string;
}

/** The object encoding's file beside a runner (lib/eval/objects.py, copied next to each eval's runner.py). */
export const objectsBeside = (runner: string): string => path.join(path.dirname(runner), 'objects.py');

/** Where things appear inside the sandbox. */
const inside = {runner: '/arbor/runner.py', solution: '/solution', home: '/home/solver'};

/** System folders bound read-only (symlinks, as on merged-/usr systems, are recreated as symlinks). */
const systemPaths = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * What of /etc a run sees (read-only, each where it exists): the dynamic
 * loader's cache and configuration, the alternatives the system's libraries
 * resolve through (BLAS on Debian), the time zone, and Python's own. Never the
 * rest: /etc/shadow, keys, the host's configuration.
 */
const etcPaths = [
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/alternatives',
  '/etc/localtime',
  '/etc/python3',
  '/etc/python3.11',
  '/etc/python3.12',
  '/etc/python3.13',
];

/** The folder every run sees read-only (a system folder or the Python installation's) that holds `file`, if any. */
export function mountedRootOf(file: string, python: PythonInstall): string | undefined {
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    real = path.resolve(file);
  }
  const roots = [...systemPaths, ...etcPaths.filter((file) => existsSync(file)), ...python.roots].map((root) => {
    try {
      return realpathSync(root);
    } catch {
      return root;
    }
  });
  return roots.find((root) => real === root || real.startsWith(root.endsWith('/') ? root : `${root}/`));
}

/** Threads for BLAS and OpenMP: one, so a run measures one core's work. */
const threadVariables = ['OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS', 'NUMEXPR_NUM_THREADS', 'VECLIB_MAXIMUM_THREADS', 'BLIS_NUM_THREADS'];

/**
 * glibc's allocator for every run: never mmap a malloc'd block and never give
 * freed memory back to the kernel. By default each large array (numpy's
 * temporaries) is a fresh mapping whose pages the kernel faults in and zeroes
 * on first touch, every case again: 15-30% of a memory-heavy case's CPU time,
 * and its noisiest part (kernel time bound by memory bandwidth). Kept, the
 * memory the untimed warm-up case grew is reused by the timed ones.
 */
const allocatorTunables = `glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=${2n ** 64n - 1n}`;

/**
 * The environment of every run: an allow-list, never the caller's environment
 * (which may hold ARBOR_TEST_SALT and other secrets).
 */
function runEnvironment(python: PythonInstall, home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: [path.dirname(python.executable), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    HOME: home,
    TMPDIR: '/tmp',
    USER: 'solver',
    LOGNAME: 'solver',
    LANG: 'C.UTF-8',
    GLIBC_TUNABLES: allocatorTunables,
  };
  for (const name of threadVariables) env[name] = '1';
  return env;
}

const pythonCache = new Map<string, PythonInstall>();

/**
 * Ask the interpreter for its real binary and the folders it reads, isolated
 * (`-I`: no user site, no PYTHON* variables). Cached per interpreter path.
 */
export function resolvePython(python: string): PythonInstall {
  // A pyenv shim is read, not run, where its answer is certain (its bash chain cost about 1.2 s an eval); it shares its target's answer.
  const target = pyenvTarget(python) ?? python;
  const cached = pythonCache.get(target);
  if (cached) return cached;
  const script = 'import json, sys; print(json.dumps([sys.executable, sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, sys.path]))';
  const probe = spawnSync(target, ['-I', '-c', script], {encoding: 'utf8', timeout: 60_000});
  if (probe.status !== 0) {
    const last = `${probe.stderr ?? ''}`.trim().split('\n').pop() || (probe.error?.message ?? `exit code ${probe.status}`);
    if (/No module named .?numpy|numpy is not installed/.test(last)) {
      throw new HarnessError(
        `numpy is not installed for ${python}: run '${python} -m pip install numpy' (or set ARBOR_PYTHON; arbor doctor says what this machine lacks)`,
        'no-numpy',
      );
    }
    throw new HarnessError(`${python} does not start: ${last.slice(0, 300)}; set ARBOR_PYTHON to a working python3 with numpy`, 'no-python');
  }
  const [executable, ...places] = pythonPlaces(probe.stdout, python);
  const folders = [path.dirname(realpathSync(executable)), ...places]
    .filter((folder) => folder.length > 0)
    .map((folder) => existing(folder))
    .filter((folder): folder is string => folder !== undefined);
  const install = {executable: realpathSync(executable), roots: outermost(folders.filter((folder) => !isSystemPath(folder)))};
  pythonCache.set(target, install);
  return install;
}

function isSystemPath(folder: string): boolean {
  return systemPaths.some((root) => folder === root || folder.startsWith(`${root}/`));
}

/** The bwrap binary: ARBOR_BWRAP, else `bwrap` on the PATH; undefined when there is none. */
export function findBwrap(env: NodeJS.ProcessEnv): string | undefined {
  return findExecutable(env.ARBOR_BWRAP, 'bwrap', env);
}

/** The valgrind binary: ARBOR_VALGRIND, else `valgrind` on the PATH; undefined when there is none. */
export function findValgrind(env: NodeJS.ProcessEnv): string | undefined {
  return findExecutable(env.ARBOR_VALGRIND, 'valgrind', env);
}

/** The file an override names, else `name` on the PATH, if it is an executable regular file. */
function findExecutable(override: string | undefined, name: string, env: NodeJS.ProcessEnv): string | undefined {
  const candidates = override
    ? [override]
    : (env.PATH ?? '')
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, name));
  for (const file of candidates) {
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return path.resolve(file);
    } catch {
      // Next.
    }
  }
  return undefined;
}

/** What this bwrap can do beyond 0.4 (`--size` came in 0.7, `--disable-userns` in 0.8): read once from its --help. */
interface BwrapFeatures {
  size: boolean;
  disableUserns: boolean;
}

const featureCache = new Map<string, BwrapFeatures>();

function bwrapFeatures(bwrap: string): BwrapFeatures {
  let features = featureCache.get(bwrap);
  if (!features) {
    const help = spawnSync(bwrap, ['--help'], {encoding: 'utf8', timeout: 10_000}).stdout ?? '';
    features = {size: /--size\b/.test(help), disableUserns: /--disable-userns\b/.test(help)};
    featureCache.set(bwrap, features);
  }
  return features;
}

/** Whether the run's tmpfs are bounded (this bwrap has --size): for the report. */
export function tmpfsBounded(bwrap: string | undefined): boolean {
  return bwrap !== undefined && bwrapFeatures(bwrap).size;
}

/** The folders above `folder` up to /, outermost first (each must be enterable by the run: bwrap copies a 0700 /root as 0700). */
function ancestors(folder: string): string[] {
  const found: string[] = [];
  for (let dir = path.dirname(folder); dir !== '/' && dir !== '.'; dir = path.dirname(dir)) found.unshift(dir);
  return found;
}

/**
 * Whether RLIMIT_NPROC counts a user namespace's processes apart from the
 * rest of the user's (Linux 5.14 and later): then a run in a user namespace of
 * its own gets its own process limit; before, the count is the user's in all.
 */
export function nprocPerNamespace(release = os.release()): boolean {
  const [major = 0, minor = 0] = release.split(/[.-]/).map(Number);
  return major > 5 || (major === 5 && minor >= 14);
}

/** The helpers a root-started run needs inside the sandbox: util-linux's setpriv and prlimit. */
function dropTools(): {setpriv: string; prlimit: string} {
  const find = (name: string) => ['/usr/bin', '/bin', '/usr/sbin', '/sbin'].map((dir) => path.join(dir, name)).find((file) => existsSync(file));
  const setpriv = find('setpriv');
  const prlimit = find('prlimit');
  if (!setpriv || !prlimit) {
    throw new HarnessError(
      `arbor runs as root, so every run drops to a uid of its own, which needs util-linux's ${!setpriv ? 'setpriv' : 'prlimit'} (e.g. apt-get install util-linux; arbor doctor says what this machine lacks)`,
      'no-sandbox',
    );
  }
  return {setpriv, prlimit};
}

/**
 * The confinement of every sandboxed run of an eval: the plan's limits, the
 * seccomp filter built with `python`, and whether runs need a uid of their own.
 */
export function confinementFor(
  python: PythonInstall,
  limits: {memoryBytes: number; processes: number; tmpfsBytes: number},
  memoryBounded: boolean,
  sandboxed = true,
): Confinement {
  return {
    seccomp: sandboxed ? seccompProgram(python.executable) : undefined,
    tmpfsBytes: limits.tmpfsBytes,
    processes: limits.processes,
    addressSpace: memoryBounded ? undefined : limits.memoryBytes,
    dropToOwnUid: runsAsRoot(),
  };
}

/** The bwrap arguments that build a run's sandbox, up to the command; `uid` when the run drops to a uid of its own. */
export function bwrapArguments(
  bwrap: string,
  python: PythonInstall,
  mounts: RunMounts,
  confinement: Confinement,
  counter: Counter | undefined,
  uid: number | undefined,
  fd = seccompFd,
): string[] {
  const features = bwrapFeatures(bwrap);
  // As root: no user namespace (in one, uid 0 would be the host's root with every capability), just the
  // capabilities setpriv needs to drop the rest. Otherwise: a user namespace that cannot make another.
  const args =
    uid !== undefined
      ? [
          '--unshare-pid',
          '--unshare-net',
          '--unshare-ipc',
          '--unshare-uts',
          '--unshare-cgroup',
          '--cap-add',
          'CAP_SETUID',
          '--cap-add',
          'CAP_SETGID',
          '--cap-add',
          'CAP_SETPCAP',
        ]
      : ['--unshare-all', '--unshare-user', ...(features.disableUserns ? ['--disable-userns'] : [])];
  args.push('--die-with-parent', '--new-session', '--seccomp', String(fd));
  for (const root of systemPaths) {
    let info;
    try {
      info = lstatSync(root);
    } catch {
      continue;
    }
    if (info.isSymbolicLink()) args.push('--symlink', readlinkSync(root), root);
    else if (info.isDirectory()) args.push('--ro-bind', root, root);
  }
  // /etc made readable first: bwrap would make it 0700 under a private umask, and a run dropped to a
  // uid of its own could not follow the links through /etc/alternatives (Debian's numpy finds its BLAS there).
  args.push('--perms', '0755', '--dir', '/etc');
  for (const file of etcPaths) if (existsSync(file)) args.push('--ro-bind', file, file);
  const made = new Set<string>();
  for (const root of python.roots) {
    for (const dir of ancestors(root)) {
      if (made.has(dir) || isSystemPath(dir)) continue;
      made.add(dir);
      args.push('--perms', '0755', '--dir', dir);
    }
    args.push('--ro-bind', root, root);
  }
  const sized = (mode: string) => [...(features.size ? ['--size', String(confinement.tmpfsBytes)] : []), '--perms', mode];
  args.push(
    '--proc',
    '/proc',
    '--ro-bind',
    '/proc/sys',
    '/proc/sys',
    '--dev',
    '/dev',
    ...sized('01777'),
    '--tmpfs',
    '/dev/shm',
    ...sized('01777'),
    '--tmpfs',
    '/tmp',
    ...sized(uid !== undefined ? '0777' : '0700'),
    '--tmpfs',
    inside.home,
    '--perms',
    '0755',
    '--dir',
    path.dirname(inside.runner),
    '--ro-bind',
    mounts.runner,
    inside.runner,
    // The object encoding of interface = "solve", beside the runner's copy (runner.py loads it from its own folder).
    ...(existsSync(objectsBeside(mounts.runner)) ? ['--ro-bind', objectsBeside(mounts.runner), objectsBeside(inside.runner)] : []),
    '--ro-bind',
    mounts.solutionDir,
    inside.solution,
  );
  if (counter) args.push('--bind', counter.folder, counterFolderInside);
  args.push('--chdir', inside.home, '--clearenv');
  const env = {...runEnvironment(python, inside.home), ...(counter ? counterEnvironment : {})};
  for (const [name, value] of Object.entries(env)) args.push('--setenv', name, value!);
  return args;
}

/**
 * The commands between bwrap and the runner: setpriv to the run's own uid and
 * gid (no groups, no capabilities, none in the bounding set) when it has one,
 * then prlimit: no core files, and with its own uid at most `processes`
 * processes; RLIMIT_AS where no cgroup bounds memory (not under valgrind).
 */
export function dropCommand(confinement: Confinement, uid: number | undefined, counted: boolean): string[] {
  const tools = dropTools();
  const limits = ['--core=0'];
  if (uid !== undefined || (confinement.seccomp && nprocPerNamespace())) limits.push(`--nproc=${confinement.processes}`);
  if (confinement.addressSpace !== undefined && !counted) limits.push(`--as=${confinement.addressSpace}`);
  const setpriv =
    uid === undefined
      ? []
      : [tools.setpriv, `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--'];
  return [...setpriv, tools.prlimit, ...limits, '--'];
}
/**
 * The interpreter's flags: `-I -B`, except under the instructions clock, where
 * `-I` would ignore PYTHONHASHSEED (the hash seed moves counts between
 * processes): there `-s -B` (no user site; the environment is the allow-list
 * anyway, so no other PYTHON* variable is set).
 */
function pythonFlags(counter: Counter | undefined): string[] {
  return counter ? ['-s', '-B'] : ['-I', '-B'];
}

/** The command line from the interpreter on, with valgrind in front of it under the instructions clock. */
function runnerCommand(python: PythonInstall, runner: string, solution: string, counter: Counter | undefined, folder: string): string[] {
  const command = [python.executable, ...pythonFlags(counter), runner, '--solution', solution];
  if (!counter) return command;
  return [counter.valgrind, ...valgrindArguments(folder, counter.runId), ...command, '--count-instructions'];
}

/**
 * The command that starts one run of the runner, sandboxed or not. A
 * sandboxed run started by root gets a fresh uid, which then owns the run's
 * counter folder (callgrind writes there as the run).
 */
export function launchRun(
  kind: SandboxKind,
  bwrap: string | undefined,
  python: PythonInstall,
  mounts: RunMounts,
  confinement?: Confinement,
  counter?: Counter,
): Launch {
  if (kind === 'bwrap') {
    if (!confinement?.seccomp) throw new Error('a sandboxed run needs its confinement and seccomp filter');
    const uid = confinement.dropToOwnUid ? runUid() : undefined;
    if (counter && uid !== undefined) chownSync(counter.folder, uid, uid);
    const command = [
      ...dropCommand(confinement, uid, counter !== undefined),
      ...runnerCommand(python, inside.runner, `${inside.solution}/${mounts.entry}`, counter, counterFolderInside),
    ];
    return {
      command: bwrap!,
      args: [...bwrapArguments(bwrap!, python, mounts, confinement, counter, uid), '--', ...command],
      env: {},
      cwd: mounts.scratch,
      input: {fd: seccompFd, bytes: confinement.seccomp},
    };
  }
  // Without a sandbox, a root-started run still drops to a uid of its own, whose scratch folder (cwd and HOME) it owns.
  const uid = confinement?.dropToOwnUid ? runUid() : undefined;
  if (uid !== undefined) {
    chownSync(mounts.scratch, uid, uid);
    if (counter) chownSync(counter.folder, uid, uid);
  }
  const drop = confinement && uid !== undefined ? dropCommand(confinement, uid, counter !== undefined) : [];
  const [command, ...args] = [...drop, ...runnerCommand(python, mounts.runner, path.join(mounts.solutionDir, mounts.entry), counter, counter?.folder ?? '')];
  return {
    command: command!,
    args,
    env: {...runEnvironment(python, mounts.scratch), ...(counter ? counterEnvironment : {})},
    cwd: mounts.scratch,
  };
}

/**
 * Without a sandbox, as root: whether the uid a run drops to can start the
 * interpreter and numpy (a pyenv under a 0700 /root cannot be read by it):
 * undefined when it can, else why not.
 */
export function droppedRunProblem(python: PythonInstall, confinement: Confinement): string | undefined {
  if (!confinement.dropToOwnUid) return undefined;
  const [command, ...args] = [...dropCommand(confinement, runUid(), false), python.executable, '-I', '-c', 'import numpy'];
  const probe = spawnSync(command!, args, {cwd: '/', encoding: 'utf8', timeout: 60_000});
  if (probe.status === 0) return undefined;
  const last = `${probe.stderr ?? ''}`.trim().split('\n').pop() || (probe.error?.message ?? `exit code ${probe.status}`);
  return `arbor runs as root, so a run without the sandbox drops to a uid of its own, which cannot start ${python.executable} (${last.slice(0, 160)}): set ARBOR_PYTHON to a python3 with numpy that every user can read (e.g. Debian's /usr/bin/python3 with python3-numpy), or install bubblewrap, whose sandbox shows the run its interpreter (arbor doctor says what this machine lacks)`;
}

/**
 * Whether bwrap can build a sandbox here and run the interpreter in it (user
 * namespaces may be off, or bwrap missing): undefined when it can, else why not.
 */
export function sandboxProblem(bwrap: string | undefined, python: PythonInstall, mounts: RunMounts, confinement: Confinement): string | undefined {
  if (!bwrap) return 'bubblewrap (bwrap) is not installed';
  // The whole chain a run goes through, as the run's uid, with the filter read from stdin. The interpreter
  // starts without site (-S): whether it starts is the question, and site's imports are most of a start's CPU.
  const uid = confinement.dropToOwnUid ? runUid() : undefined;
  const command = [...dropCommand(confinement, uid, false), python.executable, '-I', '-S', '-c', ''];
  const probe = spawnSync(bwrap, [...bwrapArguments(bwrap, python, mounts, confinement, undefined, uid, 0), '--', ...command], {
    encoding: 'utf8',
    timeout: 60_000,
    input: confinement.seccomp,
  });
  if (probe.status === 0) return undefined;
  const last = `${probe.stderr ?? ''}`.trim().split('\n').pop() || (probe.error?.message ?? `exit code ${probe.status}`);
  return `bwrap cannot start a sandbox here (${last.slice(0, 200)})`;
}

/**
 * Whether callgrind can count a run here, the way runs are started (in the
 * sandbox when there is one, its output folder bound writable): undefined when
 * it can, else why not. Starts the interpreter once under callgrind (~1 s).
 */
export function counterProblem(
  kind: SandboxKind,
  bwrap: string | undefined,
  python: PythonInstall,
  mounts: RunMounts,
  confinement: Confinement | undefined,
  counter: Counter | undefined,
): string | undefined {
  if (!counter) return 'valgrind is not installed (e.g. apt-get install valgrind, or set ARBOR_VALGRIND; arbor doctor says what this machine lacks)';
  const launch = launchRun(kind, bwrap, python, mounts, confinement, counter);
  // The interpreter alone, not the runner and not site (-S, seconds under callgrind): `-c ''` in place of the runner's arguments, logging to stderr; the filter on stdin.
  const at = launch.args.indexOf(python.executable);
  const args = [...launch.args.slice(0, at + 1), '-S', '-c', '']
    .map((arg) => (arg.startsWith('--log-fd=') ? '--log-fd=2' : arg))
    .map((arg, index, all) => (all[index - 1] === '--seccomp' ? '0' : arg));
  const probe = spawnSync(launch.command, args, {cwd: launch.cwd, env: launch.env, encoding: 'utf8', timeout: 120_000, input: launch.input?.bytes});
  if (probe.status === 0) return undefined;
  const last =
    `${probe.stderr ?? ''}`
      .trim()
      .split('\n')
      .filter((line) => !/^--\d+--/.test(line))
      .pop() ||
    (probe.error?.message ?? `exit code ${probe.status}`);
  return `valgrind cannot count a run here (${last.slice(0, 200)})`;
}
