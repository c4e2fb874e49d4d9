/** `evaluate` and `compare` on the dev split: the eval and compare pipelines, each a run in a process of its own (jobs.ts), recorded in the zoo's ledger as the CLI records them. */
import {rmSync, statSync} from 'node:fs';
import type {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js';
import {z} from 'zod';
import {UsageError} from '../errors.js';
import {checkLabel} from '../eval/index.js';
import {costInput, longCallInput, registerLongTool} from './calls.js';
import {confinedPath, entryDir, type ServerContext, workspaceOf} from './context.js';
import {type Snapshot, snapshotSide} from './snapshot.js';
import type {JobRequest} from './run-request.js';
import {againstText, raceTarget} from './against.js';

const splitInput = z.enum(['dev', 'test']).default('dev').describe('dev (the test split is sealed: use submit_test)');
const interval = z.tuple([z.number(), z.number()]).nullable();

/** Refuse the test split here: it is scored only through submit_test. */
function devOnly(tool: string, split: string): void {
  if (split !== 'dev') throw new UsageError(`${tool} runs the dev split only: the test split is sealed; submit a solution to it with submit_test`, 'sealed');
}

/** The benchmark and the solution a call names: a solution path, a workspace, or a name alone (its own solution). */
export async function resolveSolution(ctx: ServerContext, input: {name?: string; workspace?: string; solution?: string}, what = 'solution') {
  const workspace = input.workspace === undefined ? undefined : await confinedPath(ctx, input.workspace, 'workspace');
  if (workspace !== undefined && workspaceOf(ctx, workspace)?.workspace !== workspace)
    throw new UsageError(`workspace ${input.workspace} is not a workspace checkout made: pass a workspace path checkout returned`, 'outside');
  const solution = input.solution === undefined ? undefined : await confinedPath(ctx, input.solution, what);
  const origin = workspaceOf(ctx, solution ?? workspace ?? '\0');
  if (origin) ctx.store.touchWorkspace(origin.workspace);
  const name = input.name ?? origin?.name;
  if (name === undefined) throw new UsageError("name: pass the benchmark's name, or a workspace (or a file in one) from checkout", 'usage');
  const benchmark = entryDir(ctx, name);
  const path = solution ?? workspace;
  if (path === undefined) return {name, benchmark, path, side: {}, snapshot: undefined, plan: undefined};
  // The run reads a copy taken now, each file as checked now (snapshot.ts): never what the workspace holds by the time it runs.
  // The plan read for it goes with the call's run (JobRequest.plan), which reads plan.toml no more.
  const {loadPlan} = await import('../benchmark/plan.js');
  const plan = await loadPlan(benchmark);
  const snapshot = await snapshotSide(ctx, plan, path, what);
  const side = statSync(path).isDirectory() ? {folder: snapshot.path} : {solution: snapshot.path};
  return {name, benchmark, path, side, snapshot, plan};
}

/** What a run needs to know of the copies it reads: their paths as the agent gave them, and the folders to remove. */
export function copiesOf(...snapshots: Array<Snapshot | undefined>): {aliases: Array<[string, string]>; scratch: string[]} {
  const taken = snapshots.filter((each): each is Snapshot => each !== undefined);
  return {aliases: taken.map((each) => [each.path, each.original]), scratch: taken.map((each) => each.scratch)};
}

/** The `label` argument of evaluate and submit_test: what the ledger, list_runs and the report call the solution. */
export const labelInput = z
  .string()
  .optional()
  .describe(
    'What to call this solution in the run history (1-80 printable characters); default its path in the workspace and a short digest, e.g. solution.py@3fa2c1',
  );

/** A call's checked label, as a field to spread (none when it gave none). */
export function labelArgument(input: {label?: string}): {label?: string} {
  return input.label === undefined ? {} : {label: checkLabel(input.label, 'label')};
}

/** The cost override of a call. */
function costOf(input: {repetitions?: number; maxSeconds?: number}): JobRequest['cost'] {
  return input.repetitions === undefined && input.maxSeconds === undefined ? undefined : {repetitions: input.repetitions, maxSeconds: input.maxSeconds};
}

/** A crash's frame in the solution's own files (lib/eval/types.ts CaseFrame). */
const frameSchema = z.object({file: z.string(), line: z.number(), text: z.string().optional()});
const caseSchema = z.object({
  point: z.number(),
  i: z.number(),
  status: z.string(),
  passed: z.boolean(),
  ratio: z.number(),
  seconds: z.number().nullable(),
  note: z.string().optional(),
  where: z.array(frameSchema).optional(),
});
/** A race's answer (lib/compare/against.ts RaceOutcome): what was decided, at what confidence, after how many repetitions. */
const raceSchema = z.object({
  decision: z.enum(['better', 'worse', 'same', 'undecided']),
  within: z.number().optional(),
  confidence: z.number(),
  ratio: z.number().nullable(),
  interval,
  repetitions: z.number(),
  referenceRepetitions: z.number(),
  decided: z.boolean(),
  against: z.object({run: z.number(), score: z.number().nullable()}),
});
const sideSchema = z.object({label: z.string(), score: z.number(), interval, failure: z.string().optional()});

/** What a workspace is, what a case's ratio means: said in the tools' descriptions, so an agent needs nothing else. */
const workspaceText =
  "A workspace is a folder checkout made for you (a git repository with the entry's editable files and a copy of the rest): edit its editable files there, then pass the folder (or its solution file).";
const ratioText =
  "Each case's ratio is, for a speedup benchmark, its speed ratio (reference time / solution time; above 1 is faster); for an accuracy benchmark, the share the verifier credits (metrics numerator / denominator, e.g. points within tolerance / points, 0 for a failed case): a share or an error measure, never a speed ratio.";
const costText =
  'Dev runs cost no budget (only submit_test does), just time: 10-60 s, as a plain call (with progress), a task, or with background and get_run.';

/** What evaluate answers: a plain eval's score and cases, or a race's verdict (`race`) with the candidate's cases. */
const evaluateOutput = {
  id: z.string(),
  status: z.literal('running').optional(),
  name: z.string().optional(),
  split: z.string().optional(),
  metric: z.string().optional(),
  score: z.number().optional(),
  interval: interval.optional(),
  failure: z.string().optional(),
  repetitions: z.number().optional(),
  cases: z.array(caseSchema).optional(),
  runId: z.number().nullable().optional(),
  warnings: z.array(z.string()).optional(),
  verdict: z.enum(['better', 'worse', 'same', 'undecided']).optional(),
  race: raceSchema.optional(),
  reason: z.string().optional(),
};

/** Register `evaluate` and `compare`. */
export function registerEvaluate(server: McpServer, ctx: ServerContext): void {
  const evaluateShape = {
    name: z.string().optional().describe('The benchmark (default: the one the workspace was checked out from)'),
    workspace: z.string().optional().describe('A workspace checkout returned'),
    solution: z.string().optional().describe('A solution file (or folder of editable files) in a workspace or the zoo'),
    split: splitInput,
    label: labelInput,
    against: z.string().max(100).optional().describe(againstText),
    ...costInput,
    ...longCallInput,
  };
  registerLongTool(server, ctx, 'evaluate', {
    title: 'Evaluate a solution on dev',
    description: `Run a solution on the dev split in the sandbox, with the zoo entry's own protected files: a workspace (its editable files), a solution file, or (name alone) the entry's own solution. Returns score, 95% interval, each case's status, ratio and failure note (a crash: where, the file:line and text of its innermost frames in the solution's files), and the run id. On a speedup benchmark where your session has a best dev eval, it races the solution against that run instead (see against): verdict better, worse or same within X%, at 95% confidence, after as few repetitions as decide it. ${ratioText} ${workspaceText} ${costText} Cancelling the call stops the eval.`,
    inputSchema: evaluateShape,
    outputSchema: evaluateOutput,
    start: async (input, task) => {
      devOnly('evaluate', input.split);
      const label = labelArgument(input);
      const {name, benchmark, side, snapshot, plan: snapshotPlan} = await resolveSolution(ctx, input);
      // The plan the run is scored under, read once here when the snapshot did not: the race's reference is checked against it too.
      const {plan, against} = await (async () => {
        const plan = snapshotPlan ?? (input.against === 'none' ? undefined : await (await import('../benchmark/plan.js')).loadPlan(benchmark));
        return {plan, against: plan ? await raceTarget(ctx, input.against, benchmark, name, plan) : undefined};
      })().catch((error: Error) => {
        if (snapshot) rmSync(snapshot.scratch, {recursive: true, force: true});
        throw error;
      });
      const race = against === undefined ? {} : {against};
      const request: JobRequest = {kind: 'eval', benchmark, split: 'dev', ...side, cost: costOf(input), ...label, ...race, ...(plan ? {plan} : {})};
      return ctx.runs.launch({tool: 'evaluate', name, request, ...copiesOf(snapshot)}, {sealed: false, task});
    },
  });
  const compareShape = {
    name: z.string().describe('The benchmark'),
    baseline: z.string().describe('A solution file or workspace folder, or "baseline" for the entry\'s own solution'),
    candidate: z.string().describe('A solution file or workspace folder'),
    split: splitInput,
    ...costInput,
    ...longCallInput,
  };
  registerLongTool(server, ctx, 'compare', {
    title: 'Compare two solutions on dev',
    description: `Run two solutions in one dev eval (same cases, interleaved) and say whether the candidate is better, worse or the same: the ratio candidate/baseline of their scores and its 95% interval. baseline and candidate are solution files or workspace folders; "baseline" names the entry's own solution. ${workspaceText} ${costText}`,
    inputSchema: compareShape,
    outputSchema: {
      id: z.string(),
      status: z.literal('running').optional(),
      name: z.string().optional(),
      split: z.string().optional(),
      verdict: z.enum(['better', 'same', 'worse']).optional(),
      ratio: z.number().nullable().optional(),
      interval: interval.optional(),
      reason: z.string().optional(),
      baseline: sideSchema.optional(),
      candidate: sideSchema.optional(),
      correctness: z.array(z.object({point: z.number(), i: z.number(), failing: z.string()})).optional(),
      runId: z.number().nullable().optional(),
      warnings: z.array(z.string()).optional(),
    },
    start: async (input, task) => {
      devOnly('compare', input.split);
      const benchmark = entryDir(ctx, input.name);
      const {loadPlan} = await import('../benchmark/plan.js');
      const plan = await loadPlan(benchmark);
      // Each side is read now, as checked (a folder's editable files each through its own links), into a copy the run reads (snapshot.ts).
      const take = async (given: string, what: string): Promise<Snapshot | undefined> => {
        if (given === 'baseline') return undefined;
        const found = await confinedPath(ctx, given, what);
        const origin = workspaceOf(ctx, found);
        if (origin) ctx.store.touchWorkspace(origin.workspace);
        return snapshotSide(ctx, plan, found, what);
      };
      const baseline = await take(input.baseline, 'baseline');
      const candidate = await take(input.candidate, 'candidate').catch((error: Error) => {
        if (baseline) rmSync(baseline.scratch, {recursive: true, force: true});
        throw error;
      });
      const request: JobRequest = {
        kind: 'compare',
        benchmark,
        split: 'dev',
        baseline: baseline?.path ?? plan.solution,
        candidate: candidate!.path,
        cost: costOf(input),
        plan,
      };
      return ctx.runs.launch({tool: 'compare', name: input.name, request, ...copiesOf(baseline, candidate)}, {sealed: false, task});
    },
  });
}
