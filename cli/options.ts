/** Options shared by several commands, declared once. */
import type {Options} from 'yargs';

/** `--json`: print the stable machine-readable shape on stdout instead of text. */
export const jsonOption: Options = {
  type: 'boolean',
  default: false,
  describe: 'Print the result as JSON on stdout (shape documented in the README)',
};

/** Write a JSON document on stdout (two-space indent, trailing newline). */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
