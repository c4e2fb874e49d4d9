/**
 * What `arbor mcp` keeps beyond one server process, in one SQLite file beside
 * the zoo's ledger (`<ledger>.mcp.db`, mode 0600, in the zoo's `.arbor/`, a
 * folder no tool accepts a path into): the workspaces `checkout` made (so any
 * server on the same zoo and workspaces folder accepts them), the runs
 * (`evaluate`, `compare`, `submit_test`: status, progress, result, the pid of
 * the process running them; `get_run` and MCP tasks answer from here), and
 * the turns of the evals (a sealed eval runs alone). A server started per call
 * (as the MCP Inspector's CLI does) sees what the one before it did.
 *
 * The store is the server's user's: nothing in a workspace, which an agent and
 * its solutions write, is ever read as a marker.
 */
import {createHash, randomBytes} from 'node:crypto';
import {chmodSync, closeSync, mkdirSync, openSync, readFileSync, statSync} from 'node:fs';
import path from 'node:path';
import type {Database} from 'better-sqlite3';

/** A run's state as `get_run` shows it. */
export type RunStatus = 'running' | 'done' | 'failed' | 'cancelled';

/** One run as stored. */
export interface StoredRun {
  /** The store's own row number: never shown to a client (it counts every run on the zoo). */
  id: number;
  /** The id a client is given (`run-<22 url-safe chars>`, 128 random bits); null for a run stored before ids were (version 1). */
  publicId: string | null;
  /** The workspaces folder of the server that started it (jobs.ts, `Runs.find`): the client it belongs to; null before version 2. */
  owner: string | null;
  tool: string;
  sealed: boolean;
  /** submit_test: `<entry>\0<digest>`, so a second call for a solution under way follows the first. */
  key: string | null;
  status: RunStatus;
  started: string;
  startedMs: number;
  updated: string;
  updates: number;
  last: string | null;
  result: Record<string, unknown> | null;
  error: string | null;
  pid: number | null;
  pidStart: string | null;
  /** Whether it was started as an MCP task, its ttl (ms) and poll interval. */
  task: boolean;
  ttlMs: number | null;
  pollMs: number | null;
  /** The entry's name. */
  name: string | null;
  /** A sealed run's release times, and when its failure shows (a run whose process died: at a release time, never before). */
  release: ReleaseClock | null;
  failAt: number | null;
}

/** A workspace `checkout` made, and its entry. */
export interface StoredWorkspace {
  path: string;
  root: string;
  name: string;
  made: string;
  used: string;
}

const schema = `
CREATE TABLE workspaces (
  path TEXT PRIMARY KEY,
  root TEXT NOT NULL,
  name TEXT NOT NULL,
  dev INTEGER NOT NULL,
  ino INTEGER NOT NULL,
  uid INTEGER NOT NULL,
  made TEXT NOT NULL,
  used TEXT NOT NULL
);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tool TEXT NOT NULL,
  sealed INTEGER NOT NULL,
  key TEXT,
  status TEXT NOT NULL,
  started TEXT NOT NULL,
  started_ms INTEGER NOT NULL,
  updated TEXT NOT NULL,
  updates INTEGER NOT NULL DEFAULT 0,
  last TEXT,
  result TEXT,
  error TEXT,
  pid INTEGER,
  pid_start TEXT,
  task INTEGER NOT NULL DEFAULT 0,
  ttl_ms INTEGER,
  poll_ms INTEGER,
  name TEXT,
  release_from INTEGER,
  release_every INTEGER,
  fail_at INTEGER
);
CREATE INDEX runs_key ON runs (key, status);
CREATE TABLE progress (
  run INTEGER NOT NULL,
  n INTEGER NOT NULL,
  text TEXT NOT NULL,
  PRIMARY KEY (run, n)
);
CREATE TABLE turns (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  run INTEGER NOT NULL,
  exclusive INTEGER NOT NULL,
  pid INTEGER NOT NULL,
  pid_start TEXT,
  release_from INTEGER,
  release_every INTEGER,
  until_ms INTEGER
);
`;

/**
 * Version 2: runs get an unguessable public id and an owner (the client's
 * workspaces folder), and the ledger runs a run recorded remember their owner.
 * Rows of version 1 get neither: no client can name them (owned by no one);
 * they are still swept, and count as running runs while they run.
 */
const migrateToV2 = `
ALTER TABLE runs ADD COLUMN public_id TEXT;
ALTER TABLE runs ADD COLUMN owner TEXT;
CREATE UNIQUE INDEX runs_public_id ON runs (public_id);
CREATE TABLE ledger_owners (
  ledger_run INTEGER PRIMARY KEY,
  owner TEXT NOT NULL
);
`;

/**
 * Version 3: sessions (session.ts), one per client (its workspaces folder),
 * with what it spent and the log of its tool calls: counts that outlive a server.
 */
const migrateToV3 = `
CREATE TABLE sessions (
  owner TEXT PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  made TEXT NOT NULL,
  first_ms INTEGER,
  dev_evals INTEGER NOT NULL DEFAULT 0,
  dev_seconds REAL NOT NULL DEFAULT 0,
  sealed INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE actions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  session TEXT NOT NULL,
  time TEXT NOT NULL,
  tool TEXT NOT NULL,
  args TEXT NOT NULL,
  digest TEXT NOT NULL,
  outcome TEXT NOT NULL,
  ms INTEGER
);
CREATE INDEX actions_session ON actions (session, seq);
`;

/** A new public run id: 128 bits from the system's random source, URL-safe (`run-` and 22 characters). */
function newPublicId(): string {
  return `run-${randomBytes(16).toString('base64url')}`;
}

/** The store beside a ledger file. */
export function storeFile(ledger: string): string {
  return `${ledger}.mcp.db`;
}

/**
 * When a process started (field 22 of /proc/<pid>/stat), null when there is
 * no such process: with the pid it names one process, never a later one that
 * got the same pid.
 */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch (error) {
    // Only a process that is not there is gone; any other failure to look (no descriptor left, another pid namespace) counts as there.
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : 'unknown';
  }
}

/** Whether the process `pid` that started at `start` still runs. */
export function alive(pid: number | null, start: string | null): boolean {
  if (pid === null) return false;
  const now = processStart(pid);
  return now !== null && (start === null || now === 'unknown' || now === start);
}

/** A sealed answer's release times: `from` plus a whole number of `every` (ms). */
export interface ReleaseClock {
  from: number;
  every: number;
}

/** The first release time at or after `now` (never before the first). */
export function nextRelease(clock: ReleaseClock, now: number): number {
  return clock.from + Math.max(1, Math.ceil((now - clock.from) / clock.every)) * clock.every;
}

/** The last release time at or before `now` (the first, at the earliest). */
export function lastRelease(clock: ReleaseClock, now: number): number {
  return clock.from + Math.max(1, Math.floor((now - clock.from) / clock.every)) * clock.every;
}

/** A run's process gets its pid within this long of its row (before, a run without one is still starting). */
const startingMs = 30_000;

/** Whether the process of a running run is still there (one without a pid yet is starting, for a while). */
export function runnerAlive(run: StoredRun): boolean {
  if (run.pid === null) return Date.now() - run.startedMs < startingMs;
  return alive(run.pid, run.pidStart);
}

type Row = Record<string, unknown>;

function toRun(row: Row): StoredRun {
  return {
    id: row.id as number,
    publicId: (row.public_id as string | null) ?? null,
    owner: (row.owner as string | null) ?? null,
    tool: row.tool as string,
    sealed: row.sealed === 1,
    key: (row.key as string | null) ?? null,
    status: row.status as RunStatus,
    started: row.started as string,
    startedMs: row.started_ms as number,
    updated: row.updated as string,
    updates: row.updates as number,
    last: (row.last as string | null) ?? null,
    result: row.result ? (JSON.parse(row.result as string) as Record<string, unknown>) : null,
    error: (row.error as string | null) ?? null,
    pid: (row.pid as number | null) ?? null,
    pidStart: (row.pid_start as string | null) ?? null,
    task: row.task === 1,
    ttlMs: (row.ttl_ms as number | null) ?? null,
    pollMs: (row.poll_ms as number | null) ?? null,
    name: (row.name as string | null) ?? null,
    release: row.release_every ? {from: row.release_from as number, every: row.release_every as number} : null,
    failAt: (row.fail_at as number | null) ?? null,
  };
}

/** The store of one zoo (a process opens it once; every method is one short transaction). */
export class McpStore {
  readonly file: string;
  readonly #db: Database;

  private constructor(file: string, db: Database) {
    this.file = file;
    this.#db = db;
  }

  /** Open (creating it, 0600 in a 0700 folder) the store at `file`. */
  static async open(file: string): Promise<McpStore> {
    const {default: Sqlite} = await import('better-sqlite3');
    mkdirSync(path.dirname(file), {recursive: true, mode: 0o700});
    // The folder holds the ledger's test runs and the sealed answers: an earlier command may have made it with the umask's mode.
    const folder = statSync(path.dirname(file));
    if (folder.uid === process.getuid?.() && (folder.mode & 0o077) !== 0) chmodSync(path.dirname(file), 0o700);
    // Created empty with its mode first, so it is never readable by others, not even for a moment.
    closeSync(openSync(file, 'a', 0o600));
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    const db = new Sqlite(file);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 10000');
    db.transaction(() => {
      const version = Number(db.pragma('user_version', {simple: true}));
      if (version === 0) db.exec(schema);
      if (version < 2) {
        db.exec(migrateToV2);
        db.pragma('user_version = 2');
      }
      if (version < 3) {
        db.exec(migrateToV3);
        db.pragma('user_version = 3');
      }
    }).immediate();
    return new McpStore(file, db);
  }

  close(): void {
    this.#db.close();
  }

  /** The database, for session.ts, whose tables (sessions, actions) live here too. */
  sql(): Database {
    return this.#db;
  }

  /** The folder of the runs' logs (0700, the owner's). */
  logFolder(): string {
    return path.join(path.dirname(this.file), 'mcp-logs');
  }

  /**
   * Where a run's process writes its stderr (the owner's; removed when it ends
   * well, else with the run): named by a digest of its public id, so a listing
   * of the folder gives neither the id nor how many runs there were.
   */
  logFile(run: Pick<StoredRun, 'id' | 'publicId'>): string {
    const name = run.publicId === null ? `run-${run.id}` : `run-${createHash('sha256').update(run.publicId).digest('hex').slice(0, 32)}`;
    return path.join(this.logFolder(), `${name}.log`);
  }

  /** Run `change` holding the store's write lock: one process at a time, across every server on this zoo. */
  exclusive<T>(change: () => T): T {
    return this.#db.transaction(change).immediate();
  }

  // --- workspaces ---

  /** Record a workspace `checkout` made (its folder's identity too: a folder put in its place later is not it). */
  addWorkspace(workspace: string, root: string, name: string): void {
    const stats = statSync(workspace);
    const now = new Date().toISOString();
    this.#db
      .prepare('INSERT OR REPLACE INTO workspaces (path, root, name, dev, ino, uid, made, used) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(workspace, root, name, stats.dev, stats.ino, stats.uid, now, now);
  }

  /**
   * The workspace under `root` holding `file` (a real path), and its entry:
   * recorded by a checkout, still the same folder (device, inode), owned by
   * the user who made it. Undefined when none.
   */
  workspaceOf(file: string, root: string): StoredWorkspace | undefined {
    const rows = this.#db.prepare('SELECT * FROM workspaces WHERE root = ?').all(root) as Row[];
    for (const row of rows) {
      const workspace = row.path as string;
      const relative = path.relative(workspace, file);
      if (relative.startsWith('..') || path.isAbsolute(relative)) continue;
      const stats = statSync(workspace, {throwIfNoEntry: false});
      if (!stats?.isDirectory() || stats.dev !== row.dev || stats.ino !== row.ino || stats.uid !== row.uid) continue;
      return {path: workspace, root, name: row.name as string, made: row.made as string, used: row.used as string};
    }
    return undefined;
  }

  /** A tool used the workspace now (the rule for abandoned ones counts from here). */
  touchWorkspace(workspace: string): void {
    this.#db.prepare('UPDATE workspaces SET used = ? WHERE path = ?').run(new Date().toISOString(), workspace);
  }

  /** The workspaces recorded under `root`. */
  workspaces(root: string): StoredWorkspace[] {
    return (this.#db.prepare('SELECT path, root, name, made, used FROM workspaces WHERE root = ? ORDER BY made').all(root) as Row[]).map((row) => ({
      path: row.path as string,
      root: row.root as string,
      name: row.name as string,
      made: row.made as string,
      used: row.used as string,
    }));
  }

  forgetWorkspace(workspace: string): void {
    this.#db.prepare('DELETE FROM workspaces WHERE path = ?').run(workspace);
  }

  // --- runs ---

  /** A new run, running, of `owner`; its row number (its public id is random: `publicIdOf`). Numbers are never reused. */
  createRun(run: {
    owner: string;
    tool: string;
    name?: string;
    sealed: boolean;
    key?: string | null;
    task?: {ttlMs: number | null; pollMs: number} | null;
    release?: ReleaseClock | null;
  }): number {
    const now = new Date();
    const info = this.#db
      .prepare(
        "INSERT INTO runs (public_id, owner, tool, name, sealed, key, status, started, started_ms, updated, task, ttl_ms, poll_ms, release_from, release_every) VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run(
        newPublicId(),
        run.owner,
        run.tool,
        run.name ?? null,
        run.sealed ? 1 : 0,
        run.key ?? null,
        now.toISOString(),
        now.getTime(),
        now.toISOString(),
        run.task ? 1 : 0,
        run.task?.ttlMs ?? null,
        run.task?.pollMs ?? null,
        run.release?.from ?? null,
        run.release?.every ?? null,
      );
    return Number(info.lastInsertRowid);
  }

  /** The running runs that are not sealed, and whose process is there (or starting). */
  runningDevRuns(): number {
    const rows = this.#db.prepare("SELECT * FROM runs WHERE status = 'running' AND sealed = 0").all() as Row[];
    return rows.map(toRun).filter(runnerAlive).length;
  }

  /** When a sealed run whose process died shows its failure (set once). */
  setFailAt(id: number, at: number): void {
    this.#db.prepare('UPDATE runs SET fail_at = ? WHERE id = ? AND fail_at IS NULL').run(at, id);
  }

  run(id: number): StoredRun | undefined {
    const row = this.#db.prepare('SELECT * FROM runs WHERE id = ?').get(id) as Row | undefined;
    return row ? toRun(row) : undefined;
  }

  /**
   * The row number of the run whose public id is `publicId` and whose owner is
   * `owner`; undefined for any other id, another owner's included (one lookup
   * of both in the index, never a prefix match).
   */
  ownedRun(publicId: string, owner: string): number | undefined {
    const row = this.#db.prepare('SELECT id FROM runs WHERE public_id = ? AND owner = ?').get(publicId, owner) as Row | undefined;
    return row ? (row.id as number) : undefined;
  }

  /** The ledger run `ledgerRun` was recorded by run `id`: it is that run's owner's (list_runs shows it to them only). */
  ownLedgerRun(id: number, ledgerRun: number): void {
    this.#db
      .prepare('INSERT OR REPLACE INTO ledger_owners (ledger_run, owner) SELECT ?, owner FROM runs WHERE id = ? AND owner IS NOT NULL')
      .run(ledgerRun, id);
  }

  /** The owner of every ledger run an MCP run recorded. */
  ledgerOwners(): Map<number, string> {
    const rows = this.#db.prepare('SELECT ledger_run, owner FROM ledger_owners').all() as Row[];
    return new Map(rows.map((row) => [row.ledger_run as number, row.owner as string]));
  }

  /**
   * When the oldest dev run of another owner still under way started (ISO), if
   * any: its ledger record may not have its owner yet. A run whose process is
   * gone does not count (it would hide the owner's later runs until someone
   * looked at it).
   */
  othersRunningSince(owner: string): string | null {
    const rows = this.#db.prepare("SELECT * FROM runs WHERE status = 'running' AND sealed = 0 AND owner IS NOT ? ORDER BY started").all(owner) as Row[];
    return rows.map(toRun).find(runnerAlive)?.started ?? null;
  }

  /** The running submit_test of `key` (the first), if any. */
  runningWithKey(key: string): StoredRun | undefined {
    const row = this.#db.prepare("SELECT * FROM runs WHERE key = ? AND status = 'running' ORDER BY id LIMIT 1").get(key) as Row | undefined;
    return row ? toRun(row) : undefined;
  }

  /** The process running `id`. */
  setRunner(id: number, pid: number, start: string | null): void {
    this.#db.prepare('UPDATE runs SET pid = ?, pid_start = ? WHERE id = ?').run(pid, start, id);
  }

  /** One more progress update of a running run (each is kept, so a server polling now and then passes on every one). */
  progress(id: number, text: string): void {
    this.exclusive(() => {
      const info = this.#db
        .prepare("UPDATE runs SET updates = updates + 1, last = ?, updated = ? WHERE id = ? AND status = 'running'")
        .run(text, new Date().toISOString(), id);
      if (info.changes > 0) this.#db.prepare('INSERT INTO progress (run, n, text) SELECT id, updates, ? FROM runs WHERE id = ?').run(text, id);
    });
  }

  /** The progress updates of run `id` after the `after`-th, in order. */
  progressSince(id: number, after: number): Array<{n: number; text: string}> {
    return this.#db.prepare('SELECT n, text FROM progress WHERE run = ? AND n > ? ORDER BY n').all(id, after) as Array<{n: number; text: string}>;
  }

  /** End a running run (a run already ended stays as it ended: a cancel is not undone by a late result); whether it was running. */
  finish(id: number, status: Exclude<RunStatus, 'running'>, outcome: {result?: Record<string, unknown>; error?: string}, at = Date.now()): boolean {
    const info = this.#db
      .prepare("UPDATE runs SET status = ?, result = ?, error = ?, updated = ? WHERE id = ? AND status = 'running'")
      .run(status, outcome.result ? JSON.stringify(outcome.result) : null, outcome.error ?? null, new Date(at).toISOString(), id);
    return info.changes > 0;
  }

  /** The runs of `owner` started as MCP tasks, newest first. */
  taskRuns(owner: string, limit: number, before?: number): StoredRun[] {
    const rows = this.#db
      .prepare('SELECT * FROM runs WHERE task = 1 AND owner = ? AND id < ? ORDER BY id DESC LIMIT ?')
      .all(owner, before ?? Number.MAX_SAFE_INTEGER, limit) as Row[];
    return rows.map(toRun);
  }

  /** Every run's row number and public id (the sweep keeps their logs). */
  runIds(): Array<Pick<StoredRun, 'id' | 'publicId'>> {
    return (this.#db.prepare('SELECT id, public_id FROM runs').all() as Row[]).map((row) => ({
      id: row.id as number,
      publicId: (row.public_id as string | null) ?? null,
    }));
  }

  /** Forget ended runs past their ttl, and any past `keepMs` (their evals stay in the ledger); how many. */
  sweepRuns(keepMs: number, now = Date.now()): number {
    const rows = this.#db.prepare("SELECT id, updated, ttl_ms FROM runs WHERE status != 'running'").all() as Row[];
    const old = rows.filter((row) => Date.parse(row.updated as string) + Math.min((row.ttl_ms as number | null) ?? keepMs, keepMs) < now);
    const remove = this.#db.prepare('DELETE FROM runs WHERE id = ?');
    const removeProgress = this.#db.prepare('DELETE FROM progress WHERE run = ?');
    this.exclusive(() => {
      for (const row of old) remove.run(row.id), removeProgress.run(row.id);
    });
    return old.length;
  }

  // --- turns ---

  /** Queue `run` for its turn (exclusive: a sealed eval, alone; with its release clock, which its turn is held to). */
  enterTurn(run: number, exclusive: boolean, release?: ReleaseClock): number {
    return Number(
      this.#db
        .prepare('INSERT INTO turns (run, exclusive, pid, pid_start, release_from, release_every) VALUES (?, ?, ?, ?, ?, ?)')
        .run(run, exclusive ? 1 : 0, process.pid, processStart(process.pid), release?.from ?? null, release?.every ?? null).lastInsertRowid,
    );
  }

  /**
   * Whether the turn `seq` may go: an exclusive one when it is first in line,
   * a shared one when no exclusive one is ahead of it. Turns of processes
   * that are gone are dropped on the way.
   */
  mayGo(seq: number, now = Date.now()): boolean | 'gone' {
    return this.exclusive(() => {
      const rows = this.#db.prepare('SELECT * FROM turns WHERE seq <= ? ORDER BY seq').all(seq) as Row[];
      const ahead = rows.filter((row) => {
        if (row.seq === seq) return false;
        if (alive(row.pid as number, (row.pid_start as string | null) ?? null)) return true;
        // A sealed turn whose process died is given up at a release time, never before: when it goes says nothing of when its eval ended.
        if (row.release_every) {
          const until = (row.until_ms as number | null) ?? nextRelease({from: row.release_from as number, every: row.release_every as number}, now);
          if (row.until_ms === null) this.#db.prepare('UPDATE turns SET until_ms = ? WHERE seq = ?').run(until, row.seq);
          if (now < until) return true;
        }
        this.#db.prepare('DELETE FROM turns WHERE seq = ?').run(row.seq);
        return false;
      });
      const mine = rows.find((row) => row.seq === seq);
      if (!mine) return 'gone';
      return mine.exclusive === 1 ? ahead.length === 0 : !ahead.some((row) => row.exclusive === 1);
    });
  }

  leaveTurn(seq: number): void {
    this.#db.prepare('DELETE FROM turns WHERE seq = ?').run(seq);
  }
}
