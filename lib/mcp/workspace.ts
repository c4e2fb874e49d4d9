/** `checkout`: a fresh workspace of a zoo entry, as `arbor benchmark checkout` makes it, under the server's workspaces folder. */
import {mkdirSync, readdirSync} from 'node:fs';
import path from 'node:path';
import type {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js';
import {z} from 'zod';
import {UsageError} from '../errors.js';
import {entryDir, isInside, realOrResolved, type ServerContext} from './context.js';
import {toolResult} from './result.js';

/** Where a checkout goes: `dest` under the workspaces folder (a name or a path inside it), else `<name>-<n>`. */
export function workspaceTarget(ctx: ServerContext, name: string, dest: string | undefined): string {
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
  return target;
}

/** Register `checkout`. */
export function registerWorkspace(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'checkout',
    {
      title: 'Check out a workspace',
      description:
        "Copy a benchmark into a fresh workspace (git init, the baseline committed), as `arbor benchmark checkout` does; a path split's test data is left out (sealedTestData says which folder). Edit the solution there, then pass the workspace (or a solution file in it) to evaluate, compare and submit_test. dest is a new folder name under the server's workspaces folder (default <name>-<n>).",
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
      ctx.made.set(workspace, name);
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
