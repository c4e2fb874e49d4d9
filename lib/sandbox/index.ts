/**
 * The trust boundary's one door: nothing outside lib/sandbox imports another
 * file of it (docs/architecture.md, rule f), so what a solution's run can reach
 * is decided by what is named here and audited in this folder alone.
 *
 * Every module behind it loads only Node's own modules, the shared helpers and
 * the benchmark folder's errors, so importing this file costs a light caller a
 * few small modules, never a heavy dependency.
 */

// A run, opened from a spec: spawned, served over its channel, frozen between segments, timed and checked.
export {clockSlowdown, countInstructions, openRun, releaseRun, type OpenedRun} from './open-run.js';
export {runCases, startRun} from './run.js';
export {killActiveRuns} from './run-control.js';
export {settlingWarmup} from './run-serve.js';
export {startFailure} from './crash.js';
export type {
  CaseInput,
  CaseOutcome,
  RunnerBinding,
  RunnerSignature,
  RunOutcome,
  RunService,
  RunSession,
  UntimedCall,
  WarmupRule,
} from './run-types.js';

// Where a run starts: the interpreter, the sandbox's command, the trial that checks it starts.
export {findPython} from './python.js';
export {
  confinementFor,
  counterProblem,
  droppedRunProblem,
  findBwrap,
  findValgrind,
  launchRun,
  mountedRootOf,
  nprocPerNamespace,
  objectsBeside,
  openToRuns,
  resolvePython,
  runsAsRoot,
  sandboxProblem,
  tmpfsBounded,
  type Confinement,
  type Launch,
  type PythonInstall,
  type RunMounts,
  type SandboxKind,
} from './sandbox.js';
export {seccompProgram} from './seccomp.js';

// Where a bundle's Python code (generator, oracle, verifier) runs: in the sandbox too, whoever wrote it.
export {bundleHostLaunch} from './bundle-host.js';

// A run's limits: its cgroup, and who owns a folder or cgroup left behind.
export {cgroupBounds, cgroupsWork, createGroup} from './cgroup.js';
export {ownerAlive, ownerTag} from './owner.js';

// The CPU a run is pinned to, and the machine-wide leases.
export {allowedCpus, pinCpu, tasksetWorks, type PinnedCpu} from './pin.js';
export {defaultLeaseFolder, leaseFolderVariable} from './cpu-lease.js';

// The instructions clock's check of a solution's counts against the reference's.
export {crossCheck} from './instructions.js';
