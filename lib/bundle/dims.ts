/**
 * Dimension expressions: `N`, `4`, `N*D`, `(N+1)*2`. Grammar (whitespace ignored):
 *   expr   = term   { ("+" | "-") term }
 *   term   = factor { "*" factor }
 *   factor = integer | name | "(" expr ")"
 */

/** A parsed dimension expression. */
export type DimExpr = {kind: 'int'; value: number} | {kind: 'name'; name: string} | {kind: 'op'; op: '+' | '-' | '*'; left: DimExpr; right: DimExpr};

/** Parse a dimension expression; throws Error with a readable reason. */
export function parseDim(text: string): DimExpr {
  const tokens = text.match(/\s+|\d+|[A-Za-z_][A-Za-z0-9_]*|./g) ?? [];
  const list = tokens.filter((t) => !/^\s+$/.test(t));
  let at = 0;
  const peek = () => list[at];
  function expr(): DimExpr {
    let left = term();
    while (peek() === '+' || peek() === '-') {
      const op = list[at++] as '+' | '-';
      left = {kind: 'op', op, left, right: term()};
    }
    return left;
  }
  function term(): DimExpr {
    let left = factor();
    while (peek() === '*') {
      at++;
      left = {kind: 'op', op: '*', left, right: factor()};
    }
    return left;
  }
  function factor(): DimExpr {
    const token = list[at++];
    if (token === undefined) throw new Error(`unexpected end of \`${text}\``);
    if (token === '(') {
      const inner = expr();
      if (list[at++] !== ')') throw new Error(`missing \`)\` in \`${text}\``);
      return inner;
    }
    if (/^\d+$/.test(token)) {
      const value = Number(token);
      if (!Number.isSafeInteger(value)) throw new Error(`integer ${token} too large in \`${text}\``);
      return {kind: 'int', value};
    }
    if (/^[A-Za-z_]/.test(token)) return {kind: 'name', name: token};
    throw new Error(`unexpected \`${token}\` in \`${text}\`, expected a name, an integer or \`(\``);
  }
  const result = expr();
  if (at !== list.length) throw new Error(`unexpected \`${list[at]}\` in \`${text}\``);
  return result;
}

/** The names an expression uses. */
export function dimNames(expr: DimExpr): string[] {
  if (expr.kind === 'name') return [expr.name];
  if (expr.kind === 'int') return [];
  return [...dimNames(expr.left), ...dimNames(expr.right)];
}

/** Evaluate an expression at a point (exact: BigInt arithmetic). */
export function evalDim(expr: DimExpr, point: Record<string, number>): bigint {
  switch (expr.kind) {
    case 'int':
      return BigInt(expr.value);
    case 'name':
      return BigInt(point[expr.name]!);
    case 'op': {
      const l = evalDim(expr.left, point);
      const r = evalDim(expr.right, point);
      return expr.op === '+' ? l + r : expr.op === '-' ? l - r : l * r;
    }
  }
}

/** The canonical text of a dimension as written: whitespace removed. */
export function canonicalDim(text: string): string {
  return text.replace(/\s+/g, '');
}
