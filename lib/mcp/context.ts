/**
 * What every tool of `arbor mcp` shares: the zoo, the workspaces folder, the
 * zoo's MCP store (the workspaces checkout made and the runs, kept beyond one
 * server process: store.ts), the environment; and the one rule for paths a
 * tool accepts: inside the zoo or inside a workspace a checkout made.
 */
import {existsSync, readdirSync, statSync} from 'node:fs';
import path from 'node:path';
import {UsageError} from '../errors.js';
import {isSkippedName} from '../zoo/list.js';
import type {CompareQueue} from '../run/compare-queue.js';
import {Runs} from './jobs.js';
import {isInside, realOrResolved} from './paths.js';
import {type SessionLimits, spend} from './session.js';
import {McpStore, storeFile} from './store.js';

/** How the server was started. */
export interface ServerOptions {
  /** The zoo folder (absolute). */
  zoo: string;
  /** Where `checkout` creates workspaces (absolute; created when missing). */
  workspaces: string;
  /** The server's environment: ARBOR_TEST_SALT (the server's own salt when none was given), ARBOR_LEDGER, ARBOR_PYTHON… are read from it. */
  env: NodeJS.ProcessEnv;
  /** Seconds from a submit_test call to its answer, for every entry (default: each plan's time_limit). */
  sealedRelease?: number;
  /** `--sealed-queue`: submit_test's compare runs on this queue's workers, not here. */
  sealedQueue?: SealedQueue;
  /** How long an abandoned workspace and an ended run are kept (ms; default 7 days). */
  keepMs?: number;
  /** The owner's limits of each client's session (session.ts; `arbor mcp`'s --max-* flags). */
  limits?: SessionLimits;
}

/** Seven days: how long an abandoned workspace and an ended run are kept by default. */
const defaultKeepMs = 7 * 86_400_000;

/** Where submit_test's compares run when not here (lib/run/compare-queue.ts's CompareQueue). */
type SealedQueue = Pick<CompareQueue, 'compare' | 'close'>;

/** The state the tools share. */
export interface ServerContext extends ServerOptions {
  keepMs: number;
  limits: SessionLimits;
  store: McpStore;
  runs: Runs;
}

/** A context (one per server; an HTTP server's sessions share it), over the zoo's MCP store beside its ledger. */
export async function createContext(options: ServerOptions): Promise<ServerContext> {
  const {ledgerPathFor} = await import('../ledger/location.js');
  const zoo = realOrResolved(options.zoo);
  const workspaces = realOrResolved(path.resolve(options.workspaces));
  const store = await McpStore.open(storeFile(ledgerPathFor(zoo, options.env, zoo, 'zoo')));
  const limits = options.limits ?? {};
  // A dev run counts against its session as its row is made, under the same lock (jobs.ts, Runs.create).
  const admit = (tool: string) => spend(store, workspaces, limits, tool);
  return {...options, zoo, workspaces, keepMs: options.keepMs ?? defaultKeepMs, limits, store, runs: new Runs(store, options.env, {zoo, workspaces}, admit)};
}

/** The zoo's entries (folders holding a plan.toml), sorted. */
function entryNames(ctx: ServerContext): string[] {
  return readdirSync(ctx.zoo, {withFileTypes: true})
    .filter((d) => d.isDirectory() && !isSkippedName(d.name) && existsSync(path.join(ctx.zoo, d.name, 'plan.toml')))
    .map((d) => d.name)
    .sort();
}

/** The folder of the zoo entry `name`; a one-line error naming the entries when there is none. */
export function entryDir(ctx: ServerContext, name: string): string {
  const names = entryNames(ctx);
  if (!names.includes(name)) {
    throw new UsageError(`benchmark ${JSON.stringify(name)} is not in the zoo: expected one of ${names.join(', ') || '(none)'}`, 'not-found');
  }
  return path.join(ctx.zoo, name);
}

/**
 * A path a tool was given, confined: resolved against the zoo when relative,
 * symlinks followed, and refused unless it lies in the zoo or in a workspace
 * a checkout made (under this server's workspaces folder); in the zoo, never under a hidden folder (the ledger in
 * `.arbor/`, `.git/`) nor in an entry's test data folder, which a failing
 * "solution" could echo back. It must exist (`what` names it in messages).
 */
export async function confinedPath(ctx: ServerContext, given: string, what: string): Promise<string> {
  if (given.trim() === '') throw new UsageError(`${what}: an empty path: pass a file or folder in a workspace from checkout`, 'usage');
  const abs = realOrResolved(path.resolve(ctx.zoo, given));
  const refuse = () =>
    new UsageError(`${what} ${given}: outside the zoo and the workspaces checkout made: pass a path in a workspace from checkout`, 'outside');
  const workspace = workspaceOf(ctx, abs);
  if (workspace === undefined) {
    if (!isInside(abs, ctx.zoo)) throw refuse();
    if (
      path
        .relative(ctx.zoo, abs)
        .split(path.sep)
        .some((part) => part.startsWith('.'))
    )
      throw refuse();
  }
  if ((await testFolders(ctx)).some((folder) => isInside(abs, folder))) throw refuse();
  if (!statSync(abs, {throwIfNoEntry: false})) throw new UsageError(`${what} ${given} does not exist: pass a solution file or a workspace folder`, 'not-found');
  return abs;
}

/** The test data folders of the zoo's path-split entries (their expected answers are sealed too). */
async function testFolders(ctx: ServerContext): Promise<string[]> {
  const {loadPlan} = await import('../benchmark/plan.js');
  // A private copy of the test data named by the environment is sealed wherever it lies.
  const privateCopy = ctx.env.ARBOR_TEST_DATA;
  const folders: string[] = privateCopy ? [realOrResolved(path.resolve(ctx.zoo, privateCopy))] : [];
  for (const name of entryNames(ctx)) {
    const plan = await loadPlan(path.join(ctx.zoo, name)).catch(() => undefined);
    if (plan?.test.path) folders.push(realOrResolved(plan.test.path));
  }
  return folders;
}

/** The workspace (made by a checkout under this server's workspaces folder) holding `file`, and its entry; undefined when none does. */
export function workspaceOf(ctx: ServerContext, file: string): {workspace: string; name: string} | undefined {
  const found = ctx.store.workspaceOf(file, ctx.workspaces);
  return found && {workspace: found.path, name: found.name};
}
