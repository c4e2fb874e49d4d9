/** Shared by the MCP tests: a zoo copy, an SDK client, and the scan every tool result goes through. */
import {cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import type {RequestOptions} from '@modelcontextprotocol/sdk/shared/protocol.js';
import {expect} from 'vitest';
import {repoRoot, runCli} from '../helpers/cli.js';

export const salt = 'mcp-test-salt-5e1d7';

/** A run id as a client is given it: 128 random bits, URL-safe (never a count of the zoo's runs). */
export const runIdShape = /^run-[A-Za-z0-9_-]{22}$/;

/** The run id a first progress notification names (`run-… started: …`), if it is one. */
export function startedRun(message: string | undefined): string | undefined {
  return /^(run-[A-Za-z0-9_-]{22}) started/.exec(message ?? '')?.[1];
}

/** The shipped entries the MCP tests drive: a zoo of their own, whatever else the shipped zoo holds. */
const mcpEntries = ['algotune_knn', 'polymul_negacyclic', 'relu_poly', 'toeplitz_solve'];

/**
 * A copy of those entries of the real zoo in a temp folder (never the repository's), relocked: its speed
 * entries at the fewest repetitions the gate accepts (2, no budget past them: submit_test runs the plan as
 * it is, so the copy's plan sets the cost), and test_budget 2 on the entries named (`entries`: other shipped
 * entries instead). `remove` deletes it.
 */
export function zooCopy(budgetTwo: string[] = [], entries: readonly string[] = mcpEntries): {root: string; zoo: string; remove: () => void} {
  const root = mkdtempSync(path.join(tmpdir(), 'arbor-mcp-test-'));
  const zoo = path.join(root, 'zoo');
  const changed: string[] = [];
  for (const name of entries) {
    cpSync(path.join(repoRoot, 'zoo', name), path.join(zoo, name), {recursive: true});
    const plan = path.join(zoo, name, 'plan.toml');
    const text = readFileSync(plan, 'utf8');
    const cheap = text.replace(/^repetitions = \d+/m, 'repetitions = 2').replace(/^max_seconds = \d+/m, 'max_seconds = 0');
    const budget = budgetTwo.includes(name) ? 'test_budget = 2\n' : '';
    if (cheap === text && budget === '') continue;
    writeFileSync(plan, `${budget}${cheap}`);
    changed.push(path.join(zoo, name));
  }
  if (changed.length > 0) {
    const locked = runCli(['benchmark', 'lock', ...changed]);
    expect(locked.code, locked.stderr).toBe(0);
  }
  return {root, zoo, remove: () => rmSync(root, {recursive: true, force: true})};
}

/** Everything a client was told: tool results (text and structured), errors, progress messages. */
export class Transcript {
  readonly texts: string[] = [];

  /** Call a tool, keep its result and progress; the result's structuredContent (throws on a tool error, with its text). */
  async call(client: Client, name: string, args: Record<string, unknown> = {}, options: RequestOptions = {}): Promise<Record<string, any>> {
    const result = await this.raw(client, name, args, options);
    if (result.isError) throw new Error(`${name}: ${(result.content as Array<{text: string}>)[0]!.text}`);
    return result.structuredContent as Record<string, any>;
  }

  /** Call a tool expecting a tool error; its one-line text. */
  async error(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
    const result = await this.raw(client, name, args, {});
    expect(result.isError, JSON.stringify(result)).toBe(true);
    return (result.content as Array<{text: string}>)[0]!.text;
  }

  async raw(client: Client, name: string, args: Record<string, unknown>, options: RequestOptions) {
    const onprogress = (progress: {message?: string}) => {
      this.texts.push(progress.message ?? '');
      options.onprogress?.(progress as never);
    };
    try {
      const result = await client.callTool({name, arguments: args}, undefined, {timeout: 300_000, ...options, onprogress});
      this.texts.push(JSON.stringify(result.content), JSON.stringify(result.structuredContent ?? null));
      return result;
    } catch (error) {
      this.texts.push(String(error));
      throw error;
    }
  }
}

/**
 * The secrets no result may hold: the salt, the salted test seeds of the zoo's entries,
 * and every number the ledger recorded for a test run (scores, intervals, ratios).
 */
async function secrets(zoo: string): Promise<string[]> {
  const {loadPlan} = await import('../../lib/benchmark/plan.js');
  const {splitSeeds} = await import('../../lib/eval/seeds.js');
  const {openLedger} = await import('../../lib/ledger/ledger.js');
  const found = [salt];
  for (const name of readdirSync(zoo).filter((each) => existsSync(path.join(zoo, each, 'plan.toml')))) {
    const plan = await loadPlan(path.join(zoo, name));
    found.push(...splitSeeds(plan, 'test', {ARBOR_TEST_SALT: salt}).seeds.map(String));
  }
  const ledger = openLedger(path.join(zoo, '.arbor/runs.db'), {readonly: true});
  // A number a dev run recorded is the agent's to see: an accuracy entry's case ratios are fractions k/n, and a test case can share one with a dev case.
  const numbersOf = (run: {
    score: number | null;
    interval: number[] | null;
    compare?: {ratio: number | null; interval: number[] | null} | null;
    cases: Array<Record<string, unknown>>;
  }) => {
    const numbers: unknown[] = [run.score, ...(run.interval ?? []), run.compare?.ratio, ...(run.compare?.interval ?? [])];
    for (const each of run.cases) numbers.push(each.ratio, each.seconds);
    return numbers.filter((n): n is number => typeof n === 'number' && Number.isFinite(n)).map(String);
  };
  try {
    const seenOnDev = new Set(ledger.listRuns({split: 'dev', withCases: true}).flatMap(numbersOf));
    for (const run of ledger.listRuns({split: 'test', withCases: true})) {
      // (short ones, like 0.5, would match unrelated text: a full-precision number is what a leak looks like)
      found.push(...numbersOf(run as never).filter((text) => text.length >= 8 && !seenOnDev.has(text)));
    }
  } finally {
    ledger.close();
  }
  return found;
}

/** No text the client saw holds any secret. */
export async function expectSealed(transcript: Transcript, zoo: string, testRuns: number): Promise<void> {
  const {openLedger} = await import('../../lib/ledger/ledger.js');
  const ledger = openLedger(path.join(zoo, '.arbor/runs.db'), {readonly: true});
  const recorded = ledger.listRuns({split: 'test', withCases: false});
  ledger.close();
  // The sealed results went to the ledger in full: the scan has something to look for.
  expect(recorded.length).toBe(testRuns);
  // A speed entry's sealed cases are fresh every repetition; an accuracy entry's seeds are derived from the salt.
  expect(recorded.every((run) => run.seeds.source === (run.metric === 'speedup' ? 'fresh' : 'derived') && run.score !== null)).toBe(true);
  const all = transcript.texts.join('\n');
  const hidden = await secrets(zoo);
  // The salt, 4 entries' test seeds (8 or 16 each) and each test run's numbers.
  expect(hidden.length).toBeGreaterThan(1 + 4 * 8 + testRuns);
  for (const secret of hidden) expect(all.includes(secret), `a result holds ${secret}`).toBe(false);
}

/**
 * Wait until no run of the zoo's MCP store is running (runs outlive their server: a test that ends
 * while a background run goes on would see it write the zoo's ledger after the zoo is removed).
 */
export async function runsSettled(zoo: string, timeoutMs = 120_000): Promise<void> {
  const file = path.join(zoo, '.arbor/runs.db.mcp.db');
  if (!existsSync(file)) return;
  const {default: Sqlite} = await import('better-sqlite3');
  const db = new Sqlite(file, {readonly: true, fileMustExist: true});
  try {
    for (const started = Date.now(); Date.now() - started < timeoutMs; await new Promise((resolve) => setTimeout(resolve, 250))) {
      const {running} = db.prepare("SELECT count(*) AS running FROM runs WHERE status = 'running'").get() as {running: number};
      if (running === 0) return;
    }
  } finally {
    db.close();
  }
}
