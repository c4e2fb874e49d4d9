/** Benchmark names: `[a-z0-9][a-z0-9_-]*`; a leading `_` (scaffolding) only when asked. */
import {UsageError} from '../errors.js';

const namePattern = /^[a-z0-9][a-z0-9_-]*$/;

/** Check a benchmark name; throws a UsageError saying what is wrong and what is expected. */
export function checkBenchmarkName(name: string, options: {allowUnderscore?: boolean} = {}): void {
  const bare = options.allowUnderscore && name.startsWith('_') ? name.slice(1) : name;
  if (namePattern.test(bare)) return;
  let why = '';
  if (name === '') why = 'it is empty';
  else if (name === '.' || name === '..' || name.includes('..')) why = 'it contains `..`';
  else if (/\s/.test(name)) why = 'it contains whitespace';
  else if (/[A-Z]/.test(name)) why = 'it contains upper-case letters';
  else if (name.startsWith('_')) why = 'a leading `_` marks scaffolding (pass --allow-underscore to mean it)';
  else if (/^[-_]/.test(name)) why = `it starts with \`${name[0]}\``;
  else why = 'it contains characters other than a-z, 0-9, `_` and `-`';
  throw new UsageError(`Invalid benchmark name \`${name}\`: ${why}; expected [a-z0-9][a-z0-9_-]*`, 'bad-name');
}
