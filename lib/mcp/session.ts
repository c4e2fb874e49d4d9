/**
 * Sessions: what one client of `arbor mcp` may spend, and what it did. A
 * session is a client, and a client is its server's workspaces folder (the
 * owner of its runs, jobs.ts): every server on the zoo with that folder
 * continues the same session, so its counts outlive a restart, and a client
 * with another folder has a session of its own that it can neither spend nor
 * read. The zoo's owner sets the limits on `arbor mcp` (ServerOptions.limits;
 * the flags are the one source: the plan's test_budget stays the per-entry
 * sealed budget beside them, and the tighter one refuses first). Counts and
 * the action log live in the zoo's MCP store (store.ts, tables `sessions` and
 * `actions`), never in a file an agent can reach.
 *
 * What counts: a dev eval counts when its run is created (a call refused
 * before, a bad path or a spent limit, costs nothing; a run that fails or is
 * cancelled later has counted); its eval seconds (from its turn, waiting for
 * which is free, to its end) are added when it ends, so the run that crosses
 * the limit finishes and the next is refused. Seconds, not CPU seconds: the
 * sandboxed processes run in cgroups of their own under the eval (lib/sandbox/
 * cgroup.ts), which the run's process neither waits for nor reads a total of,
 * so its rusage misses them (a run that spun 3 s of CPU at import showed
 * 0.9 s); the eval's time holds everything a solution does, at import, in
 * init or in a daemon, and a run is pinned to one CPU where the eval pins. A sealed submission
 * counts as `submit_test` counts it (budget.ts: every call past its checks).
 * The wall clock runs from the session's first tool call.
 */
import {createHash, randomBytes} from 'node:crypto';
import {RefusedError} from '../errors.js';
import type {McpStore} from './store.js';

/** The owner's limits of each session (undefined: unlimited). */
export interface SessionLimits {
  devEvals?: number;
  devSeconds?: number;
  sealed?: number;
  minutes?: number;
}

/** What is left of each limit (null where there is none), as every tool answer carries it. */
interface Remaining {
  devEvals: number | null;
  devSeconds: number | null;
  sealed: number | null;
  seconds: number | null;
}

/** A session as stored. */
export interface SessionRow {
  id: string;
  owner: string;
  made: string;
  firstMs: number | null;
  devEvals: number;
  devSeconds: number;
  sealed: number;
}

/** One logged tool call. */
export interface Action {
  seq: number;
  time: string;
  tool: string;
  args: string;
  digest: string;
  outcome: string;
  ms: number | null;
}

/** Each limit's flag, as a refusal names it. */
const flags = {devEvals: '--max-dev-evals', devSeconds: '--max-dev-seconds', sealed: '--max-sealed', minutes: '--session-minutes'} as const;

/** The arguments of a logged call are kept this short (their digest is of the whole). */
const argsChars = 300;
/** A logged error is cut to this many characters. */
const outcomeChars = 300;

function toSession(row: Record<string, unknown>): SessionRow {
  return {
    id: row.id as string,
    owner: row.owner as string,
    made: row.made as string,
    firstMs: (row.first_ms as number | null) ?? null,
    devEvals: row.dev_evals as number,
    devSeconds: row.dev_seconds as number,
    sealed: row.sealed as number,
  };
}

/** The session of `owner`, made on first sight with a random id (`ses-` and 16 URL-safe characters). */
export function sessionOf(store: McpStore, owner: string): SessionRow {
  const db = store.sql();
  db.prepare('INSERT OR IGNORE INTO sessions (owner, id, made) VALUES (?, ?, ?)').run(
    owner,
    `ses-${randomBytes(12).toString('base64url')}`,
    new Date().toISOString(),
  );
  return toSession(db.prepare('SELECT * FROM sessions WHERE owner = ?').get(owner) as Record<string, unknown>);
}

/** Start the session's wall clock at its first call (later calls leave it). */
function startClock(store: McpStore, owner: string, now = Date.now()): void {
  sessionOf(store, owner);
  store.sql().prepare('UPDATE sessions SET first_ms = ? WHERE owner = ? AND first_ms IS NULL').run(now, owner);
}

/** Each limit's remainder for `session` (never below 0). */
function remainingOf(session: SessionRow, limits: SessionLimits, now = Date.now()): Remaining {
  const left = (limit: number | undefined, used: number) => (limit === undefined ? null : Math.max(0, limit - used));
  const elapsed = session.firstMs === null ? 0 : (now - session.firstMs) / 1000;
  return {
    devEvals: left(limits.devEvals, session.devEvals),
    devSeconds: limits.devSeconds === undefined ? null : Math.round(Math.max(0, limits.devSeconds - session.devSeconds) * 10) / 10,
    sealed: left(limits.sealed, session.sealed),
    seconds: limits.minutes === undefined ? null : Math.max(0, Math.floor(limits.minutes * 60 - elapsed)),
  };
}

/** The one line a call past a limit gets: the limit, what was spent, and how the owner raises it. */
function refusal(tool: string, limit: keyof typeof flags, spent: string): RefusedError {
  return new RefusedError(`${tool}: this session's ${spent}: the zoo's owner raises it by restarting arbor mcp with a larger ${flags[limit]}`, 'session-limit');
}

/** Refuse `tool` when the session's wall clock has run out. */
function checkClock(store: McpStore, owner: string, limits: SessionLimits, tool: string, now = Date.now()): void {
  if (limits.minutes === undefined) return;
  const session = sessionOf(store, owner);
  if (remainingOf(session, limits, now).seconds === 0) {
    throw refusal(
      tool,
      'minutes',
      `wall clock is spent (${limits.minutes} minutes since its first call at ${new Date(session.firstMs!).toISOString()}, --session-minutes ${limits.minutes})`,
    );
  }
}

/**
 * Count one dev run against the session, or refuse it with one line (nothing
 * counted). Called under the store's write lock, with the run's own creation
 * (jobs.ts), so two calls at once cannot both take the last one.
 */
export function spend(store: McpStore, owner: string, limits: SessionLimits, tool: string): void {
  checkClock(store, owner, limits, tool);
  const session = sessionOf(store, owner);
  if (limits.devEvals !== undefined && session.devEvals >= limits.devEvals)
    throw refusal(tool, 'devEvals', `dev evaluations are spent (${session.devEvals} of --max-dev-evals ${limits.devEvals})`);
  if (limits.devSeconds !== undefined && session.devSeconds >= limits.devSeconds)
    throw refusal(tool, 'devSeconds', `dev eval time is spent (${session.devSeconds.toFixed(1)} of --max-dev-seconds ${limits.devSeconds} s)`);
  store.sql().prepare('UPDATE sessions SET dev_evals = dev_evals + 1 WHERE owner = ?').run(owner);
}

/**
 * The lock submit_test's budget change runs under (budget.ts, reserveCall):
 * the store's write lock, the session's sealed limit checked before the
 * entry's budget (refused: nothing counted anywhere), and counted with the
 * entry's call when the entry's budget took it.
 */
export function sealedLock(store: McpStore, owner: string, limits: SessionLimits): <T>(change: () => T) => T {
  return (change) =>
    store.exclusive(() => {
      checkClock(store, owner, limits, 'submit_test');
      const session = sessionOf(store, owner);
      if (limits.sealed !== undefined && session.sealed >= limits.sealed)
        throw refusal('submit_test', 'sealed', `sealed submissions are spent (${session.sealed} of --max-sealed ${limits.sealed})`);
      const result = change();
      if (!(result as {refused?: boolean}).refused) store.sql().prepare('UPDATE sessions SET sealed = sealed + 1 WHERE owner = ?').run(owner);
      return result;
    });
}

/** Add a dev run's eval seconds to its session (the run's process, when it ends). */
export function addSeconds(store: McpStore, owner: string, seconds: number): void {
  if (!(seconds > 0)) return;
  sessionOf(store, owner);
  store.sql().prepare('UPDATE sessions SET dev_seconds = dev_seconds + ? WHERE owner = ?').run(seconds, owner);
}

/**
 * A text an agent chose (a tool name, an error that quotes its path), as the
 * owner's terminal will print it: control characters escaped, so no escape
 * sequence of the agent's reaches the owner's terminal through the log.
 */
function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Log the start of a call: its time, tool and arguments (short form and digest); the row to finish. */
function logCall(store: McpStore, owner: string, tool: string, args: unknown): number {
  const session = sessionOf(store, owner);
  const text = JSON.stringify(args ?? {}) ?? '{}';
  const short = text.length > argsChars ? `${text.slice(0, argsChars - 1)}…` : text;
  const digest = `sha256:${createHash('sha256').update(text).digest('hex').slice(0, 12)}`;
  const info = store
    .sql()
    .prepare("INSERT INTO actions (session, time, tool, args, digest, outcome) VALUES (?, ?, ?, ?, ?, 'running')")
    .run(session.id, new Date().toISOString(), printable(tool), printable(short), digest);
  return Number(info.lastInsertRowid);
}

/** How a logged call ended: `ok` (with the run it started, if any) or its error line. */
function logOutcome(store: McpStore, seq: number, started: number, outcome: {result?: unknown; error?: string}): void {
  const run = (outcome.result as {id?: unknown} | undefined)?.id;
  const text =
    outcome.error !== undefined
      ? `error: ${outcome.error.split('\n')[0]!.slice(0, outcomeChars)}`
      : `ok${typeof run === 'string' && run.startsWith('run-') ? ` ${run}` : ''}`;
  store
    .sql()
    .prepare('UPDATE actions SET outcome = ?, ms = ? WHERE seq = ?')
    .run(printable(text), Date.now() - started, seq);
}

/** Every session of the zoo, oldest first. */
export function listSessions(store: McpStore): SessionRow[] {
  return (store.sql().prepare('SELECT * FROM sessions ORDER BY made').all() as Array<Record<string, unknown>>).map(toSession);
}

/** The session `id` and its calls in order; undefined when there is none. */
export function sessionLog(store: McpStore, id: string): {session: SessionRow; actions: Action[]} | undefined {
  const row = store.sql().prepare('SELECT * FROM sessions WHERE id = ?').get(id) as Record<string, unknown> | undefined;
  if (!row) return undefined;
  const actions = store.sql().prepare('SELECT seq, time, tool, args, digest, outcome, ms FROM actions WHERE session = ? ORDER BY seq').all(id) as Action[];
  return {session: toSession(row), actions};
}

/** The tools refused once the session's wall clock is spent; the others still answer, so an agent can collect its runs' results. */
const clocked = new Set(['checkout', 'evaluate', 'compare', 'submit_test']);

/** What a tool answered, as result.ts shapes it. */
interface ToolAnswer {
  content?: Array<{type: string; text?: string}>;
  structuredContent?: Record<string, unknown>;
}

/**
 * One tool call of a session (server.ts wraps every tool in it): the clock
 * started at the session's first call, the call logged (time, tool, the
 * arguments' short form and digest, how it ended), a clocked tool refused past
 * the wall clock, and the answer given `remaining`.
 */
export async function sessionCall(
  where: {store: McpStore; owner: string; limits: SessionLimits},
  tool: string,
  input: unknown,
  call: () => Promise<unknown>,
): Promise<unknown> {
  const {store, owner, limits} = where;
  const started = Date.now();
  startClock(store, owner, started);
  const seq = logCall(store, owner, tool, input);
  let answer: ToolAnswer;
  try {
    if (clocked.has(tool)) checkClock(store, owner, limits, tool);
    answer = (await call()) as ToolAnswer;
  } catch (error) {
    logOutcome(store, seq, started, {error: (error as Error).message});
    throw error;
  }
  const task = (answer as {task?: {taskId?: string}}).task;
  logOutcome(store, seq, started, {result: answer.structuredContent ?? (task ? {id: task.taskId} : undefined)});
  if (!answer.structuredContent) return answer;
  const structured = {...answer.structuredContent, remaining: remainingOf(sessionOf(store, owner), limits)};
  return {...answer, structuredContent: structured, content: [{type: 'text', text: JSON.stringify(structured)}]};
}

/** A session's calls as `arbor benchmark runs --session` prints them: a header with its counts, then one line per call. */
export function formatSessionLog(log: {session: SessionRow; actions: Action[]}): string {
  const {session, actions} = log;
  const first = session.firstMs === null ? 'no call yet' : `first call ${new Date(session.firstMs).toISOString()}`;
  const lines = [
    `session ${session.id} (workspaces ${session.owner}): ${first}; ${session.devEvals} dev run(s), ${session.devSeconds.toFixed(1)} dev eval s, ${session.sealed} sealed submission(s)`,
  ];
  for (const action of actions) {
    const took = action.ms === null ? '' : ` (${(action.ms / 1000).toFixed(1)} s)`;
    lines.push(`${action.time}  ${action.tool}  ${action.args}  ${action.digest}  ${action.outcome}${took}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The store a zoo's servers share (its ledger's, `<ledger>.mcp.db`), opened
 * for the owner's `arbor benchmark runs --session`; a one-line error when
 * there is none (no server ever ran on the zoo).
 */
export async function openSessionStore(ledger: string): Promise<McpStore> {
  const [{existsSync}, {McpStore, storeFile}, {UsageError}] = await Promise.all([import('node:fs'), import('./store.js'), import('../errors.js')]);
  const file = storeFile(ledger);
  if (!existsSync(file))
    throw new UsageError(`--session: no MCP store at ${file}: no arbor mcp has served this zoo (or pass its ledger with --ledger)`, 'not-found');
  return McpStore.open(file);
}
