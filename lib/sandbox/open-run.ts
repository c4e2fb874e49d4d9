/**
 * A run opened from a spec: what to run (the runner, the solution's folder),
 * in which sandbox, under which limits, on which CPU and clock. The sandbox
 * makes the run's own folders, its cgroup and its launch, and starts it (the
 * interpreter and numpy load; no solution code runs before it is served). Once
 * the run is over, its instructions (that clock) are read back here and its
 * folders removed. Whether a run is kept across repetitions is the caller's:
 * `process.keep()` (needs `freezable`) or `process.serve()` once.
 */
import {randomBytes} from 'node:crypto';
import {mkdirSync} from 'node:fs';
import {lstat, readdir, readFile, rm} from 'node:fs/promises';
import path from 'node:path';
import {HarnessError} from '../errors.js';
import {createGroup, type GroupLimits} from './cgroup.js';
import {counterLogFd, instructionsSlowdown, maxPartBytes, readCounts, type PartFile} from './instructions.js';
import {startCpusFor} from './pin.js';
import {startRun} from './run.js';
import type {RunOutcome, StartedRun} from './run-types.js';
import {launchRun, type Confinement, type Counter, type PythonInstall, type SandboxKind} from './sandbox.js';

/** Everything a run is opened from. */
export interface RunSpec {
  sandbox: SandboxKind;
  bwrap?: string;
  python: PythonInstall;
  /** The private copy of runner.py the run starts. */
  runner: string;
  /** The folder the run sees as its solution, and the file the runner imports from it. */
  solution: {dir: string; entry: string};
  /** The folder the run's own folders are made in (its scratch, the instructions clock's counts). */
  folder: string;
  /** A number of the run's own within its eval: its folders are named after it. */
  id: number;
  /** The seccomp filter, the limits and whether the run drops to a uid of its own (sandboxed runs). */
  confinement?: Confinement;
  /** The run's cgroup bounds (memory, processes, tmpfs), in bytes and processes. */
  limits: GroupLimits;
  /** The CPU the eval is pinned to: the run starts on the CPUs beside it (pin.ts startCpusFor). */
  cpu?: string;
  /** The clock its cases are timed on: `cpu` needs the run's cgroup, `instructions` starts it under valgrind. */
  clock: 'cpu' | 'wall' | 'instructions';
  /** Instructions clock: the valgrind binary. */
  valgrind?: string;
  /** The plan's init_timeout, in seconds on a native run (valgrind's slowdown is added here). */
  initTimeout: number;
}

/** A run opened and starting: its process, its own folders, and what its cgroup allows. */
export interface OpenedRun {
  process: StartedRun;
  scratch: string;
  counter?: Counter;
  /** Whether its cgroup can be frozen (so it may be kept across repetitions). */
  freezable: boolean;
  /** Whether it has a cgroup of its own (CPU times, kill-all). */
  grouped: boolean;
}

/** How much slower a run goes than natively on this clock: valgrind's slowdown under the instructions clock. */
export function clockSlowdown(clock: RunSpec['clock']): number {
  return clock === 'instructions' ? instructionsSlowdown : 1;
}

/**
 * Open a run from its spec and start it: the interpreter and numpy load on the CPUs beside the
 * eval's. A run timed on the CPU clock without a cgroup is refused before it starts: its times
 * would be wall times.
 */
export function openRun(spec: RunSpec): OpenedRun {
  const scratch = path.join(spec.folder, `scratch-${spec.id}`);
  mkdirSync(scratch, {recursive: true});
  // Instructions clock: callgrind's output goes to a folder of the harness's, writable by this run only, read once the run is over.
  const counter: Counter | undefined =
    spec.clock === 'instructions'
      ? {valgrind: spec.valgrind!, folder: path.join(spec.folder, `callgrind-${spec.id}`), runId: `run${spec.id}-${randomBytes(4).toString('hex')}`}
      : undefined;
  if (counter) mkdirSync(counter.folder, {recursive: true});
  const group = createGroup(spec.limits);
  // Where the group bounds memory, no address-space rlimit is needed (it would also count what numpy only reserves).
  const confinement = spec.confinement && group?.bounds.memory ? {...spec.confinement, addressSpace: undefined} : spec.confinement;
  const mounts = {runner: spec.runner, solutionDir: spec.solution.dir, entry: spec.solution.entry, scratch};
  const launch = launchRun(spec.sandbox, spec.bwrap, spec.python, mounts, confinement, counter);
  // Times on the CPU clock come from the run's cgroup: never mix in a wall time for a run without one.
  if (!group && spec.clock === 'cpu')
    throw new HarnessError(`no cgroup could be made for a run, though the eval times on the CPU clock; run it again`, 'no-cgroup');
  const process = startRun({
    launch,
    group,
    startCpus: startCpusFor(spec.cpu),
    initTimeout: spec.initTimeout * clockSlowdown(spec.clock),
    counterLogFd: counter ? counterLogFd : undefined,
  });
  return {process, scratch, counter, freezable: group?.canFreeze === true, grouped: group !== undefined};
}

/** Remove a run's own folders once its processes are gone. */
export async function releaseRun(opened: OpenedRun): Promise<void> {
  await rm(opened.scratch, {recursive: true, force: true}).catch(() => {});
  if (opened.counter) await rm(opened.counter.folder, {recursive: true, force: true}).catch(() => {});
}

/** The last byte of an answer message: of its last non-empty result, else the header's newline. */
function lastByte(answer: Array<Buffer | null>): number {
  const last = answer.filter((bytes): bytes is Buffer => !!bytes && bytes.length > 0).pop();
  return last ? last[last.length - 1]! : 0x0a;
}

/**
 * Instructions clock, once the run is over: each answered case gets its count from callgrind's
 * output, or fails as tampered when the output shows the counter was reached (instructions.ts).
 * `opens`: the counts the runner opened before the first timed case.
 */
export async function countInstructions(outcome: RunOutcome, counter: Counter, opens: number): Promise<void> {
  const parts: Array<PartFile & {tooLarge?: boolean}> = [];
  for (const name of await readdir(counter.folder).catch(() => [] as string[])) {
    const file = path.join(counter.folder, name);
    // lstat: the run could leave a symlink (to a FIFO, a device, a huge file) where a part should be; only regular files are read.
    const info = await lstat(file).catch(() => undefined);
    if (!info?.isFile()) {
      parts.push({name, text: '', tooLarge: true});
      continue;
    }
    parts.push(info.size > maxPartBytes ? {name, text: '', tooLarge: true} : {name, text: await readFile(file, 'utf8')});
  }
  const delivered = outcome.cases.filter((c) => c.status !== 'not-run').map((c) => c.i);
  // The last byte of each answer: the runner sent it only after opening the next case's count, and its closing dump's label records it.
  const held = new Map(outcome.cases.filter((c) => c.status === 'ok' && c.answer).map((c) => [c.i, lastByte(c.answer!)]));
  const counts =
    outcome.counterLog === undefined
      ? new Map(delivered.map((i) => [i, {problem: "instructions clock: valgrind's log ran past 16 MiB (something wrote into it)"}]))
      : readCounts({log: outcome.counterLog, parts, runId: counter.runId, cases: delivered, opens, held});
  for (const c of outcome.cases) {
    if (c.status !== 'ok') continue;
    const count = counts.get(c.i);
    if (count && 'instructions' in count) {
      c.instructions = count.instructions;
    } else {
      c.instructions = null;
      c.status = 'tampered';
      c.note = count?.problem ?? `instructions clock: case ${c.i} was not counted`;
      delete c.answer;
    }
  }
}
