/** Options shared by several commands, declared once. */
import type {Options} from 'yargs';

/** `--json`: print the stable machine-readable shape on stdout instead of text. */
export const jsonOption = {
  type: 'boolean',
  default: false,
  describe: 'Print the result as JSON on stdout (shape documented in the README)',
} as const satisfies Options;

/** Write a JSON document on stdout (two-space indent, trailing newline). */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** The commands whose `--json` once took a FILE (now `--json-file FILE`). */
const formerJsonFileCommands = new Set(['eval', 'compare', 'run']);

/**
 * `--json FILE` (and `--json=FILE`) as eval, compare and run once took it,
 * rewritten to `--json-file FILE` with a deprecation note, for one release.
 * Only a value ending in `.json` is taken for a file: anything else after
 * `--json` stays the positional argument it is (`--json zoo/knn dev`), so no
 * benchmark folder or solution file is ever mistaken for an output.
 */
export function rewriteFormerJsonFile(argv: readonly string[]): {argv: string[]; notes: string[]} {
  if (argv[0] !== 'benchmark' || !formerJsonFileCommands.has(argv[1] ?? '')) return {argv: [...argv], notes: []};
  const out: string[] = [];
  const notes: string[] = [];
  const isFile = (value: string | undefined): value is string => value !== undefined && !value.startsWith('-') && /\.json$/i.test(value);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const inline = arg.startsWith('--json=') ? arg.slice('--json='.length) : undefined;
    const file = inline ?? (arg === '--json' ? argv[i + 1] : undefined);
    if (isFile(file)) {
      out.push('--json-file', file);
      notes.push(`warning: \`--json ${file}\` is deprecated: use \`--json-file ${file}\` (\`--json\` alone now prints the JSON on stdout)`);
      if (inline === undefined) i++;
    } else out.push(arg);
  }
  return {argv: out, notes};
}
