/**
 * One eval in a child process (eval-child.ts) that never holds a secret. The
 * bundle's generator, oracle and verifier run inside the eval's own process,
 * outside the sandbox, and a Python bundle's host is that process's child: so
 * the eval process gets the caller's environment without ARBOR_TEST_SALT and
 * the queue key, and the salted test seeds are derived here, in the parent,
 * and handed to it. Seeds derived from the salt (and the warm-up seeds next to
 * them) are blanked out of whatever the eval process says back.
 */
import {fork, spawn, type ChildProcess} from 'node:child_process';
import {closeSync, openSync, readFileSync, writeSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {ArborError} from '../errors.js';
import {HarnessError} from '../eval/index.js';
import type {Plan, Split} from '../benchmark/plan.js';
import {drawsFreshCases, saltVariable, splitSeeds, warmupSeed} from '../eval/index.js';
import type {EvalReport} from '../eval/index.js';
import {evalEnvironment, secretVariables} from '../secrets.js';
import type {EvalChildAnswer, EvalChildMessage, EvalChildRequest} from './eval-child.js';

/** Variables an eval process never gets: the test salt, the queue key, and the sealed queue's URL (which may hold a Redis password). */
export {evalEnvironment, holdsSecret, secretVariables} from '../secrets.js';

/**
 * The salted test seeds of a plan, derived here from `env`'s salt exactly as
 * the eval derives them (lib/eval/pipeline.ts, prepare: keyed by the plan's
 * name, else the bundle's spec); undefined when the split uses the plan's
 * own seeds (dev, no salt, a path split).
 */
export async function derivedTestSeeds(plan: Plan, split: Split, env: NodeJS.ProcessEnv): Promise<number[] | undefined> {
  // A speed plan over seeds draws fresh cases from a nonce of the eval's own: the salt keys only fixed seeds.
  if (split !== 'test' || plan.splitKind === 'path' || drawsFreshCases(plan) || !env[saltVariable]) return undefined;
  let spec: unknown;
  if (!plan.named) {
    // loadBundle reads and checks the marker (fherma.toml) alone: no authored module is imported, nothing of the bundle runs in this process.
    const {loadBundle} = await import('../bundle/index.js');
    // A marker that cannot be read fails the eval itself, with its own message.
    spec = await loadBundle(plan.bundle, {checkFingerprint: false}).then(
      (bundle) => (bundle as {spec?: unknown}).spec,
      () => undefined,
    );
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

let scrubbed = false;

/**
 * Blank the secrets' values in this process's initial environment block, the
 * one /proc/<pid>/environ shows: a child running bundle code as the same user
 * could read its parent's there (deleting a variable from process.env leaves
 * that block as it was). The values stay in process.env (set again, in the
 * heap). Once per process; where /proc cannot be written, nothing changes.
 */
export function scrubInitialEnvironment(): void {
  if (scrubbed || process.platform !== 'linux') return;
  scrubbed = true;
  const kept = Object.fromEntries(secretVariables.filter((name) => process.env[name] !== undefined).map((name) => [name, process.env[name]!]));
  let fd: number | undefined;
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields 50 and 51 (env_start, env_end), counted after the parenthesised command name.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = Number(fields[47]);
    const block = readFileSync('/proc/self/environ');
    if (!Number.isSafeInteger(start) || start <= 0 || Number(fields[48]) - start < block.length) return;
    fd = openSync('/proc/self/mem', 'r+');
    let at = 0;
    while (at < block.length) {
      const end = block.indexOf(0, at) === -1 ? block.length : block.indexOf(0, at);
      const equals = block.indexOf(0x3d, at);
      if (equals !== -1 && equals < end && secretVariables.includes(block.toString('utf8', at, equals)) && end > equals + 1) {
        writeSync(fd, Buffer.alloc(end - equals - 1, 0x2a), 0, end - equals - 1, start + equals + 1);
      }
      at = end + 1;
    }
  } catch {
    // No /proc (or no write to this process's memory): the block stays as it was.
  } finally {
    if (fd !== undefined) closeSync(fd);
    // The C library's environment pointed into that block: the values are set again (copied).
    for (const [name, value] of Object.entries(kept)) process.env[name] = value;
  }
}

/** Where the eval child's module is: next to this one. */
const evalChildPath = fileURLToPath(new URL('./eval-child.js', import.meta.url));

/** The signals an interrupted command passes on to its child (which stops its runs and removes its work folder on each), then dies of itself. */
const interrupts: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * While `child` runs, an interrupt of this process goes to it as SIGTERM
 * (which eval-child.ts, like the pipeline, takes as an interrupt: runs killed,
 * work folder removed); once the child is gone this process dies of the
 * signal it got, as the eval did in process. Returns the undo.
 */
function passInterrupts(child: ChildProcess): () => void {
  let got: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (got === undefined) child.kill('SIGTERM');
    got ??= signal;
  };
  for (const name of interrupts) process.on(name, onSignal);
  const undo = () => {
    for (const name of interrupts) process.removeListener(name, onSignal);
  };
  child.once('close', () => {
    undo();
    if (got) process.kill(process.pid, got);
  });
  return undo;
}

/** Options of runInChild. */
export interface ChildOptions {
  /** The caller's environment: the child gets it less the secrets. */
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Holds the process while it runs, so a caller can stop it. */
  children?: Set<ChildProcess>;
  onProgress: (kind: 'line' | 'status', text: string) => void;
  /** calibrate: one of its evals is done (its report redacted). */
  onEvaluated?: (k: number, report: EvalReport) => void;
  /** Applied to every progress line, the answer's strings and an error's message (seedRedactor). */
  redact?: (text: string) => string;
  /** A command's own child: an interrupt of this process stops it, then this process (passInterrupts). */
  interruptible?: boolean;
}

/**
 * Run an eval, compare or calibration in a child process (eval-child.ts) with
 * `env` less its secrets; resolves with its answer, rejects with its error
 * (or why it ended without either).
 */
export function runInChild(request: EvalChildRequest, options: ChildOptions): Promise<Exclude<EvalChildAnswer, {type: 'error'}>> {
  const redact = options.redact ?? ((text: string) => text);
  return new Promise((resolve, reject) => {
    scrubInitialEnvironment();
    const child = fork(evalChildPath, [], {cwd: options.cwd, env: evalEnvironment(options.env), stdio: ['ignore', 'ignore', 'pipe', 'ipc']});
    options.children?.add(child);
    if (options.interruptible) passInterrupts(child);
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (text: string) => {
      stderr = (stderr + text).slice(-2000);
    });
    let answer: EvalChildAnswer | undefined;
    child.on('message', (message: EvalChildMessage) => {
      if (message.type === 'progress') options.onProgress(message.kind, redact(message.text));
      else if (message.type === 'evaluated') options.onEvaluated?.(message.k, redactDeep(message.report, redact));
      else answer = message;
    });
    child.on('error', (error) => {
      options.children?.delete(child);
      reject(new HarnessError(`cannot start the eval process: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      options.children?.delete(child);
      if (answer && answer.type !== 'error') return resolve(redactDeep(answer, redact));
      // An error arbor raised on purpose keeps its code and exit code (a stale lock is exit 3 here as in eval).
      if (answer?.type === 'error') {
        const message = redact(answer.message);
        return reject(answer.code && answer.exitCode ? new ArborError(message, answer.code, answer.exitCode) : new HarnessError(message, 'eval'));
      }
      const last = redact(stderr.trim().split('\n').pop() ?? '');
      reject(new HarnessError(`the eval process ended without a report (${signal ? `signal ${signal}` : `exit code ${code}`})${last ? `: ${last}` : ''}`));
    });
    child.send({...request, ...(options.env[saltVariable] ? {salted: true} : {})});
  });
}

/**
 * Run one eval in a child process with `env` less its secrets; resolves with
 * its report, rejects with its error (or why it ended without either).
 * `children` holds the process while it runs, so a caller can stop it.
 */
export async function evalInChild(
  request: EvalChildRequest,
  options: {env: NodeJS.ProcessEnv; cwd: string; children?: Set<ChildProcess>; onProgress: (kind: 'line' | 'status', text: string) => void},
): Promise<EvalReport> {
  const answer = await runInChild({...request, kind: 'eval'}, options);
  if (answer.type !== 'report') throw new HarnessError(`the eval process answered a ${answer.type} instead of a report`);
  return answer.report;
}

/**
 * The salted test seeds of a local command's request, derived here (never in
 * the child), and the redactor that blanks them out of what the child says.
 * A plan that cannot be read is the child's own error, said by it; one that
 * can (or the one the caller read, `given`) is handed to the child (`plan`),
 * which then does not read it again.
 */
export async function localSecrets(
  benchmark: string,
  split: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  given?: Plan,
): Promise<{testSeeds?: number[]; redact: (text: string) => string; plan?: Plan}> {
  const {loadPlan} = await import('../benchmark/plan.js');
  const plan = given ?? (await loadPlan(path.resolve(cwd, benchmark)).catch(() => undefined));
  if (!plan) return {redact: (text) => text};
  const testSeeds = await derivedTestSeeds(plan, split as Split, env);
  return {...(testSeeds ? {testSeeds} : {}), redact: seedRedactor(plan, testSeeds), plan};
}

/**
 * Run this very command again in a child whose environment lacks the
 * secrets, its output and exit code (or signal) this process's own: for a
 * command that runs bundle code but needs no secret (`verify --probe`).
 * Resolves once the child is done, with the exit code set.
 */
export function rerunWithoutSecrets(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((resolve, reject) => {
    scrubInitialEnvironment();
    const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {stdio: 'inherit', env: evalEnvironment(env)});
    passInterrupts(child);
    child.on('error', (error) => reject(new HarnessError(`cannot start arbor without the secrets: ${error.message}`)));
    child.on('close', (code) => {
      if (code !== null) process.exitCode = code;
      resolve();
    });
  });
}
