/** Options shared by several commands, declared once. */
import type {Options} from 'yargs';

/** `--json`: print the stable machine-readable shape on stdout instead of text. */
export const jsonOption: Options = {
  type: 'boolean',
  default: false,
  describe: 'Print the result as JSON on stdout (shape documented in the README)',
};
