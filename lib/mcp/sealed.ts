/**
 * `submit_test`: the sealed test evaluation. The solution is compared with
 * the entry's own solution on the test split (salted seeds when the server has
 * ARBOR_TEST_SALT); the whole comparison goes to the zoo's ledger, for the
 * owner (`arbor benchmark runs --split test`), and the tool answers only a
 * verdict, a coarse bucket and the budget count: never the score, the cases or
 * the seeds. Each distinct solution counts against the plan's test_budget;
 * past it the tool refuses.
 */
import {mkdtemp, readFile, rm} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {statSync} from 'node:fs';
import type {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js';
import {z} from 'zod';
import {RefusedError} from '../errors.js';
import type {CompareReport} from '../compare/index.js';
import type {Plan} from '../benchmark/plan.js';
import {saltVariable} from '../eval/seeds.js';
import {derivedTestSeeds, evalEnvironment, seedRedactor} from '../run/eval-process.js';
import {awaitJob, longCallInput, progressTo} from './calls.js';
import type {ServerContext} from './context.js';
import {recordCompare, resolveSolution} from './evaluate.js';
import type {JobMessage} from './job-child.js';
import {toolResult} from './result.js';

/** The coarse buckets of candidate/baseline a sealed result may say (edges in x). */
export const buckets = ['failed', '<0.5x', '0.5-0.9x', '0.9-1.1x', '1.1-2x', '2-10x', '>=10x'] as const;

/** The bucket of a test comparison: `failed` when the candidate fails a case, else its ratio's range. */
export function bucketOf(report: Pick<CompareReport, 'ratio' | 'correctness'>): (typeof buckets)[number] {
  const ratio = report.ratio;
  if (ratio === null || report.correctness.some((c) => c.failing !== 'baseline')) return 'failed';
  const edges: Array<[number, (typeof buckets)[number]]> = [[0.5, '<0.5x'], [0.9, '0.5-0.9x'], [1.1, '0.9-1.1x'], [2, '1.1-2x'], [10, '2-10x']];
  return edges.find(([edge]) => ratio < edge)?.[1] ?? '>=10x';
}

/** The digest the ledger will give the solution (its editable files), to tell a new solution from one already scored. */
async function digestOf(plan: Plan, solution: string): Promise<string> {
  const {solutionDigest} = await import('../ledger/digest.js');
  const folder = statSync(solution).isDirectory();
  const files = [];
  for (const rel of plan.editable) {
    const file = folder ? path.join(solution, rel) : path.join(plan.dir, rel) === plan.solution ? solution : path.join(plan.dir, rel);
    const bytes = await readFile(file).catch(() => undefined);
    if (bytes) files.push({path: rel, bytes});
  }
  return solutionDigest(files);
}

/** Distinct solutions scored on test so far, and whether `digest` is one of them. */
async function exposure(ctx: ServerContext, plan: Plan, digest?: string): Promise<{count: number; seen: boolean}> {
  const [{openLedger}, {ledgerPathFor}] = await Promise.all([import('../ledger/ledger.js'), import('../ledger/location.js')]);
  const file = ledgerPathFor(plan.dir, ctx.env, ctx.zoo);
  if (!statSync(file, {throwIfNoEntry: false})) return {count: 0, seen: false};
  const ledger = openLedger(file, {readonly: true});
  try {
    const runs = ledger.listRuns({benchmark: plan.name, split: 'test', withCases: false}).filter((run) => run.status !== 'error');
    const seen = digest !== undefined && runs.some((run) => run.solutionSha256 === digest || run.compare?.baselineSha256 === digest);
    return {count: ledger.testExposure(plan.name), seen};
  } finally {
    ledger.close();
  }
}

/** The verdict a sealed result carries: the gate's action for speed entries, compare's verdict for accuracy. */
async function verdictOf(report: CompareReport, plan: Plan): Promise<string> {
  if (plan.metric !== 'speedup') return report.verdict;
  const {writePackage} = await import('../compare/index.js');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-mcp-package-'));
  try {
    return (await writePackage(dir, report, plan)).action;
  } finally {
    await rm(dir, {recursive: true, force: true});
  }
}

/** Register `submit_test`. */
export function registerSealed(server: McpServer, ctx: ServerContext): void {
  const pending = new Set<string>();
  server.registerTool(
    'submit_test',
    {
      title: 'Submit a solution to the sealed test split',
      description:
        "The sealed test evaluation: the solution is compared with the entry's own solution on the test split. The answer is only a verdict (PASS, REVIEW, BLOCK or INCOMPARABLE from the gate for speedup benchmarks; better, same or worse for accuracy), a coarse bucket of the ratio and the test budget count: never the score, the cases or the seeds (the full result goes to the ledger, for the owner). Each distinct solution counts against the benchmark's test_budget; past it the tool refuses.",
      inputSchema: {
        name: z.string().optional().describe('The benchmark (default: the one the workspace was checked out from)'),
        solution: z.string().describe('A solution file or a workspace folder'),
        ...longCallInput,
      },
      outputSchema: {
        id: z.string(),
        status: z.literal('running').optional(),
        name: z.string().optional(),
        verdict: z.enum(['PASS', 'REVIEW', 'BLOCK', 'INCOMPARABLE', 'better', 'same', 'worse']).optional(),
        bucket: z.enum(buckets).optional(),
        budget: z.object({used: z.number(), of: z.number()}).optional(),
      },
    },
    async (input, extra) => {
      const {name, benchmark, path: solution} = await resolveSolution(ctx, {name: input.name, solution: input.solution});
      const {loadPlan} = await import('../benchmark/plan.js');
      const plan = await loadPlan(benchmark);
      const digest = await digestOf(plan, solution!);
      const {count, seen} = await exposure(ctx, plan, digest);
      const inFlight = [...pending].filter((key) => key.startsWith(`${plan.name}\0`) && key !== `${plan.name}\0${digest}`).length;
      if (!seen && count + inFlight >= plan.testBudget) {
        throw new RefusedError(
          `submit_test: the test split of ${name} has scored ${count} distinct solutions (its baseline included), its test_budget of ${plan.testBudget} is spent: choose between solutions on dev with compare`,
          'budget',
        );
      }
      const testSeeds = await derivedTestSeeds(plan, 'test', ctx.env);
      const salt = ctx.env[saltVariable];
      const blank = seedRedactor(plan, testSeeds);
      const redact = (text: string) => blank(salt ? text.split(salt).join('<salt>') : text);
      const key = `${plan.name}\0${digest}`;
      pending.add(key);
      const finish = async (answer: JobMessage) => {
        const report = (answer as {report: CompareReport}).report;
        await recordCompare(ctx, report);
        const verdict = await verdictOf(report, plan);
        return {id: job.id, name, verdict, bucket: bucketOf(report), budget: {used: (await exposure(ctx, plan)).count, of: plan.testBudget}};
      };
      // The plan's own repetitions and budget: the agent cannot buy a cheaper, thinner test verdict.
      const request = {kind: 'compare' as const, benchmark, split: 'test' as const, baseline: plan.solution, candidate: solution, testSeeds};
      const job = ctx.jobs.start('submit_test', request, finish, {env: evalEnvironment(ctx.env), sealed: true, redact, onProgress: progressTo(extra)});
      job.done.finally(() => pending.delete(key)).catch(() => {});
      return toolResult(await awaitJob(job, extra, input.background));
    },
  );
}
