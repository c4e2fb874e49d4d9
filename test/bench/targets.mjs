// Targets the benchmarks check: each figure is printed with its target and whether it holds,
// and recorded (when run through run.mjs) so that `npm run bench` ends by listing the misses.
import {appendFileSync} from 'node:fs';

/**
 * Check `value` against a target (`<=`, `<`, `>=` or `>` `bound`); returns the text to print
 * after the figure, e.g. `(target <= 3x: ok)` or `(target <= 3x: MISSED)`.
 */
export function target(name, value, op, bound, unit = 'x') {
  const holds = op === '<=' ? value <= bound : op === '<' ? value < bound : op === '>=' ? value >= bound : value > bound;
  if (!holds && process.env.BENCH_MISSES_FILE) {
    appendFileSync(process.env.BENCH_MISSES_FILE, `${name}: ${Number(value.toFixed(2))}${unit}, target ${op} ${bound}${unit}\n`);
  }
  return `(target ${op} ${bound}${unit}: ${holds ? 'ok' : 'MISSED'})`;
}
