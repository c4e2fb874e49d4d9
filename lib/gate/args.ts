/**
 * The gate's command line, parsed as the reference's Python 3.11 argparse parser
 * parses it (`build_parser()` in spec/agent_gate_reference.py): `-h/--help` and
 * four options that take one value each (`--spec`, `--cases`, `--results`,
 * `--candidate`). Ported from argparse's own algorithm, so that every argument
 * list gets the same outcome, stdout, stderr and exit code:
 *
 * - unique prefixes of long options (`--cand x`, `--res=x`); an ambiguous one
 *   (`--c`) is an error found before anything else;
 * - `--opt=value`, `-hVALUE`-style single-dash tails, a repeated option keeps its
 *   last value;
 * - a value must not look like an option (`--spec --cases` is "expected one
 *   argument"), except a negative number or a word with a space;
 * - `--` makes every later word a positional, and this parser has none, so they
 *   are "unrecognized arguments" (the `--` too); `--spec=--` gives an empty list
 *   as argparse does (the reference then crashes, and so does the port's run);
 * - `-h` prints the help when it is reached, even after unknown words;
 * - errors print the usage and `<prog>: error: <message>` on stderr, exit 2.
 *
 * The usage and help are laid out as argparse's HelpFormatter does at the
 * terminal width Python would see (COLUMNS, else the terminal, else 80).
 */
import {reprString} from './py.js';

/** What the command line asks for: run the gate with these options, or print and exit. */
export type GateArgs = {kind: 'run'; options: GateArgValues} | {kind: 'exit'; stdout: string; stderr: string; exitCode: 0 | 2};

/** Option values as argparse leaves them: a string, or an empty list for `--opt=--`. */
interface GateArgValues {
  spec?: string | [];
  cases?: string | [];
  results?: string | [];
  candidate?: string | [];
}

type Dest = keyof GateArgValues;
interface Action {
  dest: Dest | 'help';
  strings: string[];
  /** 0 for help, 1 for the value options. */
  nargs: 0 | 1;
  metavar?: string;
  help?: string;
}

const HELP: Action = {dest: 'help', strings: ['-h', '--help'], nargs: 0, help: 'show this help message and exit'};

/**
 * What each option means, in `--help`. The reference gives its options no
 * help text; arbor describes them (issue 20), laid out exactly as argparse
 * lays out a help text, and keeps every other byte of the reference's
 * behaviour. No `%`: argparse would read it as a format.
 */
export const optionHelp: Readonly<Record<Exclude<Dest, 'help'>, string>> = {
  spec: 'the benchmark spec (JSON): splits, metrics, thresholds and the frozen private test split (default: benchmark_spec.json in the current folder)',
  cases: 'the cases (JSON) the results refer to, one per task of the spec (default: benchmark_cases.json)',
  results: 'the results (JSON) of the baseline and the candidates over the test split (default: benchmark_results_pass.json)',
  candidate: 'the candidate in the results to decide on: PASS, REVIEW, BLOCK or INCOMPARABLE against the baseline (default: candidate-pass)',
};

const ACTIONS: Action[] = [
  HELP,
  {dest: 'spec', strings: ['--spec'], nargs: 1, metavar: 'SPEC', help: optionHelp.spec},
  {dest: 'cases', strings: ['--cases'], nargs: 1, metavar: 'CASES', help: optionHelp.cases},
  {dest: 'results', strings: ['--results'], nargs: 1, metavar: 'RESULTS', help: optionHelp.results},
  {dest: 'candidate', strings: ['--candidate'], nargs: 1, metavar: 'CANDIDATE', help: optionHelp.candidate},
];
/** Option strings in the order argparse registered them (the order of "could match" lists). */
const OPTION_STRINGS = new Map<string, Action>(ACTIONS.flatMap((action) => action.strings.map((s) => [s, action] as const)));
const DESCRIPTION = 'Validate and compare a strict offline Agent benchmark result package.';
const NEGATIVE_NUMBER = /^-\d+$|^-\d*\.\d+$/;

/** Where argparse stops: an error (exit 2) or the help (exit 0). */
class Exit {
  constructor(
    readonly stdout: string,
    readonly stderr: string,
    readonly exitCode: 0 | 2,
  ) {}
}

/** An argparse `ArgumentError`: `argument <names>: <message>`. */
class ArgumentError {
  constructor(
    readonly action: Action,
    readonly message: string,
  ) {}
  toString(): string {
    return `argument ${this.action.strings.join('/')}: ${this.message}`;
  }
}

type OptionTuple = [Action | undefined, string, string | undefined];

/**
 * Parse `argv` (the words after `arbor benchmark gate`) as the reference's parser does.
 * `prog` names the program in usage lines; `columns` is the terminal width Python would see.
 */
export function parseGateArgs(argv: readonly string[], prog: string, columns: number): GateArgs {
  const formatter = new Formatter(prog, columns);
  const error = (message: string): never => {
    throw new Exit('', `${formatter.usage()}${prog}: error: ${message}\n`, 2);
  };
  try {
    const values = parse([...argv], error, () => {
      throw new Exit(formatter.help(), '', 0);
    });
    return {kind: 'run', options: values};
  } catch (caught) {
    if (caught instanceof Exit) return {kind: 'exit', stdout: caught.stdout, stderr: caught.stderr, exitCode: caught.exitCode};
    throw caught;
  }
}

/** The terminal width Python's `shutil.get_terminal_size()` reports. */
export function pythonColumns(env: NodeJS.ProcessEnv, stdout: {isTTY?: boolean; columns?: number}): number {
  // int() of the variable, as Python reads it (surrounding white space, a sign and underscores between digits).
  const text = env.COLUMNS?.trim();
  if (text && /^[+-]?\d+(?:_\d+)*$/.test(text)) {
    const columns = Number(text.replace(/_/g, ''));
    if (columns > 0) return columns;
  }
  if (stdout.isTTY && stdout.columns && stdout.columns > 0) return stdout.columns;
  return 80;
}

function parse(args: string[], error: (message: string) => never, help: () => never): GateArgValues {
  // Classify every word first, as argparse does: 'O' an option, 'A' an argument, '-' the `--`.
  const optionAt = new Map<number, OptionTuple>();
  let pattern = '';
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--') {
      pattern += '-' + 'A'.repeat(args.length - i - 1);
      break;
    }
    const tuple = parseOptional(args[i]!, error);
    if (tuple) optionAt.set(i, tuple);
    pattern += tuple ? 'O' : 'A';
  }

  const values: GateArgValues = {};
  const extras: string[] = [];
  const take = (action: Action, strings: string[]) => {
    if (action === HELP) help();
    // argparse drops the first `--` of an option's strings (so `--spec=--` is an empty list).
    const dashes = strings.indexOf('--');
    if (dashes !== -1) strings.splice(dashes, 1);
    values[action.dest as Dest] = strings.length === 1 ? strings[0]! : [];
  };
  const matchArgument = (action: Action, patterns: string): number => {
    if (action.nargs === 0) return 0;
    if (patterns[0] !== 'A') throw new ArgumentError(action, 'expected one argument');
    return 1;
  };
  const consumeOptional = (start: number): number => {
    let [action, optionString, explicit] = optionAt.get(start)!;
    const taken: [Action, string[]][] = [];
    let stop: number;
    for (;;) {
      if (action === undefined) {
        extras.push(args[start]!);
        return start + 1;
      }
      if (explicit !== undefined) {
        const count = matchArgument(action, 'A');
        if (count === 0 && optionString[1] !== '-' && explicit !== '') {
          // A single-dash flag with a tail: the tail is more single-dash flags (`-hh`).
          taken.push([action, []]);
          optionString = optionString[0]! + explicit[0]!;
          const next = OPTION_STRINGS.get(optionString);
          if (!next) throw new ArgumentError(action, `ignored explicit argument ${reprString(explicit)}`);
          action = next;
          explicit = explicit.slice(1) || undefined;
        } else if (count === 1) {
          stop = start + 1;
          taken.push([action, [explicit]]);
          break;
        } else {
          throw new ArgumentError(action, `ignored explicit argument ${reprString(explicit)}`);
        }
      } else {
        const from = start + 1;
        const count = matchArgument(action, pattern.slice(from));
        stop = from + count;
        taken.push([action, args.slice(from, stop)]);
        break;
      }
    }
    for (const [a, strings] of taken) take(a, strings);
    return stop;
  };

  try {
    let start = 0;
    const optionIndices = [...optionAt.keys()];
    const last = optionIndices.length ? Math.max(...optionIndices) : -1;
    while (start <= last) {
      const next = Math.min(...optionIndices.filter((i) => i >= start));
      // There are no positionals: the words before the next option are extras.
      if (start !== next) {
        extras.push(...args.slice(start, next));
        start = next;
      }
      start = consumeOptional(start);
    }
    extras.push(...args.slice(start));
  } catch (caught) {
    if (caught instanceof ArgumentError) error(caught.toString());
    throw caught;
  }
  if (extras.length) error(`unrecognized arguments: ${extras.join(' ')}`);
  return values;
}

/** argparse's `_parse_optional`: what a word is, as an option. */
function parseOptional(arg: string, error: (message: string) => never): OptionTuple | undefined {
  if (!arg || arg[0] !== '-') return undefined;
  const exact = OPTION_STRINGS.get(arg);
  if (exact) return [exact, arg, undefined];
  if (arg.length === 1) return undefined;
  const eq = arg.indexOf('=');
  if (eq !== -1) {
    const action = OPTION_STRINGS.get(arg.slice(0, eq));
    if (action) return [action, arg.slice(0, eq), arg.slice(eq + 1)];
  }
  const tuples = optionTuples(arg);
  if (tuples.length > 1) error(`ambiguous option: ${arg} could match ${tuples.map((t) => t[1]).join(', ')}`);
  if (tuples.length === 1) return tuples[0];
  if (NEGATIVE_NUMBER.test(arg)) return undefined;
  if (arg.includes(' ')) return undefined;
  return [undefined, arg, undefined];
}

/** argparse's `_get_option_tuples`: the options a word could abbreviate. */
function optionTuples(arg: string): OptionTuple[] {
  const result: OptionTuple[] = [];
  if (arg[1] === '-') {
    const eq = arg.indexOf('=');
    const prefix = eq === -1 ? arg : arg.slice(0, eq);
    const explicit = eq === -1 ? undefined : arg.slice(eq + 1);
    for (const [string, action] of OPTION_STRINGS) if (string.startsWith(prefix)) result.push([action, string, explicit]);
  } else {
    const short = arg.slice(0, 2);
    for (const [string, action] of OPTION_STRINGS) {
      if (string === short) result.push([action, string, arg.slice(2)]);
      else if (string.startsWith(arg)) result.push([action, string, undefined]);
    }
  }
  return result;
}

/** The parts of argparse's HelpFormatter this parser uses, at Python's width (`columns - 2`). */
class Formatter {
  private readonly width: number;
  private readonly maxHelpPosition: number;

  constructor(
    private readonly prog: string,
    columns: number,
  ) {
    this.width = columns - 2;
    this.maxHelpPosition = Math.min(24, Math.max(this.width - 20, 4));
  }

  /** `format_usage()`: `usage: <prog> [-h] [--spec SPEC] …`, wrapped. */
  usage(): string {
    return `usage: ${this.usageBody()}\n`;
  }

  /** `format_help()`: usage, description, the options section. */
  help(): string {
    const description = fill(DESCRIPTION, Math.max(this.width, 11), '');
    // Inside the section the indent is 2; the longest invocation sets the help column.
    const invocations = ACTIONS.map(invocation);
    const helpPosition = Math.min(Math.max(...invocations.map((s) => s.length)) + 2 + 2, this.maxHelpPosition);
    const helpWidth = Math.max(this.width - helpPosition, 11);
    const actionWidth = helpPosition - 2 - 2;
    let options = '';
    ACTIONS.forEach((action, k) => {
      const header = invocations[k]!;
      if (!action.help) {
        options += `  ${header}\n`;
        return;
      }
      const lines = wrap(action.help, helpWidth);
      if (header.length <= actionWidth) options += `  ${header.padEnd(actionWidth)}  ${lines[0]}\n`;
      else options += `  ${header}\n${' '.repeat(helpPosition)}${lines[0]}\n`;
      for (const line of lines.slice(1)) options += `${' '.repeat(helpPosition)}${line}\n`;
    });
    return `usage: ${this.usageBody()}\n\n${description}\n\noptions:\n${options}`;
  }

  /** `_format_usage` without its prefix: the prog and the optionals, wrapped as argparse wraps them. */
  private usageBody(): string {
    const prefix = 'usage: ';
    const parts = ACTIONS.map((action) => `[${action.nargs ? `${action.strings[0]} ${action.metavar}` : action.strings[0]}]`);
    const usage = [this.prog, ...parts].join(' ');
    const textWidth = this.width;
    if (prefix.length + usage.length <= textWidth) return usage;
    const lines = (items: string[], indent: string, withPrefix: boolean): string[] => {
      const out: string[] = [];
      let line: string[] = [];
      let length = withPrefix ? prefix.length - 1 : indent.length - 1;
      for (const part of items) {
        if (length + 1 + part.length > textWidth && line.length) {
          out.push(indent + line.join(' '));
          line = [];
          length = indent.length - 1;
        }
        line.push(part);
        length += part.length + 1;
      }
      if (line.length) out.push(indent + line.join(' '));
      if (withPrefix) out[0] = out[0]!.slice(indent.length);
      return out;
    };
    if (prefix.length + this.prog.length <= 0.75 * textWidth) {
      const indent = ' '.repeat(prefix.length + this.prog.length + 1);
      return lines([this.prog, ...parts], indent, true).join('\n');
    }
    // A long prog goes on its own line (there are no positionals, so one block of optionals).
    return [this.prog, ...lines(parts, ' '.repeat(prefix.length), false)].join('\n');
  }
}

function invocation(action: Action): string {
  return action.nargs ? action.strings.map((s) => `${s} ${action.metavar}`).join(', ') : action.strings.join(', ');
}

/**
 * Python's `textwrap.wrap` for the texts this help holds (no hyphens or tabs, no word longer
 * than the width, which is at least 11): greedy lines of whole words.
 */
/**
 * textwrap's chunks (`wordsep_re` with `break_on_hyphens`): runs of
 * whitespace, and words, a hyphenated word split after each hyphen that has
 * two letters before it and a letter after (`candidate-pass`: `candidate-`,
 * `pass`); textwrap's em-dash cases do not occur in the texts wrapped here.
 */
const wordSeparators = /\s+|\S+?(?:-(?:(?<=[\p{L}_]{2}-)|(?<=[\p{L}_]-[\p{L}_]-))(?=[\p{L}_]-?[\p{L}_])|(?=\s|$))/gu;

/**
 * textwrap.wrap as argparse calls it (whitespace already collapsed): the
 * chunks above; a line takes chunks while they fit; a chunk longer than the
 * width is broken to fill the rest of the line (`break_long_words`), and a
 * line never starts or ends with a space.
 */
function wrap(text: string, width: number): string[] {
  // Chunks in reverse, as textwrap keeps them: the next chunk is the last.
  const chunks = (text.trim().match(wordSeparators) ?? []).map((chunk) => (chunk.trim() ? chunk : ' ')).reverse();
  const lines: string[] = [];
  while (chunks.length) {
    const line: string[] = [];
    let length = 0;
    // A line never starts with a space.
    if (chunks[chunks.length - 1] === ' ' && lines.length) chunks.pop();
    while (chunks.length && length + chunks[chunks.length - 1]!.length <= width) {
      const chunk = chunks.pop()!;
      line.push(chunk);
      length += chunk.length;
    }
    if (chunks.length && chunks[chunks.length - 1]!.length > width) {
      // A word longer than a line: as much of it as the line has room for (at least one character).
      const chunk = chunks[chunks.length - 1]!;
      let room = width < 1 ? 1 : width - length;
      // Broken after its last hyphen within the room, when one has something other than hyphens before it.
      const hyphen = chunk.lastIndexOf('-', room - 1);
      if (hyphen > 0 && /[^-]/.test(chunk.slice(0, hyphen))) room = hyphen + 1;
      line.push(chunk.slice(0, room));
      chunks[chunks.length - 1] = chunk.slice(room);
      if (!chunks[chunks.length - 1]) chunks.pop();
    }
    if (line.length && line[line.length - 1] === ' ') line.pop();
    if (line.length) lines.push(line.join(''));
  }
  return lines;
}

function fill(text: string, width: number, indent: string): string {
  return wrap(text, width - indent.length)
    .map((line) => indent + line)
    .join('\n');
}
