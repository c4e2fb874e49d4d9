/** `list_benchmarks` and `get_benchmark`: what the zoo holds, as an agent needs it (never a test seed or the salt). */
import {readFile} from 'node:fs/promises';
import path from 'node:path';
import type {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js';
import {z} from 'zod';
import type {LedgerRun} from '../ledger/ledger.js';
import {entryDir, type ServerContext} from './context.js';
import {shownLabel} from './names.js';
import {toolResult} from './result.js';

const devScore = z
  .object({
    run: z.number(),
    score: z.number().nullable(),
    interval: z.tuple([z.number(), z.number()]).nullable(),
    solution: z.string().nullable(),
    time: z.string(),
  })
  .nullable();

/** A ledger run as a dev score: its id, score, interval, solution and time. */
function scoreOf(ctx: ServerContext, run: LedgerRun | null): z.infer<typeof devScore> {
  return (
    run && {
      run: run.id,
      score: run.score,
      interval: run.interval,
      solution: shownLabel(ctx, run.solutionLabel, run.benchmark.path, run.solutionSha256, run.labelKind),
      time: run.time,
    }
  );
}

/** Every entry of the zoo: verify status, metric, direction, best and latest dev score. */
async function listBenchmarks(ctx: ServerContext) {
  const [{listZoo}, {loadPlan}, {devHistory}, {entryReleaseSeconds}] = await Promise.all([
    import('../zoo/list.js'),
    import('../benchmark/plan.js'),
    import('./runs.js'),
    import('./release.js'),
  ]);
  const listing = await listZoo({zoo: ctx.zoo, cwd: ctx.zoo});
  // Another client's runs are not this one's best or latest (runs.ts).
  const history = await devHistory(ctx);
  const benchmarks = [];
  for (const row of listing.benchmarks) {
    const plan = await loadPlan(path.join(ctx.zoo, row.name)).catch(() => undefined);
    const summary = history.summary.find((each) => each.benchmark === (plan?.name ?? row.name));
    benchmarks.push({
      name: row.name,
      title: row.title,
      metric: plan?.metric ?? null,
      direction: plan?.direction ?? null,
      verify: row.status,
      ...(row.problem ? {problem: row.problem} : {}),
      bestDev: scoreOf(ctx, summary?.best ?? null),
      latestDev: scoreOf(ctx, summary?.latest ?? null),
      sealedAnswerSeconds: plan ? await entryReleaseSeconds(ctx, plan) : null,
    });
  }
  return {benchmarks};
}

/** One entry: README, the solution's contract, the plan's splits (dev in full; test as its size only). */
async function getBenchmark(ctx: ServerContext, name: string) {
  const dir = entryDir(ctx, name);
  const [{loadPlan}, {loadBundle}, {pointSignature}, {entryReleaseSeconds}] = await Promise.all([
    import('../benchmark/plan.js'),
    import('../bundle/index.js'),
    import('../eval/index.js'),
    import('./release.js'),
  ]);
  const plan = await loadPlan(dir);
  const readme = await readFile(path.join(dir, 'README.md'), 'utf8').catch(() => null);
  const bundle = await loadBundle(plan.bundle, {checkFingerprint: false}).catch(() => undefined);
  const signatures = bundle ? plan.dev.points.map((point) => ({point, ...pointSignature(bundle, point)})) : [];
  const rel = (file: string) => path.relative(dir, file).split(path.sep).join('/');
  return {
    name,
    folder: name,
    readme,
    metric: plan.metric,
    direction: plan.direction,
    contract: {solution: rel(plan.solution), editable: plan.editable, signatures, ...(plan.metric === 'speedup' ? {clock: plan.clock} : {})},
    splits: {
      kind: plan.splitKind,
      dev: plan.splitKind === 'path' ? {folder: plan.dev.path ? rel(plan.dev.path) : null} : {seeds: plan.dev.seedsText, points: plan.dev.points},
      // The test split's size and points, never its seeds: with ARBOR_TEST_SALT they are secret.
      test: plan.splitKind === 'path' ? {sealed: true} : {sealed: true, cases: plan.test.seeds.length * plan.test.points.length, points: plan.test.points},
    },
    testBudget: plan.testBudget,
    // Stated before any call: submit_test answers this long after it is called, pass or failure (release.ts).
    sealedAnswerSeconds: await entryReleaseSeconds(ctx, plan),
  };
}

/** Register the two catalog tools. */
export function registerCatalog(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'list_benchmarks',
    {
      title: 'List the zoo',
      description:
        "Every benchmark of the zoo: name, metric (speedup or accuracy), direction, verify status (ok, failing, broken), the best and latest dev score from the zoo's run ledger, and sealedAnswerSeconds: how long after a submit_test call its answer comes.",
      inputSchema: {},
      outputSchema: {
        benchmarks: z.array(
          z.object({
            name: z.string(),
            title: z.string().nullable(),
            metric: z.enum(['speedup', 'accuracy']).nullable(),
            direction: z.enum(['maximize', 'minimize']).nullable(),
            verify: z.enum(['ok', 'failing', 'broken']),
            problem: z.string().optional(),
            bestDev: devScore,
            latestDev: devScore,
            sealedAnswerSeconds: z.number().nullable(),
          }),
        ),
      },
    },
    async () => toolResult(await listBenchmarks(ctx)),
  );
  server.registerTool(
    'get_benchmark',
    {
      title: 'Describe a benchmark',
      description:
        "One benchmark: its README, the solution's contract (the solution file, the files a solution may edit, the arguments and results with their types and shapes at each dev point), the dev split (seeds and points), the test split's size (its seeds are sealed), testBudget (submit_test calls allowed) and sealedAnswerSeconds (how long after a submit_test call its answer comes, whatever the solution: fixed per benchmark).",
      inputSchema: {name: z.string().describe('The benchmark (a folder name of the zoo, as list_benchmarks gives it)')},
      outputSchema: {
        name: z.string(),
        folder: z.string(),
        readme: z.string().nullable(),
        metric: z.enum(['speedup', 'accuracy']),
        direction: z.enum(['maximize', 'minimize']),
        contract: z.object({
          solution: z.string(),
          editable: z.array(z.string()),
          signatures: z.array(z.record(z.string(), z.unknown())),
          clock: z.string().optional(),
        }),
        splits: z.object({kind: z.string(), dev: z.record(z.string(), z.unknown()), test: z.record(z.string(), z.unknown())}),
        testBudget: z.number(),
        sealedAnswerSeconds: z.number(),
      },
    },
    async ({name}) => toolResult(await getBenchmark(ctx, name)),
  );
}
