/**
 * TOML syntax errors as an author reads them: smol-toml's message with the line
 * and column where the mistake is, which is not always where the parser noticed
 * it. Shared by plan.toml (lib/benchmark/plan.ts) and fherma.toml (lib/bundle/bundle.ts).
 */

/** A TOML syntax error: a one-line message and, when known, the 1-based line and column of the mistake. */
export interface TomlProblem {
  message: string;
  line?: number;
  column?: number;
}

/**
 * Where and what the mistake of a smol-toml parse error is. Reworded where the parser misleads:
 * a string that runs to the end of its line is reported as "control characters are not allowed
 * in strings" (the line ending is one), and an array or inline table left open is noticed only at
 * the next line that cannot continue it, often lines later: the place given is then the bracket
 * left open.
 */
export function locateTomlError(error: unknown, text: string): TomlProblem {
  const {line, column} = error as {line?: number; column?: number};
  let message = String((error as Error)?.message ?? error)
    .split('\n', 1)[0]!
    .replace(/^Invalid TOML document: /, '');
  if (typeof line !== 'number' || typeof column !== 'number') return {message};
  const lines = text.split(/\r?\n/);
  if (/control characters/.test(message) && lines[line - 1]?.[column - 1] === undefined) {
    return {message: 'a string is not closed before the end of its line (close it with its quote, or use """ for a multi-line string)', line, column};
  }
  // A line that starts a new key or table while a bracket is still open: the bracket was never closed.
  if (/^\s*(\[|[A-Za-z0-9_"'-]+\s*=)/.test(lines[line - 1] ?? '')) {
    const open = unclosedBracket(lines, line, 1);
    if (open && open.line < line) {
      const kind = open.char === '[' ? 'an array' : 'an inline table';
      return {
        message: `${kind} opened here is not closed (close it with "${open.char === '[' ? ']' : '}'}" before line ${line})`,
        line: open.line,
        column: open.column,
      };
    }
  }
  return {message, line, column};
}

/** The message of `locateTomlError` led by its line: `line 3: …`. */
export function tomlProblem(error: unknown, text: string): string {
  const problem = locateTomlError(error, text);
  return problem.line === undefined ? problem.message : `line ${problem.line}: ${problem.message}`;
}

/**
 * The innermost `[` or `{` of a value still open at (line, column), scanning from the start of
 * the text: brackets inside strings and comments are skipped, and a table header (`[x]` at the
 * start of a line, outside any value) opens nothing.
 */
function unclosedBracket(lines: readonly string[], line: number, column: number): {char: string; line: number; column: number} | undefined {
  const stack: {char: string; line: number; column: number}[] = [];
  for (let l = 0; l < line && l < lines.length; l++) {
    const text = lines[l]!;
    const end = l === line - 1 ? column - 1 : text.length;
    // A table header (`[dev]`) outside any value opens nothing.
    if (stack.length === 0 && /^\s*\[/.test(text)) continue;
    let quote: string | undefined;
    for (let c = 0; c < end; c++) {
      const ch = text[c]!;
      if (quote) {
        if (ch === '\\' && quote === '"') c++;
        else if (ch === quote) quote = undefined;
        continue;
      }
      if (ch === '#') break;
      if (ch === '"' || ch === "'") quote = ch;
      else if (ch === '[' || ch === '{') stack.push({char: ch, line: l + 1, column: c + 1});
      else if (ch === ']' || ch === '}') stack.pop();
    }
  }
  return stack.at(-1);
}
