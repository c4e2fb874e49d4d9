/**
 * One run: a runner process (sandboxed or not, see sandbox.ts) that receives
 * each case's inputs over a socket and sends back its answer; served once, or
 * kept for several segments of cases and frozen between them (keep). The
 * clock is the harness's: a case's wall time runs from the moment its inputs
 * are written to the moment the last byte of its answer arrives, and its CPU
 * time is the run's cgroup counter over the same span (run-serve.ts). stdout
 * and stderr are captured (a bounded tail, never forwarded); a limit kills the
 * whole run (run-control.ts).
 */
import type {Duplex} from 'node:stream';
import {headerOnly, RunControl, spawnRunner, timerMs, emptyOutcome} from './run-control.js';
import {caseInFlight, casesNotRun, deliverSegment, endRun, handshake, serveRun} from './run-serve.js';
import type {RunOutcome, RunRequest, RunService, RunSession, RunStart, StartedRun} from './run-types.js';

/** Run the runner once over the given cases and wait for every process of the run to end. */
export function runCases(request: RunRequest): Promise<RunOutcome> {
  return startRun({...request, startCpus: request.pin}).serve({...request, cpu: request.pin});
}

/**
 * Start a run: the runner loads Python and numpy (arbor's code only) and says
 * "started", then waits for its point; no solution code runs before `serve`.
 */
export function startRun(start: RunStart): StartedRun {
  const run = new RunControl(spawnRunner(start), start);
  run.arm(start.initTimeout, {i: null, limit: start.initTimeout, reason: 'start'});
  const started = run.reader.next(headerOnly('started')).then(
    (frame) => {
      // Waiting for its turn is not a limit's business: the runner is blocked on the channel.
      run.disarm();
      return frame.header.ev === 'started';
    },
    () => false,
  );
  let served = false;
  const serve = async (service: RunService): Promise<RunOutcome> => {
    if (served) throw new Error('a run is served once');
    served = true;
    return serveRun(run, started, service);
  };
  const cancel = () => {
    if (served) return;
    served = true;
    run.end();
    const stream = start.counterLogFd === undefined ? undefined : (run.child.stdio[start.counterLogFd] as Duplex);
    stream?.destroy();
  };
  const keep = (): RunSession => {
    if (served) throw new Error('a run is served once');
    served = true;
    return new KeptRun(run, started);
  };
  return {started, serve, cancel, keep};
}

/** A kept run (RunSession): served segment by segment, frozen between them, ended once. */
class KeptRun implements RunSession {
  #opened = false;
  #alive = true;
  #frozen = false;

  constructor(
    readonly run: RunControl,
    readonly started: Promise<boolean>,
  ) {}

  get alive(): boolean {
    return this.#alive;
  }

  async serve(service: RunService): Promise<RunOutcome> {
    if (!this.#alive) throw new Error('a kept run that ended serves no more cases');
    const {run} = this;
    const servedAt = process.hrtime.bigint();
    const total = setTimeout(() => run.kill({i: null, limit: service.totalTimeout, reason: 'total'}), timerMs(service.totalTimeout));
    const outcome = emptyOutcome();
    const timed = service.cases.filter((c) => c.i >= 0);
    let failed = false;
    try {
      if (this.#frozen) this.#thaw();
      outcome.started = await this.started;
      if (!outcome.started) throw new Error('the runner did not start');
      if (!this.#opened) {
        this.#opened = true;
        if (!(await handshake(run, service, outcome))) failed = true;
      }
      if (!failed) await deliverSegment(run, service, outcome);
    } catch (error) {
      caseInFlight(run, outcome, timed, error, service.secretCases);
      failed = true;
    }
    casesNotRun(outcome, timed);
    if (failed) {
      this.#alive = false;
      await endRun(run, service, outcome, total);
    } else {
      clearTimeout(total);
      // A case that failed (a crash the runner caught, a wrong answer's shape) ends the run: the
      // next segment starts from a fresh process. A run that cannot be frozen is ended too: it
      // could go on computing beside another run's timed cases.
      if (outcome.cases.some((c) => c.status !== 'ok') || !run.group?.freeze()) await this.close(service.exitGrace);
      else this.#frozen = true;
    }
    outcome.wallSeconds = Number(process.hrtime.bigint() - servedAt) / 1e9;
    outcome.stdoutTail = run.stdoutTail;
    outcome.stderrTail = run.stderrTail;
    return outcome;
  }

  async close(exitGrace = 2): Promise<void> {
    if (!this.#alive) return;
    this.#alive = false;
    const {run} = this;
    if (this.#frozen) this.#thaw();
    if (this.#opened && (await this.started)) {
      run.arm(run.start.initTimeout, {i: null, limit: run.start.initTimeout, reason: 'start'});
      run.socket.write(`${JSON.stringify({op: 'end'})}\n`);
      const grace = setTimeout(run.killAll, timerMs(exitGrace));
      await run.exited;
      clearTimeout(grace);
    }
    run.end();
  }

  #thaw(): void {
    this.run.group?.thaw();
    this.#frozen = false;
  }
}
