/**
 * What a failed run says, taken on no trust: the runner's frames of a crash
 * (their shape only), a crash's note (on secret cases the exception's type when
 * it is Python's or numpy's own, never its message), and the error of a runner
 * that never started.
 */
import {HarnessError} from '../errors.js';
import type {RunnerFrame, RunOutcome} from './run-types.js';

/** The HarnessError for a run whose runner never started (python, numpy or the runner itself broken). */
export function startFailure(python: string, outcome: RunOutcome): HarnessError {
  if (/No module named .?numpy|numpy is not installed/.test(outcome.stderrTail)) {
    return new HarnessError(
      `numpy is not installed for ${python}: run '${python} -m pip install numpy' (or set ARBOR_PYTHON; arbor doctor says which python arbor picks)`,
      'no-numpy',
    );
  }
  const last = outcome.stderrTail.trim().split('\n').pop() || `exit code ${outcome.exitCode ?? outcome.signal}`;
  return new HarnessError(`${python} could not start arbor's runner: ${last.slice(0, 300)}`, 'no-python');
}

/** The most frames of a crash kept (the innermost), and the longest file name taken. */
const maxFrames = 3;
const maxFrameFile = 200;

/** The runner's `where` as frames of the right shape (a relative file name and a line), the innermost maxFrames; anything else is left out. */
export function framesOf(value: unknown): RunnerFrame[] {
  if (!Array.isArray(value)) return [];
  const frames: RunnerFrame[] = [];
  for (const item of value.slice(-maxFrames)) {
    if (typeof item !== 'object' || item === null) continue;
    const {file, line} = item as Record<string, unknown>;
    if (typeof file !== 'string' || !file || file.length > maxFrameFile || !Number.isSafeInteger(line) || (line as number) < 1) continue;
    frames.push({file, line: line as number});
  }
  return frames;
}

/**
 * The names of Python's built-in exceptions and numpy's own: on secret cases a
 * crash is named by its exception's type only when it is one of these. A name
 * the solution chose could spell out a value of the case.
 */
const knownExceptions = new Set([
  ...'ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup BlockingIOError BrokenPipeError BufferError BytesWarning ChildProcessError'.split(
    ' ',
  ),
  ...'ConnectionAbortedError ConnectionError ConnectionRefusedError ConnectionResetError DeprecationWarning EOFError EncodingWarning EnvironmentError Exception'.split(
    ' ',
  ),
  ...'ExceptionGroup FileExistsError FileNotFoundError FloatingPointError FutureWarning GeneratorExit IOError ImportError ImportWarning IndentationError IndexError'.split(
    ' ',
  ),
  ...'InterruptedError IsADirectoryError KeyError KeyboardInterrupt LookupError MemoryError ModuleNotFoundError NameError NotADirectoryError NotImplementedError'.split(
    ' ',
  ),
  ...'OSError OverflowError PendingDeprecationWarning PermissionError ProcessLookupError PythonFinalizationError RecursionError ReferenceError ResourceWarning'.split(
    ' ',
  ),
  ...'RuntimeError RuntimeWarning StopAsyncIteration StopIteration SyntaxError SyntaxWarning SystemError SystemExit TabError TimeoutError TypeError UnboundLocalError'.split(
    ' ',
  ),
  ...'UnicodeDecodeError UnicodeEncodeError UnicodeError UnicodeTranslateError UnicodeWarning UserWarning ValueError Warning ZeroDivisionError'.split(' '),
  // numpy's (numpy.exceptions, numpy.linalg, and the private classes its ufuncs and allocator raise)
  ...'AxisError ComplexWarning DTypePromotionError LinAlgError TooHardError UFuncTypeError VisibleDeprecationWarning RankWarning _ArrayMemoryError'.split(' '),
  ...'_UFuncBinaryResolutionError _UFuncCastingError _UFuncInputCastingError _UFuncNoLoopError _UFuncOutputCastingError'.split(' '),
]);

/** A crash's note on secret cases: the exception's type when it is Python's or numpy's own, never its message (which may carry a value of the case). */
export function secretCrashNote(error: unknown): string {
  const name = typeof error === 'string' && knownExceptions.has(error) ? error : "an exception of the solution's own class";
  return `${name}: message withheld (secret test cases)`;
}

export function crashNote(error: unknown, stderrTail: string): string {
  const lines = stderrTail
    .trim()
    .split('\n')
    .filter((line) => !line.startsWith('runner.py: protocol error'));
  const last = lines[lines.length - 1]?.trim();
  const message = error instanceof Error ? error.message : String(error);
  return (last && message === 'the runner closed its channel' ? last : message).slice(0, 300);
}
