/**
 * One eval in a child process (eval-child.ts) that never holds a secret. The
 * bundle's generator, oracle and verifier run inside the eval's own process,
 * outside the sandbox, and a Python bundle's host is that process's child: so
 * the eval process gets the caller's environment without ARBOR_TEST_SALT and
 * the queue key, and the salted test seeds are derived here, in the parent,
 * and handed to it. Seeds derived from the salt (and the warm-up seeds next to
 * them) are blanked out of whatever the eval process says back.
 */
import {fork, type ChildProcess} from 'node:child_process';
import {fileURLToPath} from 'node:url';
import {ArborError} from '../errors.js';
import {HarnessError} from '../eval/errors.js';
import type {Plan, Split} from '../benchmark/plan.js';
import {saltVariable, splitSeeds, warmupSeed} from '../eval/seeds.js';
import type {EvalReport} from '../eval/types.js';
import {queueKeyFileVariable, queueKeyVariable} from './auth.js';
import type {EvalChildMessage, EvalChildRequest} from './eval-child.js';

/** Variables an eval process never gets: the test salt and the queue key. */
export const secretVariables: readonly string[] = [saltVariable, queueKeyVariable, queueKeyFileVariable];

/** The environment of an eval process: the caller's, without the secrets. */
export function evalEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = {...env};
  for (const name of secretVariables) delete copy[name];
  return copy;
}

/**
 * The salted test seeds of a plan, derived here from `env`'s salt exactly as
 * the eval derives them (lib/eval/pipeline.ts, prepare: keyed by the plan's
 * name, else the bundle's spec); undefined when the split uses the plan's
 * own seeds (dev, no salt, a path split).
 */
export async function derivedTestSeeds(plan: Plan, split: Split, env: NodeJS.ProcessEnv): Promise<number[] | undefined> {
  if (split !== 'test' || plan.splitKind === 'path' || !env[saltVariable]) return undefined;
  let spec: unknown;
  if (!plan.named) {
    const {loadBundle} = await import('../bundle/index.js');
    // A marker that cannot be read fails the eval itself, with its own message.
    spec = await loadBundle(plan.bundle, {checkFingerprint: false}).then((bundle) => (bundle as {spec?: unknown}).spec, () => undefined);
  }
  const name = plan.named || typeof spec !== 'string' ? plan.name : spec;
  const {seeds, derived} = splitSeeds(plan, split, env, name);
  return derived ? seeds : undefined;
}

/** A function blanking the given secret seeds (and the warm-up seeds the eval derives from them) out of text. */
export function seedRedactor(plan: Plan, seeds: readonly number[] | undefined): (text: string) => string {
  if (!seeds || seeds.length === 0) return (text) => text;
  const warm = warmupSeed({...plan, test: {...plan.test, seeds: [...seeds]}}, [...seeds]);
  const secret = new Set([...seeds, warm, warm + 1, warm + 2].map(String));
  return (text) => text.replace(/\d+/g, (digits) => (secret.has(digits) ? '<test seed>' : digits));
}

/** Every string in a JSON-like value passed through `redact`. */
export function redactDeep<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((each) => redactDeep(each, redact)) as T;
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, each]) => [key, redactDeep(each, redact)])) as T;
  return value;
}

/** Where the eval child's module is: next to this one. */
const evalChildPath = fileURLToPath(new URL('./eval-child.js', import.meta.url));

/**
 * Run one eval in a child process with `env` less its secrets; resolves with
 * its report, rejects with its error (or why it ended without either).
 * `children` holds the process while it runs, so a caller can stop it.
 */
export function evalInChild(
  request: EvalChildRequest,
  options: {env: NodeJS.ProcessEnv; cwd: string; children?: Set<ChildProcess>; onProgress: (kind: 'line' | 'status', text: string) => void},
): Promise<EvalReport> {
  return new Promise((resolve, reject) => {
    const child = fork(evalChildPath, [], {cwd: options.cwd, env: evalEnvironment(options.env), stdio: ['ignore', 'ignore', 'pipe', 'ipc']});
    options.children?.add(child);
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (text: string) => {
      stderr = (stderr + text).slice(-2000);
    });
    let answer: EvalChildMessage | undefined;
    child.on('message', (message: EvalChildMessage) => {
      if (message.type === 'progress') options.onProgress(message.kind, message.text);
      else answer = message;
    });
    child.on('error', (error) => {
      options.children?.delete(child);
      reject(new HarnessError(`cannot start the eval process: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      options.children?.delete(child);
      if (answer?.type === 'report') return resolve(answer.report);
      // An error arbor raised on purpose keeps its code and exit code (a stale lock is exit 3 here as in eval).
      if (answer?.type === 'error') return reject(answer.code && answer.exitCode ? new ArborError(answer.message, answer.code, answer.exitCode) : new HarnessError(answer.message, 'eval'));
      const last = stderr.trim().split('\n').pop() ?? '';
      reject(new HarnessError(`the eval process ended without a report (${signal ? `signal ${signal}` : `exit code ${code}`})${last ? `: ${last}` : ''}`));
    });
    child.send(request);
  });
}
