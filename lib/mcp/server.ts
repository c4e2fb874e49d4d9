/** The MCP server of `arbor mcp`: the zoo's tools on one McpServer (see README.md here for the tools and what "sealed" means). */
import {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js';
import {z} from 'zod';
import {arborVersion} from '../version.js';
import {registerCatalog} from './catalog.js';
import type {ServerContext} from './context.js';
import {shownDeep, shownText} from './names.js';
import {registerEvaluate} from './evaluate.js';
import {registerRuns} from './runs.js';
import {registerSealed} from './sealed.js';
import {sessionCall} from './session.js';
import {RunTaskStore, routeTaskCalls, taskCapabilities} from './tasks.js';
import {registerWorkspace} from './workspace.js';

export {createContext, type ServerContext} from './context.js';

/** Each session limit's remainder, in every tool answer (null: no such limit). */
const remainingSchema = z.object({
  devEvals: z.number().nullable(),
  devSeconds: z.number().nullable(),
  sealed: z.number().nullable(),
  seconds: z.number().nullable(),
});

/** A server with every tool, over `ctx` (an HTTP server makes one per session, all over one context). */
export function createServer(ctx: ServerContext): McpServer {
  const server = new McpServer(
    {name: 'arbor', version: arborVersion()},
    {
      instructions: `The benchmark zoo: list_benchmarks, get_benchmark, checkout a workspace, edit its solution, evaluate and compare on dev (free, 10-60 s each), then submit_test (sealed: a verdict only; every call spends the test budget). evaluate, compare and submit_test run as tasks, or with background and get_run, for clients that give up on long calls.`,
      capabilities: taskCapabilities,
      taskStore: new RunTaskStore(ctx),
    },
  );
  // Before the tools: the McpServer installs its call and list handlers as the first tool registers.
  routeTaskCalls(server, ctx);
  // Every result and error of every tool names zoo files relative to the zoo (names.ts), never by the owner's absolute paths;
  // every call is one of its client's session (session.ts): logged, held to the wall clock, answered with `remaining`.
  const register = server.registerTool.bind(server);
  const where = {store: ctx.store, owner: ctx.workspaces, limits: ctx.limits};
  const registerTool: McpServer['registerTool'] = (name, config, callback) => {
    // The SDK types a callback by its input schema (a conditional type); this wrapper hands the SDK's arguments on
    // unchanged, whatever the schema, so it is called, and given back, under the plain function type of both ends.
    const inner = callback as (...args: unknown[]) => unknown;
    const outer = async (...args: unknown[]) => {
      try {
        return shownDeep(ctx, await sessionCall(where, name, config.inputSchema ? args[0] : {}, async () => inner(...args)));
      } catch (error) {
        if (error instanceof Error) error.message = shownText(ctx, error.message);
        throw error;
      }
    };
    const outputSchema = config.outputSchema ? {outputSchema: {...config.outputSchema, remaining: remainingSchema}} : {};
    return register(name, {...config, ...outputSchema}, outer as typeof callback);
  };
  server.registerTool = registerTool;
  registerCatalog(server, ctx);
  registerWorkspace(server, ctx);
  registerEvaluate(server, ctx);
  registerRuns(server, ctx);
  registerSealed(server, ctx);
  return server;
}
