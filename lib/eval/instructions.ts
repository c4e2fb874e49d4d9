/**
 * The instructions clock: how a run is counted by valgrind's callgrind, and how
 * the counts are read back (pure functions; point.ts reads the files).
 *
 * Every run goes through `valgrind --tool=callgrind` (valgrindArguments). The
 * runner marks each timed case with two labelled dumps, `pre-<i>` before
 * `run()` and `case-<i>` after the answer is converted (runner.py
 * --count-instructions): the part file whose trigger is `case-<i>` holds the
 * instructions every thread of the process executed in the case (its
 * `totals:` line), and the `-v` log says at which basic block each dump
 * started, so the case's executed blocks are the difference.
 *
 * The counter lives inside the solution's process, so the solution can reach
 * it (client requests, its own log fd, the output files). readCounts fails a
 * case on every trace of that the research found (lib/eval/README.md, "The
 * instructions clock"); what it cannot see is documented there too.
 */

/** Valgrind slows a run down about 20x (numpy's import takes ~6 s): start-up limits are scaled by this. */
export const instructionsSlowdown = 20;

/** Where a run's callgrind output folder appears inside the sandbox. */
export const counterFolderInside = '/callgrind';

/** The file descriptor valgrind writes its `-v` log to (the harness reads its other end). */
export const counterLogFd = 4;

/** A part file larger than this is not read (an honest part with --dump-instr=no is well under 10 MB). */
export const maxPartBytes = 64 << 20;

/**
 * valgrind's arguments up to the interpreter: callgrind, no gdb server, no per-instruction
 * or per-line costs (small files), children traced (an exec'd program shows in the log
 * instead of running uncounted), the log on counterLogFd, one output file per process and
 * dump. `runId` makes the names unique: inside the sandbox's PID namespace the pid is always 2.
 */
export function valgrindArguments(folder: string, runId: string): string[] {
  return [
    '--tool=callgrind',
    '--vgdb=no',
    '--dump-instr=no',
    '--dump-line=no',
    '--trace-children=yes',
    '-v',
    `--log-fd=${counterLogFd}`,
    `--callgrind-out-file=${folder}/${runId}.%p`,
  ];
}

/** Environment a counted run adds: the hash seed is the one source of variation in the counts between processes. */
export const counterEnvironment: Record<string, string> = {PYTHONHASHSEED: '0'};

/** One case's count. */
export interface CaseCount {
  /** Instructions executed in the case (Ir of its `case-<i>` part). */
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
}

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

const logLine = /^(?:==|--)(\d+)(?:==|--) ?(.*)$/;
const dumpLine = /^Start dumping at BB (\d+) \((.*)\)\.\.\.$/;

/**
 * Per timed case, its count or the problem that voids it. Every anomaly is a
 * problem of the case whose span (its `pre-<i>` to `case-<i>` dump) holds it,
 * else of the next case to start after it, else of the last case; a problem
 * of the whole run (the final count) voids every case.
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
  const dumps = runnerDumps(events, runner);
  const spans = caseSpans(dumps, input.cases);
  const blame = (at: number, problem: string) => {
    const owner = spans.find((span) => span.from <= at && at <= span.to) ?? spans.find((span) => span.from > at) ?? spans[spans.length - 1]!;
    if (!problems.has(owner.i)) problems.set(owner.i, `instructions clock: ${problem}`);
  };
  const blameAll = (problem: string) => {
    for (const i of input.cases) if (!problems.has(i)) problems.set(i, `instructions clock: ${problem}`);
  };

  let commands = 0;
  for (const event of events) {
    if (event.pid !== runner) {
      blame(event.at, `a second process (pid ${event.pid}) ran under the counter: a fork or an exec, whose work the case's count misses`);
    } else if (event.text.startsWith('Command: ') && ++commands > 1) {
      blame(event.at, `a second "Command:" line in valgrind's log (an exec, or a line written into the log)`);
    } else if (event.text.startsWith('Zeroing costs')) {
      blame(event.at, 'the costs were zeroed during the run (ZERO_STATS or a "zero" monitor command)');
    } else if (/instrumentation switched/.test(event.text)) {
      blame(event.at, 'instrumentation was switched off during the run (STOP_INSTRUMENTATION)');
    }
  }
  checkSequence(dumps, input.cases, blame);

  const own = partsOf(input, runner, blameAll);
  for (const dump of dumps) {
    if (dump.file !== undefined && !own.has(dump.file)) blame(dump.at, `the dump file ${dump.file} that the log names is missing`);
  }
  // Without the final block nothing checks the parts: a run that did not exit normally counts nothing.
  checkTotals(events, runner, own, blameAll);

  for (const span of spans) {
    const problem = problems.get(span.i);
    if (problem) {
      results.set(span.i, {problem});
      continue;
    }
    results.set(span.i, caseCount(span, own));
  }
  return results;
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

/** The runner's dumps, in log order, each with the file its `Dump to` line names. */
function runnerDumps(events: LogEvent[], runner: number): Dump[] {
  const dumps: Dump[] = [];
  for (const event of events) {
    if (event.pid !== runner) continue;
    const match = dumpLine.exec(event.text);
    if (match) dumps.push({at: event.at, block: Number(match[1]), trigger: match[2]!});
    else if (event.text.startsWith('Dump to ') && dumps.length && dumps[dumps.length - 1]!.file === undefined) {
      dumps[dumps.length - 1]!.file = event.text.slice('Dump to '.length).split('/').pop();
    }
  }
  return dumps;
}

/** A timed case's dumps: `pre-<i>` and `case-<i>` (either may be missing when the case never answered). */
interface Span {
  i: number;
  pre?: Dump;
  post?: Dump;
  /** Log positions the case covers. */
  from: number;
  to: number;
}

function caseSpans(dumps: Dump[], cases: number[]): Span[] {
  const spans = cases.map((i): Span => {
    const pre = dumps.find((dump) => dump.trigger === `Client Request: pre-${i}`);
    const post = dumps.find((dump) => dump.trigger === `Client Request: case-${i}`);
    return {i, pre, post, from: pre?.at ?? Infinity, to: post?.at ?? Infinity};
  });
  // A case without its closing dump runs until the next case's opening one.
  for (const [k, span] of spans.entries()) {
    if (span.post) continue;
    span.to = spans.slice(k + 1).find((next) => next.pre)?.pre!.at ?? Infinity;
  }
  return spans;
}

/**
 * The dumps must be exactly pre-<i>, case-<i> for each timed case in order,
 * then the termination dump: any other (a forged label, a dump the solution
 * asked for, a `--dump-before` function it called) voids the case it falls in.
 */
function checkSequence(dumps: Dump[], cases: number[], blame: (at: number, problem: string) => void): void {
  const expected = cases.flatMap((i) => [`Client Request: pre-${i}`, `Client Request: case-${i}`]);
  let k = 0;
  for (const dump of dumps) {
    if (dump.trigger === 'Prg.Term.') continue;
    if (dump.trigger === expected[k]) {
      k++;
      continue;
    }
    blame(dump.at, `an unexpected dump "${dump.trigger.slice(0, 80)}" (expected "${expected[k] ?? 'none'}"): the solution issued or forged a dump`);
    return;
  }
  const terms = dumps.filter((dump) => dump.trigger === 'Prg.Term.');
  if (terms.length > 1) blame(terms[1]!.at, 'more than one termination dump in the log');
}

/** The runner's part files by name; any other file in the folder voids the run. */
function partsOf(input: CountInput, runner: number, blameAll: (problem: string) => void): Map<string, PartFile & {tooLarge?: boolean}> {
  const own = new Map<string, PartFile & {tooLarge?: boolean}>();
  const mine = new RegExp(`^${escape(input.runId)}\\.${runner}(\\.\\d+)?$`);
  for (const part of input.parts) {
    if (mine.test(part.name)) own.set(part.name, part);
    else blameAll(`an unexpected file ${part.name.slice(0, 80)} in the counter's output folder (another process, or a forged part)`);
  }
  return own;
}

/**
 * valgrind's final block is written after the guest code has ended, so the
 * solution cannot unwrite it: exactly one `Collected :` line, equal to the sum
 * of `totals:` over every part of the runner (a part edited without
 * compensating elsewhere breaks the sum).
 */
function checkTotals(events: LogEvent[], runner: number, own: Map<string, PartFile & {tooLarge?: boolean}>, blameAll: (problem: string) => void): void {
  const collected = events.filter((event) => event.pid === runner && event.text.startsWith('Collected :'));
  if (collected.length !== 1) {
    blameAll(collected.length ? `${collected.length} "Collected :" lines in valgrind's log, expected one` : `valgrind wrote no final count ("Collected :"): the runner did not exit normally`);
    return;
  }
  const final = Number(collected[0]!.text.slice('Collected :'.length).trim());
  let sum = 0;
  for (const part of own.values()) {
    const totals = totalsOf(part);
    if (totals === undefined) return blameAll(`the part ${part.name} has no "totals:" line`);
    sum += totals;
  }
  if (sum !== final) blameAll(`the parts' totals add up to ${sum}, but valgrind's final count is ${final}: a part file was changed`);
}

/** The case's instructions and blocks, or the problem with its part. */
function caseCount(span: Span, own: Map<string, PartFile & {tooLarge?: boolean}>): CountResult {
  if (!span.pre || !span.post) return {problem: `instructions clock: case ${span.i} has no ${span.pre ? 'closing' : 'opening'} dump`};
  const part = span.post.file === undefined ? undefined : own.get(span.post.file);
  if (!part) return {problem: `instructions clock: the dump of case ${span.i} was not written`};
  const trigger = /^desc: Trigger: (.*)$/m.exec(part.text)?.[1];
  if (trigger !== `Client Request: case-${span.i}`) return {problem: `instructions clock: the part ${part.name} is not the dump of case ${span.i} (its trigger is ${JSON.stringify(trigger ?? null)})`};
  const instructions = totalsOf(part);
  if (instructions === undefined) return {problem: `instructions clock: the part ${part.name} has no "totals:" line`};
  const blocks = span.post.block - span.pre.block;
  // Every executed block has at least one instruction; fewer instructions than blocks means collection was off.
  if (!(blocks >= 0) || instructions < blocks) {
    return {problem: `instructions clock: case ${span.i} counted ${instructions} instructions in ${blocks} executed basic blocks: collection was switched off (TOGGLE_COLLECT)`};
  }
  return {instructions, blocks};
}

function totalsOf(part: PartFile & {tooLarge?: boolean}): number | undefined {
  if (part.tooLarge) return undefined;
  const match = /^totals: (\d+)\s*$/m.exec(part.text);
  return match ? Number(match[1]) : undefined;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
