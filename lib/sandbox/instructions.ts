/**
 * The instructions clock: how a run is counted by valgrind's callgrind, and how
 * the counts are read back (pure functions; point.ts reads the files).
 *
 * Every run goes through `valgrind --tool=callgrind --instr-atstart=no` (valgrindArguments):
 * the runner switches instrumentation on just before its first count opens. The
 * runner (runner.py --count-instructions) sends each message after which the
 * harness sends a case (ready, every answer) but for its last byte, and sends
 * that byte only once the next count is open, so no byte of a case reaches its
 * process before its count opens. After ready and the warm-up answer it zeroes
 * the costs and dumps `open-<k>` (one native call); after a timed case's
 * answer it dumps `case-<i>/<hh>` (hh: the byte held back), which closes that
 * case's count and opens the next one. The part file of that dump holds the
 * instructions every thread of the process executed in the case (its
 * `totals:` line), and the `-v` log says at which basic block each dump
 * started, so the case's executed blocks are the difference. From `open-0` on
 * (the runner switches it on then), valgrind also logs a line before every
 * client request it runs (`--trace-sched=yes` at verbosity 3), so a request the
 * runner did not issue shows.
 *
 * The counter lives inside the solution's process, so the solution can reach
 * it (client requests, its own log fd, the output files, valgrind's memory).
 * readCounts fails a case on every trace of that the research found, and
 * crossCheck on work that ran but was not counted (lib/eval/README.md, "The
 * instructions clock"); what neither can see is documented there too.
 */

/** Valgrind slows counted code down about 20x (a run's uncounted start about 2.5x): start-up limits are scaled by this, with room to spare. */
export const instructionsSlowdown = 20;

/** Where a run's callgrind output folder appears inside the sandbox. */
export const counterFolderInside = '/callgrind';

/** The file descriptor valgrind writes its `-v` log to (the harness reads its other end). */
export const counterLogFd = 4;

/** A part file larger than this is not read (an honest part with --dump-instr=no is well under 10 MB). */
export const maxPartBytes = 64 << 20;

/**
 * valgrind's arguments up to the interpreter: callgrind, no gdb server, no per-instruction
 * or per-line costs (small files), calls through the PLT counted as calls (with the default
 * --skip-plt=yes their costs sit apart, and a zeroing misses them: they would surface in
 * the next case's part), children traced (an exec'd program shows in the log instead of
 * running uncounted), the log on counterLogFd, one output file per process and dump.
 * `runId` makes the names unique: inside the sandbox's PID namespace the pid is always 2.
 */
export function valgrindArguments(folder: string, runId: string): string[] {
  return [
    '--tool=callgrind',
    '--instr-atstart=no',
    '--vgdb=no',
    '--dump-instr=no',
    '--dump-line=no',
    '--skip-plt=no',
    '--trace-children=yes',
    '-v',
    `--log-fd=${counterLogFd}`,
    `--callgrind-out-file=${folder}/${runId}.%p`,
  ];
}

/** Environment a counted run adds: the hash seed is the one source of variation in the counts between processes. */
export const counterEnvironment: Record<string, string> = {PYTHONHASHSEED: '0'};

/** One case's count. */
interface CaseCount {
  /** Instructions executed in the case (Ir of its `case-<i>/<hh>` part). */
  instructions: number;
  /** Basic blocks executed in the case (from the log's dump positions). */
  blocks: number;
}

/** A case's count, or why it cannot be trusted (a one-line note). */
export type CountResult = CaseCount | {problem: string};

/** A part file of the output folder: its name and text. */
export interface PartFile {
  name: string;
  text: string;
}

/** What readCounts needs of a run. */
export interface CountInput {
  /** The `-v` log valgrind wrote on counterLogFd. */
  log: string;
  /** Every file of the run's output folder (text empty and `tooLarge` set for a file over maxPartBytes). */
  parts: Array<PartFile & {tooLarge?: boolean}>;
  /** The run id in the file names. */
  runId: string;
  /** The timed cases delivered, in order (an unanswered case may lack its closing dump). */
  cases: number[];
  /** How many counts the runner opened before the first timed case: one after ready, one after each untimed warm-up case. */
  opens: number;
  /** Per answered case, the last byte of its answer as the harness received it (the byte the closing dump's label records). */
  held?: Map<number, number>;
}

/**
 * The most instructions an `open-<k>` part may hold: the runner zeroes the
 * costs and dumps in one native call (callgrind counts 3 instructions in
 * between). More means a part was rewritten to hide a case's count there (the
 * margin covers a thread that valgrind's scheduler might run in between).
 */
const maxOpenInstructions = 10_000;

/**
 * Under the instructions clock, a case whose instruction speedup is more than
 * this many times its CPU-time speedup fails as tampered: work ran in the case
 * that the count does not show. Honest solutions stay far below it (at most 19
 * measured), though valgrind's CPU cost per instruction differs some 30x
 * between code (about 2.5 ns for scalar loops, 75 ns for LAPACK's vector
 * kernels) and a case's CPU time also holds a fixed cost its count does not (a
 * dump, about 25 ms): lib/eval/README.md, "The instructions clock".
 */
export const maxSpeedupExcess = 100;

/** One case of one side as the cross-check sees it: its count and its CPU seconds. */
export interface CaseCost {
  instructions: number;
  cpuSeconds: number;
}

/**
 * The cross-check of a solution's case against the reference's: a one-line
 * problem when its instruction speedup is more than maxSpeedupExcess times its
 * CPU-time speedup, else undefined (also when a side has no CPU time: no cgroup).
 */
export function crossCheck(reference: CaseCost, solution: CaseCost): string | undefined {
  const counted = reference.instructions / solution.instructions;
  const timed = reference.cpuSeconds / solution.cpuSeconds;
  if (!(Number.isFinite(counted) && Number.isFinite(timed) && counted > 0 && timed > 0)) return undefined;
  const excess = counted / timed;
  if (excess <= maxSpeedupExcess) return undefined;
  return `instructions clock: the case's instruction speedup (${counted.toPrecision(3)}) is ${excess.toPrecision(3)} times its CPU-time speedup (${timed.toPrecision(3)}), more than ${maxSpeedupExcess}: work ran that the count does not show`;
}

/**
 * The most the instructions per executed basic block may differ between the
 * cases of one run (largest over smallest). The cases of one point run the
 * same code on data of one kind, so they differ by a few percent (at most
 * 1.026 measured); a count moved from one case's part to another's, which the
 * sum of the parts does not show, changes both.
 */
const maxBlockLengthSpread = 3;

/** One line of valgrind's log that matters, with its position. */
interface LogEvent {
  at: number;
  pid: number;
  text: string;
}

/** A dump the log announced. */
interface Dump {
  at: number;
  block: number;
  trigger: string;
  file?: string;
}

/** A client request valgrind ran for the runner's process, and what it did (the log line right after it). */
interface Request {
  at: number;
  zero: boolean;
  dump?: Dump;
  /** The line valgrind wrote next (empty when none: the request logs nothing). */
  text: string;
}

const logLine = /^(?:==|--)(\d+)(?:==|--) ?(.*)$/;
const dumpLine = /^Start dumping at BB (\d+) \((.*)\)\.\.\.$/;
const requestLine = /^SCHED\[\d+\]: TRC: (?:CLIENTREQ|NOREDIR)$/;
const schedulerLine = /^SCHED\[\d+\]: /;
const zeroLine = /^Zeroing costs/;
const closeTrigger = /^Client Request: case-(-?\d+)\/([0-9a-f]{2})$/;

/**
 * Per timed case, its count or the problem that voids it. A process or an
 * exec the log shows is a problem of the case whose span (from the dump before
 * its `case-<i>/<hh>` dump to that one) holds it, else of the next case to
 * start after it, else of the last case; a client request the runner did not
 * issue, a line written into the log, a rewritten part and a wrong final count
 * void every case (what native code or a rewrite did cannot be placed).
 */
export function readCounts(input: CountInput): Map<number, CountResult> {
  const events = logEvents(input.log);
  const problems = new Map<number, string>();
  const results = new Map<number, CountResult>();
  if (!input.cases.length) return results;
  const runner = events.find((event) => event.text.startsWith('Command: '))?.pid;
  if (runner === undefined) {
    for (const i of input.cases) results.set(i, {problem: 'instructions clock: valgrind wrote no log (it did not start the runner)'});
    return results;
  }
  const own = events.filter((event) => event.pid === runner);
  const blameAll = (problem: string) => {
    for (const i of input.cases) if (!problems.has(i)) problems.set(i, `instructions clock: ${problem}`);
  };
  const {spans, dumps} = readRequests(own, input, blameAll);
  const blame = (at: number, problem: string) => {
    const owner = spans.find((span) => span.from <= at && at <= span.to) ?? spans.find((span) => span.from > at) ?? spans[spans.length - 1]!;
    if (!problems.has(owner.i)) problems.set(owner.i, `instructions clock: ${problem}`);
  };

  let commands = 0;
  for (const event of events) {
    if (event.pid !== runner) {
      blame(event.at, `a second process (pid ${event.pid}) ran under the counter: a fork or an exec, whose work the case's count misses`);
    } else if (event.text.startsWith('Command: ') && ++commands > 1) {
      blame(event.at, `a second "Command:" line in valgrind's log (an exec, or a line written into the log)`);
    }
  }

  const parts = partsOf(input, runner, dumps, blameAll);
  for (const dump of dumps) {
    if (dump.file !== undefined && !parts.has(dump.file)) blameAll(`the dump file ${dump.file} that the log names is missing`);
  }
  for (const dump of dumps.filter((dump) => dump.trigger.startsWith('Client Request: open-'))) {
    const part = dump.file === undefined ? undefined : parts.get(dump.file);
    const totals = part && totalsOf(part);
    if (totals !== undefined && totals > maxOpenInstructions) {
      blameAll(
        `the part ${part!.name} (${dump.trigger.slice('Client Request: '.length)}) holds ${totals} instructions, at most ${maxOpenInstructions} run between the runner's two requests: a part file was rewritten`,
      );
    }
  }
  // Without the final block nothing checks the parts: a run that did not exit normally counts nothing.
  checkTotals(own, parts, blameAll);

  for (const span of spans) {
    const problem = problems.get(span.i);
    results.set(span.i, problem ? {problem} : caseCount(span, parts, input.held?.get(span.i)));
  }
  checkSpread(results);
  return results;
}

/** Every counted case of the run fails when their instructions per executed block differ by more than maxBlockLengthSpread. */
function checkSpread(results: Map<number, CountResult>): void {
  const counted = [...results.values()].filter((result): result is CaseCount => 'instructions' in result && result.blocks > 0);
  if (counted.length < 2) return;
  const lengths = counted.map((count) => count.instructions / count.blocks);
  const [low, high] = [Math.min(...lengths), Math.max(...lengths)];
  if (high / low <= maxBlockLengthSpread) return;
  const problem = `instructions clock: the cases' instructions per executed basic block range from ${low.toFixed(2)} to ${high.toFixed(2)}, more than ${maxBlockLengthSpread} times apart (a point's cases run the same code): a part file was rewritten`;
  for (const [i, result] of results) if ('instructions' in result) results.set(i, {problem});
}

/** The lines valgrind writes (`==pid==` or `--pid--`); anything else in the log is ignored. */
function logEvents(log: string): LogEvent[] {
  const events: LogEvent[] = [];
  for (const [at, line] of log.split('\n').entries()) {
    const match = logLine.exec(line);
    if (match) events.push({at, pid: Number(match[1]), text: match[2]!.trim()});
  }
  return events;
}

/** A timed case's dumps: the one before it (`open-<k>` or the previous case's) and its `case-<i>/<hh>` (missing when it never answered). */
interface Span {
  i: number;
  pre?: Dump;
  post?: Dump;
  /** The last byte of its answer, as the closing dump's label records it. */
  held?: number;
  /** Log positions the case covers. */
  from: number;
  to: number;
}

/**
 * The runner's client requests, checked against what it issues. valgrind logs
 * requests from the runner's first `open-0` on (the runner switches the trace
 * on just before it): `opens` pairs `zero + dump open-<k>`, k = 0, 1, ..., then
 * the closing dump of each timed case in order, which opens the next one. Any
 * other request, a zeroing or dump valgrind did not announce with a request
 * line (forged, or issued before the trace began), a switch of the
 * instrumentation after the trace began (the runner's own switch on comes just
 * before it) or a second Prg.Term. dump voids every case. Returns the
 * cases' spans and every dump of the runner, each with the file its `Dump to`
 * line names.
 */
function readRequests(own: LogEvent[], input: CountInput, blameAll: (problem: string) => void): {spans: Span[]; dumps: Dump[]} {
  const dumps: Dump[] = [];
  const dumpAt = new Map<number, Dump>();
  for (const event of own) {
    const match = dumpLine.exec(event.text);
    if (match) {
      dumps.push({at: event.at, block: Number(match[1]), trigger: match[2]!});
      dumpAt.set(event.at, dumps[dumps.length - 1]!);
    } else if (event.text.startsWith('Dump to ') && dumps.length && dumps[dumps.length - 1]!.file === undefined) {
      dumps[dumps.length - 1]!.file = event.text.slice('Dump to '.length).split('/').pop();
    }
  }
  const requests: Request[] = [];
  let forged: LogEvent | undefined;
  for (const [k, event] of own.entries()) {
    if (requestLine.test(event.text)) {
      // What the request did is the next line (valgrind runs it at once); nothing, or another request, when it logs nothing.
      const next = own[k + 1] && !schedulerLine.test(own[k + 1]!.text) ? own[k + 1] : undefined;
      requests.push({at: event.at, zero: !!next && zeroLine.test(next.text), dump: next && dumpAt.get(next.at), text: next?.text ?? ''});
      continue;
    }
    const announced = k > 0 && requestLine.test(own[k - 1]!.text);
    const effect = zeroLine.test(event.text) || (dumpAt.has(event.at) && dumpAt.get(event.at)!.trigger !== 'Prg.Term.');
    if (effect && !announced) forged ??= event;
  }
  const {cases, opens} = input;
  const spans: Span[] = cases.map((i) => ({i, from: Infinity, to: Infinity}));
  if (!requests.length) {
    blameAll(`valgrind logged no client request (the runner's request for --trace-sched did not take): nothing shows which requests ran`);
    return {spans, dumps};
  }
  if (forged) {
    blameAll(
      forged.at < requests[0]!.at
        ? `a zeroing or dump before the runner opened its first count ("${forged.text.slice(0, 80)}"): the solution issued it while loading`
        : `a line valgrind did not write in its log ("${forged.text.slice(0, 80)}"): the solution writes into the log`,
    );
  }
  // valgrind starts with instrumentation off (--instr-atstart=no) and the runner switches it on
  // once, just before it turns the trace on: a switch logged before the first traced request is
  // that one (or the solution's own while it loads, which counts nothing); any later one is not.
  const switched = own.find((event) => /instrumentation switched/.test(event.text) && event.at > requests[0]!.at);
  if (switched) blameAll('instrumentation was switched off during the run (STOP_INSTRUMENTATION)');
  if (dumps.filter((dump) => dump.trigger === 'Prg.Term.').length > 1) blameAll('more than one termination dump in the log');

  let opened = 0;
  let next = 0;
  let last: Dump | undefined;
  for (let r = 0; r < requests.length; r++) {
    const request = requests[r]!;
    const following = requests[r + 1];
    if (opened < opens && request.zero && following?.dump?.trigger === `Client Request: open-${opened}`) {
      last = following.dump;
      opened++;
      r++;
      continue;
    }
    const close = opened === opens ? request.dump && closeTrigger.exec(request.dump.trigger) : undefined;
    if (close && last && next < cases.length && Number(close[1]) === cases[next]) {
      Object.assign(spans[next++]!, {pre: last, post: request.dump, held: parseInt(close[2]!, 16), from: last.at, to: request.dump!.at});
      last = request.dump;
      continue;
    }
    blameAll(unexpected(request, opened < opens ? `open-${opened}` : `case-${cases[next] ?? '?'}/..`));
    break;
  }
  // A case without its closing dump (it never answered) runs from the last dump on.
  for (const span of spans) {
    if (span.post || !last) continue;
    span.pre = last;
    span.from = last.at;
    last = undefined;
  }
  return {spans, dumps};
}

/** Why a request is not the runner's, as a problem note. */
function unexpected(request: Request, expected: string): string {
  if (request.zero) return 'the costs were zeroed during the run (ZERO_STATS or a "zero" monitor command)';
  if (/instrumentation (switched|already)/.test(request.text)) return 'instrumentation was switched off during the run (STOP_INSTRUMENTATION)';
  if (request.dump) return `an unexpected dump "${request.dump.trigger.slice(0, 80)}" (expected "${expected}"): the solution issued or forged a dump`;
  return `a client request the runner did not issue${request.text ? ` ("${request.text.slice(0, 60)}")` : ''}: one valgrind runs without a trace (VALGRIND_NON_SIMD_CALL runs native code uncounted and unwatched; TOGGLE_COLLECT switches collection off)`;
}

/** The runner's part files by name; any other file in the folder, or a part no dump of the log wrote, voids the run. */
function partsOf(input: CountInput, runner: number, dumps: Dump[], blameAll: (problem: string) => void): Map<string, PartFile & {tooLarge?: boolean}> {
  const own = new Map<string, PartFile & {tooLarge?: boolean}>();
  const mine = new RegExp(`^${escape(input.runId)}\\.${runner}(\\.\\d+)?$`);
  const written = new Set(dumps.map((dump) => dump.file));
  for (const part of input.parts) {
    if (mine.test(part.name) && written.has(part.name)) own.set(part.name, part);
    else blameAll(`an unexpected file ${part.name.slice(0, 80)} in the counter's output folder (another process, or a forged part)`);
  }
  return own;
}

/**
 * valgrind's final block is written after the guest code has ended, so the
 * solution cannot unwrite it: exactly one `Collected :` line, equal to the sum
 * of `totals:` over every part of the runner (a part edited without
 * compensating elsewhere breaks the sum; zeroed costs are in neither).
 */
function checkTotals(own: LogEvent[], parts: Map<string, PartFile & {tooLarge?: boolean}>, blameAll: (problem: string) => void): void {
  const collected = own.filter((event) => event.text.startsWith('Collected :'));
  if (collected.length !== 1) {
    blameAll(
      collected.length
        ? `${collected.length} "Collected :" lines in valgrind's log, expected one`
        : `valgrind wrote no final count ("Collected :"): the runner did not exit normally`,
    );
    return;
  }
  const final = Number(collected[0]!.text.slice('Collected :'.length).trim());
  let sum = 0;
  for (const part of parts.values()) {
    const totals = totalsOf(part);
    if (totals === undefined) return blameAll(`the part ${part.name} has no "totals:" line`);
    sum += totals;
  }
  if (sum !== final) blameAll(`the parts' totals add up to ${sum}, but valgrind's final count is ${final}: a part file was changed`);
}

/** The case's instructions and blocks, or the problem with its part. */
function caseCount(span: Span, parts: Map<string, PartFile & {tooLarge?: boolean}>, held: number | undefined): CountResult {
  if (!span.pre || !span.post) return {problem: `instructions clock: case ${span.i} has no ${span.pre || span.from !== Infinity ? 'closing' : 'opening'} dump`};
  if (held !== undefined && held !== span.held) {
    return {
      problem: `instructions clock: the answer to case ${span.i} ends in byte ${hex(held)}, but ${hex(span.held!)} when its count was closed: it was changed after`,
    };
  }
  const part = span.post.file === undefined ? undefined : parts.get(span.post.file);
  if (!part) return {problem: `instructions clock: the dump of case ${span.i} was not written`};
  const trigger = /^desc: Trigger: (.*)$/m.exec(part.text)?.[1];
  if (trigger !== span.post.trigger)
    return {problem: `instructions clock: the part ${part.name} is not the dump of case ${span.i} (its trigger is ${JSON.stringify(trigger ?? null)})`};
  const instructions = totalsOf(part);
  if (instructions === undefined) return {problem: `instructions clock: the part ${part.name} has no "totals:" line`};
  const blocks = span.post.block - span.pre.block;
  // Every executed block has at least one instruction; fewer instructions than blocks means the count was lowered.
  if (!(blocks >= 0) || instructions < blocks) {
    return {
      problem: `instructions clock: case ${span.i} counted ${instructions} instructions in ${blocks} executed basic blocks: collection was switched off, or its part rewritten`,
    };
  }
  return {instructions, blocks};
}

function totalsOf(part: PartFile & {tooLarge?: boolean}): number | undefined {
  if (part.tooLarge) return undefined;
  const match = /^totals: (\d+)\s*$/m.exec(part.text);
  return match ? Number(match[1]) : undefined;
}

function hex(byte: number): string {
  return `0x${byte.toString(16).padStart(2, '0')}`;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
