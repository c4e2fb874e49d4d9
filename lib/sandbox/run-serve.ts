/**
 * Serving a started run: the handshake, each case delivered and timed from
 * outside (wall time from the inputs written to the answer's last byte, CPU
 * time from the run's cgroup over the same span), the warm-up repeated until
 * its time settles, the checks on every answer (its index, its nonce, its
 * sizes; a CPU time that cannot be the run's work), and the end of the run.
 */
import {randomBytes} from 'node:crypto';
import type {Duplex} from 'node:stream';
import type {CpuGroup} from './cgroup.js';
import type {Frame} from './channel.js';
import {crashNote, framesOf, secretCrashNote} from './crash.js';
import {emptyOutcome, headerOnly, nullCaseIndex, timerMs, type RunControl} from './run-control.js';
import type {CaseInput, CaseOutcome, RunOutcome, RunService, UntimedCall, WarmupRule} from './run-types.js';

/**
 * The warm-up of the CPU and wall clocks: at least 3 calls (or 0.2 s of
 * them), then until a call is within 10% of the fastest before it, at most
 * 30 calls or 1 s of them. One call left the first timed case of a 5 ms
 * solution 2-3x slower than the others (caches, branch predictors and the
 * allocator's heap are not yet the steady state's).
 */
export const settlingWarmup: WarmupRule = {minCalls: 3, enoughSeconds: 0.2, stableRatio: 1.1, maxCalls: 30, maxSeconds: 1};

/** The instructions clock's warm-up (and a run given no rule): one call, which takes the first-call costs. */
const singleCall: WarmupRule = {minCalls: 1, enoughSeconds: 0, stableRatio: Infinity, maxCalls: 1, maxSeconds: Infinity};

/** Whether the warm-up goes on after the calls timed so far (wall seconds). */
export function warmupContinues(rule: WarmupRule, calls: number[]): boolean {
  const spent = calls.reduce((total, each) => total + each, 0);
  if (calls.length >= rule.maxCalls || spent >= rule.maxSeconds) return false;
  if (calls.length < rule.minCalls && spent < rule.enoughSeconds) return true;
  if (calls.length < 2) return false;
  const last = calls[calls.length - 1]!;
  return last > rule.stableRatio * Math.min(...calls.slice(0, -1));
}

/** Serve a started run once: deliver its cases, account for those it did not answer, then end it. */
export async function serveRun(run: RunControl, started: Promise<boolean>, service: RunService): Promise<RunOutcome> {
  const servedAt = process.hrtime.bigint();
  const total = setTimeout(() => run.kill({i: null, limit: service.totalTimeout, reason: 'total'}), timerMs(service.totalTimeout));
  const outcome = emptyOutcome();
  const timed = service.cases.filter((c) => c.i >= 0);
  try {
    outcome.started = await started;
    if (!outcome.started) throw new Error('the runner did not start');
    await deliverCases(run, service, outcome);
  } catch (error) {
    // The run ended early: the case in flight failed, the rest did not run.
    caseInFlight(run, outcome, timed, error, service.secretCases);
  }
  casesNotRun(outcome, timed);
  await endRun(run, service, outcome, total);
  outcome.wallSeconds = Number(process.hrtime.bigint() - servedAt) / 1e9;
  outcome.stdoutTail = run.stdoutTail;
  outcome.stderrTail = run.stderrTail;
  if (run.counterLog) {
    // Every process of the run is gone, so the log's writers are too; one that escaped (no sandbox, no cgroup) is not waited for.
    const stream = run.child.stdio[run.start.counterLogFd!] as Duplex;
    const wait = setTimeout(() => stream.destroy(), 2000);
    outcome.counterLog = await run.counterLog;
    clearTimeout(wait);
  }
  return outcome;
}

/** The handshake and the cases: `hello` with the point, then (unless the solution failed to start) every case in order, then `end`. */
async function deliverCases(run: RunControl, service: RunService, outcome: RunOutcome): Promise<void> {
  if (!(await handshake(run, service, outcome))) return;
  if (service.quiet) {
    run.disarm();
    await service.quiet.catch(() => {});
  }
  await deliverSegment(run, service, outcome);
  const {initTimeout} = run.start;
  run.arm(initTimeout, {i: null, limit: initTimeout, reason: 'start'});
  run.socket.write(`${JSON.stringify({op: 'end'})}\n`);
}

/** `hello` with the point, answered `ready` (true) or `failed` (false: the import or init() raised, said in the outcome). */
export async function handshake(run: RunControl, service: Pick<RunService, 'point' | 'signature' | 'cpu'>, outcome: RunOutcome): Promise<boolean> {
  const {initTimeout} = run.start;
  run.arm(initTimeout, {i: null, limit: initTimeout, reason: 'start'});
  const hello = {op: 'hello', point: service.point, signature: service.signature, ...(service.cpu === undefined ? {} : {cpu: Number(service.cpu)})};
  run.socket.write(`${JSON.stringify(hello)}\n`);
  const ready = await run.reader.next(headerOnly('ready', 'failed'));
  if (ready.header.ev === 'failed') {
    // init() sees the point, never a case: its exception is said whole, on secret cases too.
    outcome.startError = String(ready.header.note ?? 'the solution failed to start').slice(0, 1000);
    const where = framesOf(ready.header.where);
    if (where.length) outcome.startWhere = where;
    return false;
  }
  return true;
}

/** The service's cases in order (a warm-up case repeated under its rule); the run is left waiting for more. */
export async function deliverSegment(run: RunControl, service: RunService, outcome: RunOutcome): Promise<void> {
  const resultTotal = service.resultBytes.reduce((a, b) => a + b, 0);
  for (const item of service.cases) {
    if (item.i < 0) {
      await warmUp(run, service, item, outcome, resultTotal);
      continue;
    }
    const {frame, seconds, cpu} = await exchange(run, service, 'case', item, resultTotal);
    const implausible = service.checkCpu && Number.isFinite(cpu) ? implausibleCpu(cpu, seconds) : undefined;
    if (implausible) outcome.cases.push({i: item.i, status: 'tampered', seconds, cpuSeconds: cpu, note: implausible});
    else outcome.cases.push(caseFrom(frame, item.i, seconds, Number.isFinite(cpu) ? cpu : null, service.resultBytes, service.secretCases));
  }
  // Between segments the run waits on the harness, under no limit (a kept run is frozen meanwhile).
  run.disarm();
}

/** The warm-up case, repeated under the service's rule until its time settles, then the null cases on its inputs. */
async function warmUp(run: RunControl, service: RunService, item: CaseInput, outcome: RunOutcome, resultTotal: number): Promise<void> {
  const untimed = (seconds: number, cpu: number): UntimedCall => ({seconds, cpuSeconds: Number.isFinite(cpu) ? cpu : null});
  const rule = service.warmup ?? singleCall;
  do {
    const {seconds, cpu} = await exchange(run, service, 'case', item, resultTotal);
    outcome.warmup.push(untimed(seconds, cpu));
  } while (
    warmupContinues(
      rule,
      outcome.warmup.map((call) => call.seconds),
    )
  );
  for (let k = 0; k < (service.nullCases ?? 0); k++) {
    const {seconds, cpu} = await exchange(run, service, 'null', {i: nullCaseIndex, inputs: item.inputs}, resultTotal);
    outcome.nullCalls.push(untimed(seconds, cpu));
  }
}

/** One exchange: the inputs delivered under the case's limit, the answer taken; its wall and CPU seconds (NaN without a cgroup). */
async function exchange(
  run: RunControl,
  service: RunService,
  op: 'case' | 'null',
  item: CaseInput,
  resultTotal: number,
): Promise<{frame: Frame; seconds: number; cpu: number}> {
  const {reader, socket, group} = run;
  if (reader.pending) throw new Error(`the runner sent ${reader.pending} byte(s) before case ${item.i} was delivered`);
  // A nonce the answer must echo: an answer written before its case arrived (by a thread, or during
  // the warm-up, for a case the solution could make itself) cannot carry it, however late it is read.
  const nonce = service.nonces ? randomBytes(8).toString('hex') : undefined;
  const limit = service.caseTimeout(item.i);
  run.arm(limit, {i: item.i, limit, reason: 'case'});
  const cpuBefore = group?.cpuSeconds() ?? NaN;
  const sentAt = process.hrtime.bigint();
  socket.write(`${JSON.stringify(nonce === undefined ? {op, i: item.i} : {op, i: item.i, n: nonce})}\n`);
  socket.write(item.inputs);
  // Only a timed case's answer is read (verified); the warm-up's and the null cases' are consumed unread.
  const frame = await reader.next(
    (header) => (nonce === undefined || header.n === nonce ? answerSize(header, item.i, service.resultBytes, resultTotal) : -1),
    op === 'case' && item.i >= 0,
  );
  const seconds = Number(reader.lastAt - sentAt) / 1e9;
  const cpu = group ? group.cpuSeconds() - cpuBefore : NaN;
  return {frame, seconds, cpu};
}

/**
 * The timed case in flight when the run ended early: a timeout when a limit
 * killed the run, else a crash. Every timed case before it has its outcome
 * (deliverCases pushes one per case answered), so it is timed[cases.length].
 */
export function caseInFlight(run: RunControl, outcome: RunOutcome, timed: CaseInput[], error: unknown, secret = false): void {
  const current = timed[outcome.cases.length];
  if (!current || !outcome.started || outcome.startError) return;
  const {killed} = run;
  if (killed) {
    const what =
      killed.reason === 'total'
        ? 'whole-run'
        : killed.i === -1
          ? 'warm-up case'
          : killed.i === nullCaseIndex
            ? 'null case'
            : killed.reason === 'start'
              ? 'start-up/init'
              : 'case';
    outcome.cases.push({
      i: current.i,
      status: 'timeout',
      seconds: null,
      cpuSeconds: null,
      note: `killed at the ${what} time limit of ${killed.limit.toFixed(3)} s`,
    });
  } else {
    // On secret cases the run's last line of output is not shown: the solution writes it, and it may carry the case.
    const why = secret ? '' : ` (${crashNote(error, run.stderrTail)})`;
    outcome.cases.push({i: current.i, status: 'crashed', seconds: null, cpuSeconds: null, note: `the process ended before answering${why}`});
  }
}

/** The timed cases without an outcome: the first crashed when the solution failed to start, the rest not run. */
export function casesNotRun(outcome: RunOutcome, timed: CaseInput[]): void {
  if (outcome.startError && outcome.cases.length === 0 && timed[0]) {
    const where = outcome.startWhere ? {where: outcome.startWhere} : {};
    outcome.cases.push({
      i: timed[0].i,
      status: 'crashed',
      seconds: null,
      cpuSeconds: null,
      note: `the solution failed to start (${outcome.startError})`,
      ...where,
    });
  }
  for (const item of timed.slice(outcome.cases.length)) outcome.cases.push({i: item.i, status: 'not-run', seconds: null, cpuSeconds: null});
}

/** Give the runner a moment to free() and exit, then end whatever is left of the run; how it ended goes into the outcome. */
export async function endRun(run: RunControl, service: RunService, outcome: RunOutcome, total: NodeJS.Timeout): Promise<void> {
  const grace = setTimeout(run.killAll, run.killed || !outcome.started ? 0 : timerMs(service.exitGrace ?? 2));
  const exit = await run.exited;
  clearTimeout(grace);
  clearTimeout(total);
  if (run.group) explainLimits(outcome, run.group);
  run.end();
  outcome.killed = run.killed;
  outcome.exitCode = exit.code;
  outcome.signal = exit.signal;
}

/**
 * Why a case's CPU time cannot be the run's, or undefined when it can be. The
 * group's counter only grows and every process of the run is in it, so a
 * negative delta means it was reset. One under 1/100 of a wall time over half
 * a second means the counter missed the work, or the run slept: on the CPU
 * clock a wait costs nothing, so it is no score either. Below half a second a
 * small or zero delta proves nothing: the kernel charges a running task at
 * its next tick or switch, so a case shorter than a tick may read 0, and a
 * loaded machine may keep an honest run waiting for its CPU for tens of ms.
 */
export function implausibleCpu(cpuSeconds: number, wallSeconds: number): string | undefined {
  if (cpuSeconds < 0)
    return `the run's CPU counter went backwards over the case (${(cpuSeconds * 1e3).toFixed(3)} ms in ${(wallSeconds * 1e3).toFixed(3)} ms of wall time): it was tampered with`;
  if (wallSeconds > 0.5 && cpuSeconds < wallSeconds / 100) {
    return `the case took ${(cpuSeconds * 1e3).toFixed(3)} ms of CPU time in ${(wallSeconds * 1e3).toFixed(1)} ms of wall time, too little to be its work: the run waited instead of computing, or its CPU counter was tampered with`;
  }
  return undefined;
}

/**
 * A case that ended because the run hit a limit of its group says so: the
 * kernel's OOM kill at the memory limit, a fork refused at the process limit.
 */
function explainLimits(outcome: RunOutcome, group: CpuGroup): void {
  const memory = group.bounds.memory && group.overMemory();
  const processes = group.bounds.processes && group.overProcesses();
  if (!memory && !processes) return;
  const what = memory
    ? `the run went over its memory limit of ${Math.round((group.limits?.memoryBytes ?? 0) / 2 ** 20)} MiB (plan.toml memory_mb) and was killed`
    : `the run reached its limit of ${group.limits?.processes} processes and threads (plan.toml processes)`;
  outcome.limitHit = memory ? 'memory' : 'processes';
  for (const c of outcome.cases) {
    if (c.status === 'crashed') c.note = `${what}${c.note ? `; ${c.note}` : ''}`.slice(0, 1000);
  }
  if (outcome.startError) outcome.startError = `${what}; ${outcome.startError}`;
}

/** The payload size an answer header announces, or -1 when it is not a valid answer to case i. */
function answerSize(header: Record<string, unknown>, i: number, resultBytes: number[], total: number): number {
  if (header.ev !== 'answer' || header.i !== i) return -1;
  if (header.status === 'crashed') return 0;
  if (header.status !== 'ok' || !Array.isArray(header.sizes) || header.sizes.length !== resultBytes.length) return -1;
  let sum = 0;
  for (const [k, size] of header.sizes.entries()) {
    if (size !== 0 && size !== resultBytes[k]) return -1;
    sum += size as number;
  }
  return sum <= total ? sum : -1;
}

function caseFrom(frame: Frame, i: number, seconds: number, cpuSeconds: number | null, resultBytes: number[], secret = false): CaseOutcome {
  const note = typeof frame.header.note === 'string' ? frame.header.note.slice(0, 1000) : undefined;
  if (frame.header.status === 'crashed') {
    const where = framesOf(frame.header.where);
    return {i, status: 'crashed', seconds, cpuSeconds, note: secret ? secretCrashNote(frame.header.error) : note, ...(where.length ? {where} : {})};
  }
  const sizes = frame.header.sizes as number[];
  let offset = 0;
  const answer = resultBytes.map((_, k) => {
    if (sizes[k] === 0 && resultBytes[k] !== 0) return null;
    const part = frame.payload.subarray(offset, offset + sizes[k]!);
    offset += sizes[k]!;
    return part;
  });
  return {i, status: 'ok', seconds, cpuSeconds, note, answer};
}
