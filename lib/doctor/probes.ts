/**
 * The probes `arbor doctor` runs, each through the function the eval itself
 * uses (lib/sandbox, lib/eval's python lookup), so doctor and an eval never
 * disagree about the machine.
 */
import {spawnSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  allowedCpus,
  cgroupBounds,
  cgroupsWork,
  confinementFor,
  createGroup,
  findBwrap,
  findPython,
  findValgrind,
  type PythonInstall,
  resolvePython,
  runsAsRoot,
  sandboxProblem,
  seccompProgram,
  tasksetWorks,
} from '../sandbox/index.js';
import {pyenvTarget, onPath} from '../pyenv.js';
import {type Check, programCheck, userNamespacesCheck} from './check.js';

/** A run's limits for the probes: those of a small plan (the sandbox's start does not depend on them). */
const probeLimits = {memoryBytes: 1 << 30, processes: 64, tmpfsBytes: 64 << 20};

/** The message of a thrown error, first line. */
function why(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n', 1)[0] ?? '';
}

/** Python and numpy: the interpreter ARBOR_PYTHON (else python3 on the PATH) picks, and its numpy. */
export function pythonChecks(env: NodeJS.ProcessEnv): {checks: Check[]; python?: PythonInstall} {
  const feature = 'Python (runs every solution, reference and bundle)';
  const pick = env.ARBOR_PYTHON ? `ARBOR_PYTHON=${env.ARBOR_PYTHON}` : 'python3 on the PATH; ARBOR_PYTHON picks another';
  let install: PythonInstall;
  try {
    const found = findPython(env);
    const shim = pyenvTarget(found, env);
    install = resolvePython(found);
    const via = shim ? `; a pyenv shim for ${shim}` : '';
    const python: Check = {id: 'python', feature, ok: true, detail: `${install.executable} (${pick}${via})`, main: true};
    return {checks: [python, numpyCheck(install.executable)], python: install};
  } catch (error) {
    const python: Check = {
      id: 'python',
      feature,
      ok: false,
      detail: `${pick}: ${why(error)}`,
      disables: 'every eval, verify and bundle',
      fix: 'apt-get install python3 python3-numpy, or set ARBOR_PYTHON to a python3 with numpy',
      apt: 'python3-numpy',
      main: true,
    };
    return {checks: [python]};
  }
}

function numpyCheck(python: string): Check {
  const probe = spawnSync(python, ['-I', '-c', 'import numpy; print(numpy.__version__)'], {encoding: 'utf8', timeout: 60_000});
  const base = {id: 'numpy', feature: 'numpy (every bundle and runner imports it)', main: true};
  if (probe.status === 0) return {...base, ok: true, detail: `numpy ${probe.stdout.trim()} for ${python}`};
  return {
    ...base,
    ok: false,
    detail: `${python} cannot import numpy`,
    disables: 'every eval, verify and bundle',
    fix: `${python} -m pip install numpy (Debian's python3: apt-get install python3-numpy)`,
    main: true,
  };
}

function sysctl(name: string): string | undefined {
  try {
    return readFileSync(path.join('/proc/sys', name), 'utf8');
  } catch {
    return undefined;
  }
}

/** bubblewrap, user namespaces, the seccomp filter and a sandbox actually started (the eval's own probe). */
export function sandboxChecks(env: NodeJS.ProcessEnv, python: PythonInstall | undefined): Check[] {
  const bwrap = findBwrap(env);
  const noSandbox = 'dev evals run WITHOUT a sandbox (a score any solution can forge) and test evals refuse';
  const checks: Check[] = [
    programCheck(
      {id: 'bubblewrap', feature: 'bubblewrap (the sandbox every solution runs in)', program: 'bwrap', disables: noSandbox, apt: 'bubblewrap', main: true},
      bwrap,
    ),
    userNamespacesCheck(
      {
        maxUserNamespaces: sysctl('user/max_user_namespaces'),
        unprivilegedClone: sysctl('kernel/unprivileged_userns_clone'),
        apparmorRestrict: sysctl('kernel/apparmor_restrict_unprivileged_userns'),
      },
      runsAsRoot(),
    ),
  ];
  const seccomp = {id: 'seccomp', feature: "libseccomp (the sandbox's syscall filter)", main: true};
  if (!python) return [...checks, {...seccomp, ok: false, detail: 'not checked: needs a working Python', fix: 'fix Python first', main: true}];
  try {
    seccompProgram(python.executable);
    checks.push({...seccomp, ok: true, detail: `the filter builds with ${python.executable}`});
  } catch (error) {
    checks.push({...seccomp, ok: false, detail: why(error), disables: noSandbox, fix: 'apt-get install libseccomp2', apt: 'libseccomp2'});
    return checks;
  }
  checks.push(sandboxStart(bwrap, python, noSandbox));
  return checks;
}

/** A sandbox started the way an eval starts one, around an interpreter that does nothing. */
function sandboxStart(bwrap: string | undefined, python: PythonInstall, noSandbox: string): Check {
  const base = {id: 'sandbox', feature: 'a sandboxed run (the main job: a sandboxed eval)', main: true};
  if (!bwrap) return {...base, ok: false, detail: 'not started: needs bubblewrap', disables: noSandbox, fix: 'apt-get install bubblewrap', apt: 'bubblewrap'};
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'arbor-doctor-'));
  try {
    mkdirSync(path.join(tmp, 'solution'));
    writeFileSync(path.join(tmp, 'runner.py'), '');
    writeFileSync(path.join(tmp, 'solution', 'solution.py'), '');
    const mounts = {runner: path.join(tmp, 'runner.py'), solutionDir: path.join(tmp, 'solution'), entry: 'solution.py', scratch: tmp};
    const problem = sandboxProblem(bwrap, python, mounts, confinementFor(python, probeLimits, false));
    if (!problem)
      return {...base, ok: true, detail: `bwrap started ${python.executable} under the seccomp filter${runsAsRoot() ? ', as a uid of its own' : ''}`};
    return {...base, ok: false, detail: problem, disables: noSandbox, fix: 'see the lines above; as root, apt-get install util-linux (setpriv, prlimit)'};
  } catch (error) {
    return {...base, ok: false, detail: why(error), disables: noSandbox, fix: 'apt-get install util-linux (setpriv, prlimit)', apt: 'util-linux'};
  } finally {
    rmSync(tmp, {recursive: true, force: true});
  }
}

/** cgroups (the cpu clock, memory and process limits, freezing a run) and CPU pinning. */
export function clockChecks(env: NodeJS.ProcessEnv): Check[] {
  const cgroups = cgroupsWork();
  const bounds = cgroups ? cgroupBounds({memoryBytes: probeLimits.memoryBytes, processes: probeLimits.processes}) : {memory: false, processes: false};
  const group = cgroups ? createGroup() : undefined;
  const freeze = group?.canFreeze ?? false;
  group?.destroy();
  const delegate = 'run arbor as root, or in a delegated cgroup (systemd-run --user --scope -p Delegate=yes …)';
  const cpu = String(allowedCpus()[0] ?? 0);
  const pinned = process.platform === 'linux' && tasksetWorks(cpu);
  return [
    cgroups
      ? {
          id: 'cgroups',
          feature: 'cgroups (the cpu clock: CPU time of a whole run)',
          ok: true,
          detail: `a run gets a cgroup of its own (memory limit: ${bounds.memory ? 'yes' : 'no'}, process limit: ${bounds.processes ? 'yes' : 'no'})`,
          main: false,
        }
      : {
          id: 'cgroups',
          feature: 'cgroups (the cpu clock: CPU time of a whole run)',
          ok: false,
          detail: 'no cgroup can be made for a run',
          disables: 'plans with clock = "cpu" fall back to wall time (load on the machine moves scores); limits are rlimits only',
          fix: delegate,
          main: false,
        },
    freeze
      ? {id: 'freeze', feature: 'freezing a run (pauses a run between timed calls)', ok: true, detail: 'the cgroup freezer works', main: false}
      : {
          id: 'freeze',
          feature: 'freezing a run (pauses a run between timed calls)',
          ok: false,
          detail: cgroups ? 'no freezer controller' : 'needs cgroups',
          disables: 'runs are not frozen between timed calls',
          fix: delegate,
          main: false,
        },
    pinned
      ? {id: 'pinning', feature: 'pinning runs to a CPU (taskset)', ok: true, detail: `taskset -c ${cpu} works`, main: false}
      : {
          id: 'pinning',
          feature: 'pinning runs to a CPU (taskset)',
          ok: false,
          detail: 'taskset cannot pin here',
          disables: 'timed runs move between CPUs (noisier speedups)',
          fix: 'apt-get install util-linux',
          apt: 'util-linux',
          main: false,
        },
    programCheck(
      {
        id: 'valgrind',
        feature: 'valgrind (the instructions clock)',
        program: 'valgrind',
        disables: 'plans with clock = "instructions" fall back to the cpu clock; their tests skip',
        apt: 'valgrind',
        main: false,
      },
      findValgrind(env),
    ),
  ];
}

/** The programs only some features need: Redis (the queue) and Chromium (the report's browser tests). */
export function serviceChecks(env: NodeJS.ProcessEnv): Check[] {
  const chromium = ['chromium', 'chromium-browser', 'google-chrome'].map((name) => onPath(name, env)).find(Boolean);
  return [
    programCheck(
      {
        id: 'redis',
        feature: 'Redis (the queue: benchmark run --queue, benchmark worker)',
        program: 'redis-server',
        disables: 'no local queue server (the queue can use a Redis elsewhere); the queue tests fail',
        apt: 'redis-server',
        main: false,
      },
      onPath('redis-server', env),
    ),
    programCheck(
      {
        id: 'chromium',
        feature: "Chromium (the report's browser tests)",
        program: 'chromium',
        disables: "the report's browser tests fail (writing a report needs none)",
        apt: 'chromium',
        main: false,
      },
      chromium,
    ),
  ];
}
