/**
 * Where the protected runner is, and an eval's time budget: small facts of
 * the pipeline that callers outside it need without loading it (index.ts).
 */
import {existsSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import type {Plan} from '../benchmark/plan.js';
import {HarnessError} from './errors.js';

/** Where the protected runner lives: in the package, next to this module's source. */
export function runnerPath(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  // dist/lib/eval -> package root; also works when run from lib/eval directly.
  const candidates = [path.resolve(here, '../../../lib/eval/runner.py'), path.resolve(here, 'runner.py')];
  const found = candidates.find((file) => existsSync(file));
  if (!found) throw new HarnessError(`arbor's runner.py is missing (looked in ${candidates.join(', ')}); reinstall arbor`, 'no-runner');
  return found;
}

/** The eval's budget: the plan's max_seconds for one solution; a second side adds half (three runs a repetition instead of two). */
export function budgetSeconds(plan: Pick<Plan, 'maxSeconds'>, sides: number): number {
  return (plan.maxSeconds * (1 + sides)) / 2;
}
