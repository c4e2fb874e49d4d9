/** `checkout`: a fresh workspace of a zoo entry, as `arbor benchmark checkout` makes it, under the server's workspaces folder. */
import {createHash} from 'node:crypto';
import {mkdirSync, readdirSync, rmSync} from 'node:fs';
import path from 'node:path';
import type {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js';
import {z} from 'zod';
import {UsageError} from '../errors.js';
import {entryDir, type ServerContext} from './context.js';
import {isInside, realOrResolved} from './paths.js';
import {toolResult} from './result.js';

/** Where a checkout goes: `dest` under the workspaces folder (a name or a path inside it), else `<name>-<n>`. */
function workspaceTarget(ctx: ServerContext, name: string, dest: string | undefined): string {
  mkdirSync(ctx.workspaces, {recursive: true, mode: 0o700});
  const root = realOrResolved(ctx.workspaces);
  if (dest === undefined) {
    const taken = new Set(readdirSync(root));
    let n = 1;
    while (taken.has(`${name}-${n}`)) n++;
    return path.join(root, `${name}-${n}`);
  }
  const target = realOrResolved(path.resolve(root, dest));
  if (!isInside(target, root) || target === root)
    throw new UsageError(`dest ${dest}: outside the workspaces folder ${root}: pass a new folder name (e.g. ${name}-work)`, 'outside');
  // One name, right under the workspaces folder: never inside a workspace, whose folders the agent writes.
  if (path.dirname(target) !== root || dest.includes('/') || dest.startsWith('.'))
    throw new UsageError(`dest ${dest}: a folder name right under the workspaces folder (no "/", not hidden): pass a new name (e.g. ${name}-work)`, 'usage');
  return target;
}

/** Register `checkout`. */
export function registerWorkspace(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'checkout',
    {
      title: 'Check out a workspace',
      description:
        "Copy a benchmark into a fresh workspace: a folder of your own under the server's workspaces folder, a git repository (the baseline committed) with the entry's files, as `arbor benchmark checkout` makes it; a path split's test data is left out (sealedTestData says which folder). Edit its editable files (editable; the rest is the entry's and is never what runs), then pass the workspace (or a solution file in it) to evaluate, compare and submit_test. Every arbor mcp server on this zoo and workspaces folder knows it, so one started per call does too; one no tool has used for 7 days is removed. dest is a new folder name under the workspaces folder (default <name>-<n>).",
      inputSchema: {name: z.string().describe('The benchmark'), dest: z.string().optional().describe("A new folder name under the server's workspaces folder")},
      outputSchema: {
        name: z.string(),
        workspace: z.string(),
        solution: z.string(),
        editable: z.array(z.string()),
        files: z.number(),
        commit: z.string(),
        sealedTestData: z
          .object({folder: z.string(), files: z.number()})
          .nullable()
          .describe("A path split's test data folder, left out of the workspace (sealed: submit_test runs it)"),
      },
    },
    async ({name, dest}) => {
      const dir = entryDir(ctx, name);
      const target = workspaceTarget(ctx, name, dest);
      const [{checkoutBenchmark}, {loadPlan}] = await Promise.all([import('../zoo/checkout.js'), import('../benchmark/plan.js')]);
      const result = await checkoutBenchmark(dir, target);
      const workspace = realOrResolved(result.dest);
      if (workspace !== target || path.dirname(workspace) !== realOrResolved(ctx.workspaces)) {
        throw new UsageError(`dest ${dest ?? path.basename(target)}: the workspace was moved while it was made: check out again`, 'outside');
      }
      // Recorded in the store (the server's, never the workspace's): any later server on this zoo and workspaces folder accepts it.
      ctx.store.addWorkspace(workspace, realOrResolved(ctx.workspaces), name);
      const plan = await loadPlan(dir);
      const solution = path.join(workspace, path.relative(dir, plan.solution));
      return toolResult({
        name,
        workspace,
        solution,
        editable: plan.editable,
        files: result.files,
        commit: result.commit,
        sealedTestData: result.sealedTestData,
      });
    },
  );
}

/**
 * The workspaces folder when `--workspaces` names none: one per user and zoo,
 * `$XDG_STATE_HOME/arbor/workspaces/<zoo>-<hash of its path>` (else under
 * `~/.local/state`), so every server of the user on the zoo (one per call, or
 * after a restart) finds the workspaces the last one made.
 */
export function defaultWorkspaces(zoo: string, env: NodeJS.ProcessEnv, home: string): string {
  const state = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(home, '.local', 'state');
  return path.join(state, 'arbor', 'workspaces', `${path.basename(zoo)}-${createHash('sha256').update(zoo).digest('hex').slice(0, 8)}`);
}

/**
 * The rule for abandoned workspaces: those checkout made in this server's
 * workspaces folder that no tool has used (checkout, evaluate, compare,
 * submit_test) for `ctx.keepMs` are removed, and the store forgets those whose
 * folder is gone. Only folders the store recorded, inside the workspaces
 * folder, still the ones checkout made. Returns the names removed.
 */
export function sweepWorkspaces(ctx: ServerContext, now = Date.now()): string[] {
  const root = realOrResolved(ctx.workspaces);
  const removed: string[] = [];
  for (const each of ctx.store.workspaces(root)) {
    const same = ctx.store.workspaceOf(each.path, root)?.path === each.path;
    if (!same) {
      // Gone, or another folder in its place: forgotten, never removed.
      ctx.store.forgetWorkspace(each.path);
      continue;
    }
    if (Date.parse(each.used) + ctx.keepMs > now || !isInside(each.path, root) || each.path === root) continue;
    rmSync(each.path, {recursive: true, force: true});
    ctx.store.forgetWorkspace(each.path);
    removed.push(path.basename(each.path));
  }
  return removed;
}
