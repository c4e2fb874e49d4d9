/** Shared check of the presence rules: a file that must exist and be regular. */
import type {RuleContext} from '../rule.js';

/** Report `name` when it is missing or not a regular file. */
export function presence(ctx: RuleContext, name: string, role: string): void {
  const loaded = ctx.file(name);
  if (loaded.status === 'missing') ctx.report(`Missing \`${name}\`, expected ${role}`, {file: name});
  else if (loaded.status === 'not-file') ctx.report(`\`${name}\` is ${loaded.kind}, expected a regular file (${role})`, {file: name});
}
