/**
 * What of a case leaves an eval: the one decision, made where the eval forms
 * its per-case results (point-verify.ts), so that the score line, `--json`,
 * the per-repetition reports, a queue worker's reply, the ledger and MCP all
 * carry the same form (each of them reads the report; none re-derives a case).
 *
 * On dev and on published test seeds a case keeps every detail arbor has: a
 * crash's message and frames, the verifier's metrics and first wrong element,
 * a fresh case's seed. On secret cases (salted test seeds, a speed plan's
 * fresh test cases, a sealed submission's) the solution knows the inputs and
 * everyone reading the outputs must not: anything it chooses that reaches an
 * output is a channel out. It chooses far more than a message: the line it
 * raises from (code compiled under its own file name, padded to any length),
 * the depth of its frames, a class made at run time and named by the data,
 * the keys of a dict it returns (the runner's note quotes them), which element
 * it gets wrong and by how much (the verifier's metrics). So there a case
 * keeps its status, its times and its score, and a note from a fixed
 * vocabulary: one sentence per status, a crash named by its exception's type
 * only when that is one of Python's built-in exception names. No message, no
 * frame, no line or its text, no seed, no metric but the plan's accuracy
 * numerator and denominator (its score is their ratio), no first wrong
 * element. What a solution can still choose is that vocabulary per case and
 * repetition, and its times (docs: lib/sandbox/README.md, "What leaves a run").
 */
import type {CaseReport, CaseStatus, RepetitionReport} from './types.js';

/** How a point's cases are shown. */
export interface ShownCases {
  /** The cases are secret (EvalContext.secretCases). */
  secret: boolean;
  /** Secret cases keep these metrics only: an accuracy plan's numerator and denominator, which its score is made of. */
  scoreMetrics: readonly string[];
}

/** The notes of secret cases, one per status; a crash's is crashNote's. */
const withheld = 'details withheld (secret test cases)';
const statusNotes: Record<Exclude<CaseStatus, 'crashed'>, string | undefined> = {
  ok: undefined,
  'not-run': undefined,
  timeout: `over its time limit; ${withheld}`,
  'no-answer': `no answer could be read; ${withheld}`,
  failed: `wrong answer; ${withheld}`,
  tampered: `tampering detected; ${withheld}`,
};

/**
 * Python's built-in exception names (3.9 to 3.13): the only type a crash on
 * secret cases is named by, any other is `Exception`. A class the solution
 * makes can be named by the data (`type(f"E{bits}", (Exception,), {})`);
 * numpy's own classes are left out too, so the vocabulary is Python's alone.
 */
const builtinExceptions = new Set(
  (
    'ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup BlockingIOError BrokenPipeError BufferError BytesWarning ' +
    'ChildProcessError ConnectionAbortedError ConnectionError ConnectionRefusedError ConnectionResetError DeprecationWarning EOFError ' +
    'EncodingWarning EnvironmentError Exception ExceptionGroup FileExistsError FileNotFoundError FloatingPointError FutureWarning GeneratorExit ' +
    'IOError ImportError ImportWarning IndentationError IndexError InterruptedError IsADirectoryError KeyError KeyboardInterrupt LookupError ' +
    'MemoryError ModuleNotFoundError NameError NotADirectoryError NotImplementedError OSError OverflowError PendingDeprecationWarning ' +
    'PermissionError ProcessLookupError PythonFinalizationError RecursionError ReferenceError ResourceWarning RuntimeError RuntimeWarning ' +
    'StopAsyncIteration StopIteration SyntaxError SyntaxWarning SystemError SystemExit TabError TimeoutError TypeError UnboundLocalError ' +
    'UnicodeDecodeError UnicodeEncodeError UnicodeError UnicodeTranslateError UnicodeWarning UserWarning ValueError Warning ZeroDivisionError'
  ).split(' '),
);

/** The exception's type a note starts with (`IndexError: …`), as shown on secret cases: a built-in name, else `Exception`. */
function exceptionShown(note: string | undefined): string {
  const name = /^([A-Za-z_][A-Za-z0-9_]*):/.exec(note ?? '')?.[1];
  return name !== undefined && builtinExceptions.has(name) ? name : 'Exception';
}

/**
 * A crash's note on secret cases. The harness's own words for how a run
 * ended (it ended before answering, it hit a limit of the plan) are kept as
 * fixed sentences; whatever the runner said (an exception's message, a start
 * failure's) is cut to the exception's type.
 */
function crashNote(note: string | undefined): string {
  const text = note ?? '';
  if (text.startsWith('the run went over its memory limit')) return 'the run went over its memory limit (plan.toml memory_mb) and was killed';
  if (text.startsWith('the run reached its limit of')) return 'the run reached its limit of processes and threads (plan.toml processes)';
  if (text.startsWith('the process ended before answering')) return 'the process ended before answering';
  const start = /^the solution failed to start \((.*)\)$/s.exec(text);
  if (start) return `the solution failed to start (${exceptionShown(start[1])}: message withheld (secret test cases))`;
  return `${exceptionShown(text)}: message withheld (secret test cases)`;
}

/** The note a secret case or repetition shows for its status and the note it had. */
function secretNote(status: CaseStatus, note: string | undefined): string | undefined {
  return status === 'crashed' ? crashNote(note) : statusNotes[status];
}

/** One repetition as shown: on secret cases its status, whether it passed, its times and a fixed note; otherwise as it is. */
function shownRepetition(repetition: RepetitionReport, shown: ShownCases): RepetitionReport {
  if (!shown.secret) return repetition;
  const {where: _where, note, ...kept} = repetition;
  const text = secretNote(repetition.status, note);
  return text === undefined ? kept : {...kept, note: text};
}

/**
 * A case as it leaves the eval (the report, and all that reads it). On secret
 * cases: status, passed, times, ratio, the score's metrics and a fixed note
 * (secretNote); its repetitions alike (shownRepetition). Otherwise as it is.
 */
export function shownCase(report: CaseReport, shown: ShownCases): CaseReport {
  if (!shown.secret) return report;
  const {where: _where, seed: _seed, failure: _failure, note, metrics, repetitions, ...kept} = report;
  const scored = metrics && shown.scoreMetrics.filter((name) => name in metrics);
  const text = secretNote(report.status, note);
  return {
    ...kept,
    ...(scored?.length ? {metrics: Object.fromEntries(scored.map((name) => [name, metrics![name]]))} : {}),
    ...(text === undefined ? {} : {note: text}),
    repetitions: repetitions.map((each) => shownRepetition(each, shown)),
  };
}

/** A verifier's exception on secret cases, for the warning that names it: its type only (it may quote the answer the solution chose). */
export function shownVerifierError(error: string, secret: boolean): string {
  return secret ? `${exceptionShown(error)}: message withheld (secret test cases)` : error;
}
