/** `list_runs` (the zoo ledger's dev history) and `get_run` (a run any server on the zoo started, by id, from the zoo's MCP store). */
import type {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js';
import {z} from 'zod';
import {UsageError} from '../errors.js';
import {entryDir, type ServerContext} from './context.js';
import {shownLabel} from './names.js';
import {toolResult} from './result.js';

/**
 * The zoo ledger's dev runs a client may see (one benchmark's, or all), and
 * the best and latest eval of each benchmark among them: its own and the
 * owner's (recorded outside MCP), never another client's (jobs.ts,
 * othersLedgerRuns).
 */
export async function devHistory(ctx: ServerContext, name?: string) {
  const [{readRuns, summarizeRuns, minimizedBenchmarks}, {zooAround}] = await Promise.all([import('../ledger/summary.js'), import('../zoo/list.js')]);
  const benchmark = name === undefined ? undefined : entryDir(ctx, name);
  const report = await readRuns({benchmark, split: 'dev', withCases: false, zoo: zooAround(ctx.zoo), cwd: ctx.zoo, env: ctx.env});
  // Read after the ledger: a record made by a run that was still running then has its owner by now, or the run still runs.
  const others = ctx.runs.othersLedgerRuns();
  const runs = report.runs.filter((run) => !others(run));
  return {runs, summary: summarizeRuns(runs, await minimizedBenchmarks(runs))};
}

/** The dev runs of the zoo's ledger this client may see (one benchmark's, or all), newest first, with best and latest per benchmark. */
async function listRuns(ctx: ServerContext, name: string | undefined) {
  const report = await devHistory(ctx, name);
  const runs = report.runs.map((run) => ({
    id: run.id,
    time: run.time,
    kind: run.kind,
    benchmark: run.benchmark.name,
    solution: shownLabel(ctx, run.solutionLabel, run.benchmark.path, run.solutionSha256, run.labelKind),
    solutionSha256: run.solutionSha256,
    score: run.score,
    interval: run.interval,
    status: run.status,
    // A run imported from another ledger (runs --merge) is not this zoo's measurement: said, never its file's path.
    ...(run.importedFrom ? {imported: true} : {}),
    ...(run.compare
      ? {
          compare: {
            verdict: run.compare.verdict,
            ratio: run.compare.ratio,
            interval: run.compare.interval,
            baseline: shownLabel(ctx, run.compare.baselineLabel, run.benchmark.path, run.compare.baselineSha256),
          },
        }
      : {}),
  }));
  const summary = report.summary.map((each) => ({
    benchmark: each.benchmark,
    runs: each.runs,
    best: each.best?.id ?? null,
    bestScore: each.best?.score ?? null,
    latest: each.latest?.id ?? null,
    latestScore: each.latest?.score ?? null,
  }));
  return {summary, runs};
}

/** Register `list_runs` and `get_run`. */
export function registerRuns(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'list_runs',
    {
      title: 'Dev history',
      description:
        "The zoo ledger's dev runs (evals and compares) of yours and of the zoo's owner, newest first, with the best and latest eval per benchmark. A best is only a run whose label says what it was: a label you gave (evaluate's or submit_test's label), a commit, or the entry's solution file (a workspace's solution.py, or the workspace); another file (solution: path@digest) is listed, never a best. A run imported from another ledger says imported: true and is never a best. Test runs are the owner's (arbor benchmark runs --split test).",
      inputSchema: {name: z.string().optional().describe('Only this benchmark')},
      outputSchema: {
        summary: z.array(
          z.object({
            benchmark: z.string(),
            runs: z.number(),
            best: z.number().nullable(),
            bestScore: z.number().nullable(),
            latest: z.number().nullable(),
            latestScore: z.number().nullable(),
          }),
        ),
        runs: z.array(z.record(z.string(), z.unknown())),
      },
    },
    async ({name}) => toolResult(await listRuns(ctx, name)),
  );
  server.registerTool(
    'get_run',
    {
      title: 'Poll a run',
      description:
        "A run of yours (evaluate, compare or submit_test) from any arbor mcp server on this zoo with your workspaces folder (this one, an earlier one, one that has stopped: runs outlive their server), by the id its first progress notification, a background call or a task gave: running (with its progress), done (with the tool's result), failed or cancelled (with why). Ended runs are kept 7 days.",
      inputSchema: {id: z.string().describe('The run id a call gave (run-…)')},
      outputSchema: {
        id: z.string(),
        tool: z.string(),
        status: z.enum(['running', 'done', 'failed', 'cancelled']),
        started: z.string(),
        progress: z.object({updates: z.number(), last: z.string().nullable()}),
        result: z.record(z.string(), z.unknown()).optional(),
        error: z.string().optional(),
      },
    },
    async ({id}) => {
      // Unknown, malformed and another client's ids get the same answer (jobs.ts, Runs.find).
      const number = ctx.runs.find(id);
      const run = number === undefined ? undefined : ctx.runs.view(number);
      if (!run)
        throw new UsageError(
          `run ${JSON.stringify(id)} is not a run of this zoo's servers: pass the id an evaluate, compare or submit_test call gave (ended runs are kept ${ctx.keepMs / 86_400_000} days)`,
          'not-found',
        );
      return toolResult({
        id: run.id,
        tool: run.tool,
        status: run.status,
        started: run.started,
        progress: run.progress,
        ...(run.result ? {result: run.result} : {}),
        ...(run.error ? {error: run.error} : {}),
      });
    },
  );
}
