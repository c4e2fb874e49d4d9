/**
 * Source mutants of a verifier (`verify.mjs`, `verify.py`): one small edit of
 * its text each, the edits a verifier that checks less would differ by: a
 * comparison flipped, `&&` and `||` swapped, a condition dropped, a
 * float literal (a tolerance) 1000 times larger, a loop that visits every
 * other row, `passed` forced true. Comments and strings are masked first, so
 * only code is edited.
 */

/** One edit of the verifier's text. */
export interface SourceMutant {
  name: string;
  changes: string;
  /** The mutated text. */
  text: string;
}

type Language = 'js' | 'py';

/**
 * The text with every comment and string literal blanked out (same length), so edits only touch code.
 * @public read by test/probe/source-mutants.test.ts through the built file
 */
export function maskCode(text: string, language: Language): string {
  const out = text.split('');
  let i = 0;
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  while (i < text.length) {
    const c = text[i]!;
    const two = text.slice(i, i + 2);
    if (language === 'js' && two === '//') {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? text.length : end;
      blank(i, stop);
      i = stop;
    } else if (language === 'js' && two === '/*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      blank(i, stop);
      i = stop;
    } else if (language === 'py' && c === '#') {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? text.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === '"' || c === "'" || (language === 'js' && c === '`')) {
      const triple = language === 'py' && text.slice(i, i + 3) === c.repeat(3);
      const close = triple ? c.repeat(3) : c;
      let k = i + close.length;
      while (k < text.length && text.slice(k, k + close.length) !== close) k += text[k] === '\\' ? 2 : 1;
      const stop = Math.min(text.length, k + close.length);
      // Keep the quotes, so a masked dict key still reads as a string (`"passed"`).
      blank(i + close.length, stop - close.length);
      i = stop;
    } else i++;
  }
  return out.join('');
}

/** The index just past the bracket that closes the one at `open`, in masked code. */
function closing(code: string, open: number): number {
  let depth = 0;
  for (let k = open; k < code.length; k++) {
    if ('([{'.includes(code[k]!)) depth++;
    else if (')]}'.includes(code[k]!) && --depth === 0) return k + 1;
  }
  return -1;
}

/** The end of an expression starting at `from`: the first `,` `}` `)` or line end at depth 0. */
function expressionEnd(code: string, from: number, language: Language): number {
  let depth = 0;
  for (let k = from; k < code.length; k++) {
    const c = code[k]!;
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) {
      if (depth === 0) return k;
      depth--;
    } else if (depth === 0 && (c === ',' || c === ';' || (language === 'py' && c === '\n'))) return k;
  }
  return code.length;
}

const flips: Record<string, string> = {'===': '!==', '!==': '===', '==': '!=', '!=': '==', '<=': '>', '>=': '<', '<': '>=', '>': '<='};

/** Line number (1-based) of an index, for the mutant's name. */
const lineOf = (text: string, index: number): number => text.slice(0, index).split('\n').length;

/** Every source mutant of a verifier's text, in the order they appear in it. */
export function sourceMutants(text: string, language: Language): SourceMutant[] {
  const code = maskCode(text, language);
  const found: Array<{at: number; end: number; replacement: string; name: string; changes: string}> = [];
  const add = (at: number, end: number, replacement: string, kind: string, changes: string) => {
    const line = lineOf(text, at);
    found.push({at, end, replacement, name: `${kind}@${line}`, changes: `line ${line}: ${changes}`});
  };
  const snippet = (from: number, to: number) => {
    const s = text.slice(from, to).replace(/\s+/g, ' ').trim();
    return s.length > 50 ? `${s.slice(0, 49)}…` : s;
  };

  // `passed` forced true: a dict key in Python, an object key in JavaScript.
  // Python's key is a string, which the mask blanks: it is found in the text, where the code has a quote (not in a comment).
  for (const m of (language === 'py' ? text : code).matchAll(language === 'py' ? /(["'])passed\1\s*:\s*/g : /\bpassed\s*:\s*/g)) {
    if (language === 'py' && code[m.index] !== m[1]) continue;
    const from = m.index + m[0].length;
    const end = expressionEnd(code, from, language);
    if (end > from) add(from, end, language === 'py' ? 'True' : 'true', 'passed-true', `\`passed: ${snippet(from, end)}\` -> true`);
  }
  // A condition dropped: `if (c)` -> `if (false)`, `if c:` -> `if False:`.
  for (const m of code.matchAll(language === 'py' ? /\b(?:if|elif)\s+/g : /\bif\s*\(/g)) {
    if (language === 'js') {
      const open = m.index + m[0].length - 1;
      const close = closing(code, open);
      if (close > 0) add(open + 1, close - 1, 'false', 'condition-dropped', `\`if (${snippet(open + 1, close - 1)})\` never holds`);
    } else {
      const from = m.index + m[0].length;
      const colon = code.indexOf(':', from);
      if (colon > from && !code.slice(from, colon).includes('\n')) add(from, colon, 'False', 'condition-dropped', `\`if ${snippet(from, colon)}\` never holds`);
    }
  }
  // Comparisons flipped (arrows, shifts and assignments excluded).
  for (const m of code.matchAll(/===|!==|==|!=|<=|>=|<|>/g)) {
    const before = code[m.index - 1] ?? '';
    const after = code[m.index + m[0].length] ?? '';
    if ('<>=!'.includes(before) || '<>='.includes(after) || (m[0] === '>' && before === '-')) continue;
    add(
      m.index,
      m.index + m[0].length,
      flips[m[0]]!,
      'comparison-flipped',
      `\`${m[0]}\` -> \`${flips[m[0]]}\` in \`${snippet(lineStart(text, m.index), lineEnd(text, m.index))}\``,
    );
  }
  // Boolean operators swapped.
  const booleans = language === 'py' ? /\b(and|or)\b/g : /&&|\|\|/g;
  const swap: Record<string, string> = {'&&': '||', '||': '&&', and: 'or', or: 'and'};
  for (const m of code.matchAll(booleans)) add(m.index, m.index + m[0].length, swap[m[0]]!, 'boolean-swapped', `\`${m[0]}\` -> \`${swap[m[0]]}\``);
  // Float literals (tolerances) 1000 times larger; a default after `??` / `or` stands in for an
  // [accept] value and is unobservable while the bundle sets it, so it is left alone.
  for (const m of code.matchAll(/(?<![\w.])(\d+\.\d*(?:[eE][-+]?\d+)?|\d*\.\d+(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)(?![\w.])/g)) {
    const before = code.slice(Math.max(0, m.index - 200), m.index).trimEnd();
    if (/\?\?$|\bor$/.test(before) || /\.get\(\s*(["'])[^"']*\1\s*,$/.test(before)) continue;
    add(m.index, m.index + m[0].length, `(${m[0]} * 1000)`, 'literal-scaled', `\`${m[0]}\` -> \`${m[0]} * 1000\``);
  }
  // Loops over every other row.
  if (language === 'js') {
    for (const m of code.matchAll(/\bfor\s*\(/g)) {
      const open = m.index + m[0].length - 1;
      const header = code.slice(open, closing(code, open));
      const step = /(\+\+|\+=\s*1\b)(?=[\s)]*$)/.exec(header);
      if (step)
        add(
          open + step.index,
          open + step.index + step[0].length,
          step[0] === '++' ? ' += 2' : '+= 2',
          'loop-stride-2',
          `\`for ${snippet(open, open + header.length)}\` visits every other index`,
        );
    }
  } else {
    for (const m of code.matchAll(/\brange\(/g)) {
      const open = m.index + m[0].length - 1;
      const close = closing(code, open);
      const inner = text.slice(open + 1, close - 1);
      if (close > 0 && !code.slice(open + 1, close - 1).includes(','))
        add(open + 1, close - 1, `0, ${inner}, 2`, 'loop-stride-2', `\`range(${snippet(open + 1, close - 1)})\` visits every other index`);
    }
  }
  found.sort((a, b) => a.at - b.at);
  const counts = new Map<string, number>();
  return found.map((f) => {
    const seen = (counts.get(f.name) ?? 0) + 1;
    counts.set(f.name, seen);
    const name = seen === 1 ? f.name : `${f.name}.${seen}`;
    return {name, changes: f.changes, text: text.slice(0, f.at) + f.replacement + text.slice(f.end)};
  });
}

function lineStart(text: string, index: number): number {
  return text.lastIndexOf('\n', index - 1) + 1;
}
function lineEnd(text: string, index: number): number {
  const end = text.indexOf('\n', index);
  return end < 0 ? text.length : end;
}
