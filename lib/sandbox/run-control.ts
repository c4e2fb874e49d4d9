/**
 * The harness's hold on one spawned run (RunControl): its command (joined to
 * its cgroup, on its start CPUs), its captured output, its channel, the limit
 * armed over it, and the one way to end it. Every run in flight is known here,
 * so an interrupted eval can kill them all (killActiveRuns).
 */
import {spawn, type ChildProcess} from 'node:child_process';
import type {Duplex} from 'node:stream';
import type {CpuGroup} from './cgroup.js';
import {collect, FrameReader} from './channel.js';
import type {RunOutcome, RunStart} from './run-types.js';

const tailBytes = 8192;

/** The index a null case is delivered under (never a real case's, never the warm-up's). */
export const nullCaseIndex = -2;

/** valgrind's -v log of an honest run is ~100 KB; a run that floods it past this has its log dropped (and its cases voided). */
const maxCounterLog = 16 << 20;

/** Runs in flight, so an interrupted eval can kill them (see killActiveRuns). */
const active = new Set<() => void>();

/** Kill every run in flight (for SIGINT/SIGTERM handlers). */
export function killActiveRuns(): void {
  for (const kill of active) kill();
  active.clear();
}

/** The command line of a run: the launch, joined to its cgroup before the sandbox starts, on its start CPUs. */
function runCommand(start: RunStart): {command: string; args: string[]} {
  const {launch, group} = start;
  let command = launch.command;
  let args = launch.args;
  if (group) {
    // Join the cgroup before the sandbox starts, so every process of the run is born in it.
    // `sh -c SCRIPT procs... command args...`: $0, $1, ... are the groups' files; then the command is all that is left.
    const joins = group.procs.map((_, k) => `echo $$ > "\${${k}}"`).join(' && ');
    args = ['-c', `${joins} && shift ${group.procs.length - 1} && exec "$@"`, ...group.procs, command, ...args];
    command = '/bin/sh';
  }
  if (start.startCpus) {
    args = ['-c', start.startCpus, command, ...args];
    command = 'taskset';
  }
  return {command, args};
}

/** Spawn a run in a process group of its own: stdout, stderr, the channel (fd 3), the counter log's and the launch input's fds piped. */
export function spawnRunner(start: RunStart): ChildProcess {
  const {launch} = start;
  const {command, args} = runCommand(start);
  const stdio: Array<'ignore' | 'pipe'> = ['ignore', 'pipe', 'pipe', 'pipe'];
  while (start.counterLogFd !== undefined && stdio.length <= start.counterLogFd) stdio.push('pipe');
  while (launch.input && stdio.length <= launch.input.fd) stdio.push('ignore');
  if (launch.input) stdio[launch.input.fd] = 'pipe';
  const child = spawn(command, args, {cwd: launch.cwd, env: launch.env, detached: true, stdio});
  if (launch.input) {
    // Read whole before the sandbox starts (bwrap's seccomp program); the pipe is ended at once.
    const input = child.stdio[launch.input.fd] as Duplex;
    input.on('error', () => {});
    input.end(launch.input.bytes);
  }
  return child;
}

/** A frame size function that accepts a header-only message of one of these events and nothing else. */
export function headerOnly(...events: string[]): (header: Record<string, unknown>) => number {
  return (header) => (events.includes(header.ev as string) ? 0 : -1);
}

/**
 * The harness's hold on a spawned run: its captured output, its channel, the
 * limit armed over it, and the one way to end it. From construction until
 * end() it is in `active`, so an interrupted eval kills it (killActiveRuns).
 */
export class RunControl {
  readonly child: ChildProcess;
  readonly start: RunStart;
  readonly group?: CpuGroup;
  readonly socket: Duplex;
  readonly reader: FrameReader;
  /** Settles when the run's first process exits (or could not be spawned). */
  readonly exited: Promise<{code: number | null; signal: string | null}>;
  /** Instructions clock: valgrind's whole log, once every writer closed it. */
  readonly counterLog?: Promise<string | undefined>;
  stdoutTail = '';
  stderrTail = '';
  /** The limit that killed the run, the first one to fire. */
  killed: RunOutcome['killed'];
  private timer: NodeJS.Timeout | undefined;

  constructor(child: ChildProcess, start: RunStart) {
    this.child = child;
    this.start = start;
    this.group = start.group;
    this.counterLog = start.counterLogFd === undefined ? undefined : collect(child.stdio[start.counterLogFd] as Duplex, maxCounterLog);
    child.stdout!.on('data', (chunk: Buffer) => {
      this.stdoutTail = (this.stdoutTail + chunk.toString('utf8')).slice(-tailBytes);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-tailBytes);
    });
    this.exited = new Promise((resolve) => {
      child.on('error', (error) => {
        this.stderrTail += `\nspawn failed: ${error.message}`;
        resolve({code: null, signal: null});
      });
      child.on('exit', (code, signal) => resolve({code, signal}));
    });
    this.socket = child.stdio[3] as Duplex;
    this.socket.on('error', () => {});
    this.reader = new FrameReader(this.socket);
    active.add(this.killAll);
  }

  /** Kill every process of the run: its process group, then its cgroup (which holds any that left the group). */
  readonly killAll = (): void => {
    if (this.child.pid !== undefined) {
      try {
        process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    this.group?.destroy();
  };

  /** The run hit a limit: the first one to fire is the one reported; the channel fails and every process is killed. */
  kill(info: NonNullable<RunOutcome['killed']>): void {
    this.killed ??= info;
    this.reader.fail(new Error('killed'));
    this.killAll();
  }

  /** Arm the limit of what the run does next (replacing the one armed before). */
  arm(seconds: number, info: NonNullable<RunOutcome['killed']>): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.kill(info), timerMs(seconds));
  }

  /** No limit while the run waits on the harness (its turn, the quiet before the warm-up). */
  disarm(): void {
    if (this.timer) clearTimeout(this.timer);
  }

  /** End the run for good: no limit left, every process killed, out of `active`, its pipes closed. */
  end(): void {
    this.disarm();
    this.killAll();
    active.delete(this.killAll);
    for (const stream of [this.child.stdout, this.child.stderr, this.socket]) stream?.destroy();
  }
}

/** A run's outcome before anything of it is known. */
export function emptyOutcome(): RunOutcome {
  return {started: false, exitCode: null, signal: null, wallSeconds: 0, cases: [], stdoutTail: '', stderrTail: '', warmup: [], nullCalls: []};
}

/** setTimeout milliseconds for a limit in seconds: NaN or non-positive fire at once, never past 2^31-1 ms (which would overflow and fire at once too). */
export function timerMs(seconds: number): number {
  if (!(seconds > 0)) return 0;
  return Math.min(Math.ceil(seconds * 1000), 2 ** 31 - 1);
}
