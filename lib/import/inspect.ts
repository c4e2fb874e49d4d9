/**
 * One task's inspection (algotune/inspect_task.py), run the way the eval runs a solution: through
 * lib/sandbox's `launchRun`, in a bubblewrap sandbox of its own. A task's author is an attacker too:
 * its module's top-level code runs as soon as the module is imported, so nothing of it may run with
 * the importing user's access. The inspector takes the runner's place (`/arbor/runner.py`, the
 * object encoding beside it) and its options file the solution's (`/solution/options.json`, with a
 * copy of the task's module and arbor's base and probes): the task sees the system, the interpreter,
 * those copies read-only and a private tmpfs HOME, never the user's files, network or environment.
 */
import {spawn} from 'node:child_process';
import {copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {HarnessError} from '../benchmark/errors.js';
import {
  confinementFor,
  findBwrap,
  launchRun,
  openToRuns,
  resolvePython,
  runsAsRoot,
  sandboxProblem,
  droppedRunProblem,
  type Confinement,
  type Launch,
  type PythonInstall,
  type RunMounts,
  type SandboxKind,
} from '../sandbox/index.js';

/** A wrong answer (built from the task's own by structure) that is_solution accepted. */
export interface ProbeFinding {
  probe: string;
  case: number;
  answer: string;
  right: string;
  /** Accepted on every case tried where it differs from the right answer (a speed entry scores only then). */
  everyCase?: boolean;
}

/** What inspect_task.py answered. */
export interface Inspection {
  ok: boolean;
  reason?: string;
  detail?: string;
  module?: string;
  n?: number;
  search?: number[][];
  solve_ms?: number[];
  codec_ms?: number[];
  problem_bytes?: number;
  solution_bytes?: number;
  imports?: string[];
  submodules?: string[];
  python?: {executable: string; version: string; numpy: string | null};
  probes?: ProbeFinding[];
  /** Every probe that applied to a case tried (the validator's strength is what it rejected of them). */
  probes_tried?: string[];
  /** Draws outside the task's seed that the inspector routed through it, with how many calls (`os.urandom`). */
  routed?: Record<string, number>;
}

/** How the inspections of one import run: the interpreter, and the sandbox (or none, by --unsandboxed). */
export interface Inspector {
  python: PythonInstall;
  kind: SandboxKind;
  bwrap?: string;
  confinement?: Confinement;
}

/** The limits of an inspection's sandbox: a task's generator may need memory; what runs there is bounded by the address space. */
const limits = {memoryBytes: 16 * 2 ** 30, processes: 256, tmpfsBytes: 2 ** 30};
const timeoutMs = 180_000;

/**
 * The sandbox every inspection of this import runs in, checked once by starting the interpreter
 * through the whole chain. Without one the import refuses, as the eval's test split does, unless
 * `unsandboxed` (--unsandboxed) asked for none.
 */
export function prepareInspector(python: string, unsandboxed: boolean, env: NodeJS.ProcessEnv): Inspector {
  const install = resolvePython(python);
  if (unsandboxed) {
    if (!runsAsRoot()) return {python: install, kind: 'none'};
    // As root, an unsandboxed task still drops to a uid of its own, as an unsandboxed eval's run does.
    const confinement = confinementFor(install, limits, false, false);
    const problem = droppedRunProblem(install, confinement);
    if (problem) throw new HarnessError(problem, 'no-sandbox');
    return {python: install, kind: 'none', confinement};
  }
  const bwrap = findBwrap(env);
  let problem: string | undefined;
  let confinement: Confinement | undefined;
  const stage = mkdtempSync(path.join(tmpdir(), 'arbor-import-check-'));
  try {
    confinement = confinementFor(install, limits, false);
    problem = sandboxProblem(bwrap, install, stagedMounts(stage, 'options.json'), confinement);
  } catch (error) {
    if (!(error instanceof HarnessError)) throw error;
    problem = error.message;
  } finally {
    rmSync(stage, {recursive: true, force: true});
  }
  if (problem) {
    throw new HarnessError(
      `${problem}: a task's code runs only in the sandbox; install bubblewrap (e.g. apt-get install bubblewrap), or pass --unsandboxed to run each task's code with ${runsAsRoot() ? 'an unprivileged uid' : "your user's access"}`,
      'no-sandbox',
    );
  }
  return {python: install, kind: 'bwrap', bwrap, confinement};
}

/** The mounts of a staged folder (made empty where missing, as sandboxProblem's trial needs them to exist). */
function stagedMounts(stage: string, entry: string): RunMounts {
  const mounts = {runner: path.join(stage, 'arbor', 'runner.py'), solutionDir: path.join(stage, 'solution'), entry, scratch: path.join(stage, 'scratch')};
  for (const dir of [path.dirname(mounts.runner), mounts.solutionDir, mounts.scratch]) mkdirSync(dir, {recursive: true});
  writeFileSync(mounts.runner, '', {flag: 'a'});
  return mounts;
}

/** Inspect the task `task` of `file` in the sandbox: its module, arbor's base, the encoding and the probes are copied in. */
export async function inspectTask(
  inspector: Inspector,
  assets: {dir: string; objects: string; probes: string},
  file: string,
  task: string,
  options: {targetMs: number; seeds: number[]},
): Promise<Inspection> {
  const stage = mkdtempSync(path.join(tmpdir(), 'arbor-import-'));
  try {
    const mounts = stagedMounts(stage, 'options.json');
    copyFileSync(path.join(assets.dir, 'inspect_task.py'), mounts.runner);
    copyFileSync(assets.objects, path.join(path.dirname(mounts.runner), 'objects.py'));
    copyFileSync(path.join(assets.dir, 'base.py'), path.join(mounts.solutionDir, 'base.py'));
    copyFileSync(assets.probes, path.join(mounts.solutionDir, 'probe_solve.py'));
    const rel = `AlgoTuneTasks/${task}/${task}.py`;
    mkdirSync(path.join(mounts.solutionDir, path.dirname(rel)), {recursive: true});
    copyFileSync(file, path.join(mounts.solutionDir, rel));
    const request = {file: rel, task, target_ms: options.targetMs, search_seconds: 20, seeds: options.seeds};
    writeFileSync(path.join(mounts.solutionDir, 'options.json'), JSON.stringify(request));
    // A run started by root is a uid of its own, which must read the staged copies (the stage itself is 0700).
    if (inspector.confinement?.dropToOwnUid) openToRuns([path.dirname(mounts.runner), mounts.solutionDir, mounts.scratch]);
    const launch = launchRun(inspector.kind, inspector.bwrap, inspector.python, mounts, inspector.confinement);
    const result = await start(launch);
    if (result.timedOut) return {ok: false, reason: 'timeout', detail: `inspecting the task took more than ${timeoutMs / 1000} s`};
    const line = result.stdout.trim().split('\n').pop() ?? '';
    try {
      return JSON.parse(line) as Inspection;
    } catch {
      const tail = result.stderr.trim().split('\n').slice(-1)[0] ?? '';
      return {ok: false, reason: 'no-task', detail: `inspecting the task failed (exit ${result.code}): ${tail.slice(0, 300)}`};
    }
  } finally {
    rmSync(stage, {recursive: true, force: true});
  }
}

/** Start a launch (the seccomp program on its fd), collect its output, kill its process group past the timeout. */
function start(launch: Launch): Promise<{code: number | null; stdout: string; stderr: string; timedOut: boolean}> {
  return new Promise((resolve) => {
    const stdio: Array<'ignore' | 'pipe'> = ['ignore', 'pipe', 'pipe'];
    while (launch.input && stdio.length <= launch.input.fd) stdio.push('ignore');
    if (launch.input) stdio[launch.input.fd] = 'pipe';
    const child = spawn(launch.command, launch.args, {cwd: launch.cwd, env: launch.env, detached: true, stdio});
    if (launch.input) {
      const input = child.stdio[launch.input.fd] as NodeJS.WritableStream & {on(event: 'error', listener: () => void): void};
      input.on('error', () => {});
      input.end(launch.input.bytes);
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const keep = (into: Buffer[]) => {
      let size = 0;
      // The task's prints go to stderr: the first 16 MiB of each stream are enough for the one JSON line and an error.
      return (chunk: Buffer) => {
        if ((size += chunk.length) <= 16 << 20) into.push(chunk);
      };
    };
    child.stdout!.on('data', keep(out));
    child.stderr!.on('data', keep(err));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({code: null, stdout: '', stderr: String(error.message), timedOut: false});
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), timedOut});
    });
  });
}
