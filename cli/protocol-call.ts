/**
 * Recognising the bundle protocol's own argument form without yargs:
 *
 *     bundle <bundle-dir> <make|verify|info|fingerprint> [<dir>] [--point <json>] [--seeds <spec>] [--check]
 *
 * Options may come in any order among the words, each at most once, each value in the next word.
 * For these lists yargs would hand the bundle command exactly the same values (all strings, no
 * coercion; test/cli-protocol-call.test.ts compares the two). Anything else — another command,
 * help, version, `--opt=value`, a value or word starting with `-`, an unknown or repeated option,
 * `--check` followed by `true` or `false`,
 * a missing or extra word — is not recognised and goes to yargs, which words every error.
 */
import type {BundleArgv} from './commands/bundle-action.js';

const ACTION_WORDS = new Set(['make', 'verify', 'info', 'fingerprint']);
const VALUE_OPTIONS = new Set(['--point', '--seeds']);

/** The bundle command's arguments when `args` is in the protocol's form, else undefined. */
export function parseProtocolCall(args: readonly string[]): BundleArgv | undefined {
  if (args[0] !== 'bundle') return undefined;
  const words: string[] = [];
  const values = new Map<string, string>();
  let check = false;
  for (let k = 1; k < args.length; k++) {
    const token = args[k]!;
    if (isWord(token)) {
      words.push(token);
    } else if (VALUE_OPTIONS.has(token)) {
      const value = args[k + 1];
      if (value === undefined || value.startsWith('-') || values.has(token)) return undefined;
      values.set(token, value);
      k++;
    } else if (token === '--check' && !check && args[k + 1] !== 'true' && args[k + 1] !== 'false') {
      // (yargs reads a following `true` or `false` as the flag's value: such lists go to yargs.)
      check = true;
    } else {
      return undefined;
    }
  }
  const [bundleDir, command, dir, ...extra] = words;
  if (bundleDir === undefined || command === undefined || !ACTION_WORDS.has(command) || extra.length > 0) return undefined;
  const argv: BundleArgv = {bundleDir, command, check};
  if (dir !== undefined) argv.dir = dir;
  const point = values.get('--point');
  if (point !== undefined) argv.point = point;
  const seeds = values.get('--seeds');
  if (seeds !== undefined) argv.seeds = seeds;
  return argv;
}

/** A positional word: non-empty and not option-like. */
function isWord(token: string): boolean {
  return token !== '' && !token.startsWith('-');
}
