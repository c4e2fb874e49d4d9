/**
 * The sandbox boundary: how a solution or reference process is started.
 *
 * With bubblewrap (`bwrap`), every run gets fresh user, PID, network, IPC, UTS
 * and cgroup namespaces and a root that holds only the system (read-only), the
 * Python installation (read-only), arbor's runner and the run's own solution
 * files (read-only), a private /tmp, /dev/shm and HOME (tmpfs, gone when the
 * run ends), and an environment built from a short allow-list. Nothing of the
 * benchmark, of arbor or of the user's files is mounted, so no solution can
 * read cases ahead of time, read expected answers, signal the harness, write
 * its stdout, or leave anything for a later run. `--die-with-parent` and the
 * PID namespace end every process of the run when the run (or the eval) ends.
 *
 * Without bubblewrap (kind "none"), the same runner is started directly in
 * its own process group with the same environment: the protocol still keeps
 * the clock and the case data outside the solution's process, but the
 * machine's files are the user's.
 */
import {spawnSync} from 'node:child_process';
import {accessSync, constants, lstatSync, readlinkSync, realpathSync, statSync} from 'node:fs';
import path from 'node:path';
import {HarnessError} from './errors.js';
import {counterEnvironment, counterFolderInside, valgrindArguments} from './instructions.js';

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

/** Where things appear inside the sandbox. */
const inside = {runner: '/arbor/runner.py', solution: '/solution', home: '/home/solver'};

/** System folders bound read-only (symlinks, as on merged-/usr systems, are recreated as symlinks). */
const systemPaths = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];

/** The folder every run sees read-only (a system folder or the Python installation's) that holds `file`, if any. */
export function mountedRootOf(file: string, python: PythonInstall): string | undefined {
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    real = path.resolve(file);
  }
  const roots = [...systemPaths, ...python.roots].map((root) => {
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
export const allocatorTunables = `glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=${2n ** 64n - 1n}`;

/**
 * The environment of every run: an allow-list, never the caller's environment
 * (which may hold ARBOR_TEST_SALT and other secrets).
 */
export function runEnvironment(python: PythonInstall, home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: [path.dirname(python.executable), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    HOME: home,
    TMPDIR: '/tmp',
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
  const cached = pythonCache.get(python);
  if (cached) return cached;
  const script = 'import json, sys; print(json.dumps([sys.executable, sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, sys.path]))';
  const probe = spawnSync(python, ['-I', '-c', script], {encoding: 'utf8', timeout: 60_000});
  if (probe.status !== 0) {
    const last = `${probe.stderr ?? ''}`.trim().split('\n').pop() || (probe.error?.message ?? `exit code ${probe.status}`);
    if (/No module named .?numpy|numpy is not installed/.test(last)) {
      throw new HarnessError(`numpy is not installed for ${python}: run '${python} -m pip install numpy' (or set ARBOR_PYTHON)`, 'no-numpy');
    }
    throw new HarnessError(`${python} does not start: ${last.slice(0, 300)}; set ARBOR_PYTHON to a working python3 with numpy`, 'no-python');
  }
  const [executable, ...rest] = JSON.parse(probe.stdout) as [string, string, string, string, string, string[]];
  const folders = [path.dirname(realpathSync(executable)), ...rest.slice(0, 4), ...(rest[4] as unknown as string[])]
    .filter((folder): folder is string => typeof folder === 'string' && folder.length > 0)
    .map((folder) => existing(folder))
    .filter((folder): folder is string => folder !== undefined);
  const install = {executable: realpathSync(executable), roots: outermost(folders.filter((folder) => !isSystemPath(folder)))};
  pythonCache.set(python, install);
  return install;
}

/** The nearest existing folder at or above `file` (a zip on sys.path counts as its folder). */
function existing(file: string): string | undefined {
  try {
    const real = realpathSync(file);
    return statSync(real).isDirectory() ? real : path.dirname(real);
  } catch {
    return undefined;
  }
}

function isSystemPath(folder: string): boolean {
  return systemPaths.some((root) => folder === root || folder.startsWith(`${root}/`));
}

/** Drop folders inside another one of the list. */
function outermost(folders: string[]): string[] {
  const sorted = [...new Set(folders)].sort();
  return sorted.filter((folder, index) => !sorted.slice(0, index).some((other) => folder.startsWith(`${other}/`)));
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
  const candidates = override ? [override] : (env.PATH ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, name));
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

/** The bwrap arguments that build a run's sandbox, up to the command. */
export function bwrapArguments(python: PythonInstall, mounts: RunMounts, counter?: Counter): string[] {
  const args = ['--unshare-all', '--die-with-parent', '--new-session'];
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
  for (const root of python.roots) args.push('--ro-bind', root, root);
  args.push(
    '--proc', '/proc',
    '--dev', '/dev',
    '--tmpfs', '/dev/shm',
    '--tmpfs', '/tmp',
    '--tmpfs', inside.home,
    '--ro-bind', mounts.runner, inside.runner,
    '--ro-bind', mounts.solutionDir, inside.solution,
  );
  if (counter) args.push('--bind', counter.folder, counterFolderInside);
  args.push('--chdir', inside.home, '--clearenv');
  const env = {...runEnvironment(python, inside.home), ...(counter ? counterEnvironment : {})};
  for (const [name, value] of Object.entries(env)) args.push('--setenv', name, value!);
  return args;
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

/** The command that starts one run of the runner, sandboxed or not. */
export function launchRun(kind: SandboxKind, bwrap: string | undefined, python: PythonInstall, mounts: RunMounts, counter?: Counter): Launch {
  if (kind === 'bwrap') {
    const command = runnerCommand(python, inside.runner, `${inside.solution}/${mounts.entry}`, counter, counterFolderInside);
    return {command: bwrap!, args: [...bwrapArguments(python, mounts, counter), '--', ...command], env: {}, cwd: mounts.scratch};
  }
  const [command, ...args] = runnerCommand(python, mounts.runner, path.join(mounts.solutionDir, mounts.entry), counter, counter?.folder ?? '');
  return {
    command: command!,
    args,
    env: {...runEnvironment(python, mounts.scratch), ...(counter ? counterEnvironment : {})},
    cwd: mounts.scratch,
  };
}

/**
 * Whether bwrap can build a sandbox here and run the interpreter in it (user
 * namespaces may be off, or bwrap missing): undefined when it can, else why not.
 */
export function sandboxProblem(bwrap: string | undefined, python: PythonInstall, mounts: RunMounts): string | undefined {
  if (!bwrap) return 'bubblewrap (bwrap) is not installed';
  const probe = spawnSync(bwrap, [...bwrapArguments(python, mounts), '--', python.executable, '-I', '-c', ''], {encoding: 'utf8', timeout: 60_000});
  if (probe.status === 0) return undefined;
  const last = `${probe.stderr ?? ''}`.trim().split('\n').pop() || (probe.error?.message ?? `exit code ${probe.status}`);
  return `bwrap cannot start a sandbox here (${last.slice(0, 200)})`;
}

/**
 * Whether callgrind can count a run here, the way runs are started (in the
 * sandbox when there is one, its output folder bound writable): undefined when
 * it can, else why not. Starts the interpreter once under callgrind (~1 s).
 */
export function counterProblem(kind: SandboxKind, bwrap: string | undefined, python: PythonInstall, mounts: RunMounts, counter: Counter | undefined): string | undefined {
  if (!counter) return 'valgrind is not installed (e.g. apt-get install valgrind, or set ARBOR_VALGRIND)';
  const launch = launchRun(kind, bwrap, python, mounts, counter);
  // The interpreter alone, not the runner: `-c ''` in place of the runner's arguments, logging to stderr.
  const at = launch.args.indexOf(python.executable);
  const args = [...launch.args.slice(0, at + 1), '-c', ''].map((arg) => (arg.startsWith('--log-fd=') ? '--log-fd=2' : arg));
  const probe = spawnSync(launch.command, args, {cwd: launch.cwd, env: launch.env, encoding: 'utf8', timeout: 120_000});
  if (probe.status === 0) return undefined;
  const last = `${probe.stderr ?? ''}`.trim().split('\n').filter((line) => !/^--\d+--/.test(line)).pop() || (probe.error?.message ?? `exit code ${probe.status}`);
  return `valgrind cannot count a run here (${last.slice(0, 200)})`;
}
