/**
 * The long tools (evaluate, compare, submit_test): each call starts a run
 * (jobs.ts), then answers in one of three ways. As a plain call it reports the
 * run's progress to the client (when it sent a progress token) and waits; a
 * client's cancellation stops the eval, a client's own timeout does not (the
 * SDK words it "Request timed out"): the run goes on and `get_run` gives its
 * result. With `background` it answers the run id at once. As an MCP task
 * (tasks.ts) it answers the task, which is the run.
 */
import type {McpServer, ToolCallback} from '@modelcontextprotocol/sdk/server/mcp.js';
import type {RequestHandlerExtra} from '@modelcontextprotocol/sdk/shared/protocol.js';
import type {ServerNotification, ServerRequest} from '@modelcontextprotocol/sdk/types.js';
import {z} from 'zod';
import type {ServerContext} from './context.js';
import type {RunView, TaskOptions} from './jobs.js';
import {answerAt} from './release.js';
import {toolResult} from './result.js';

/** The `extra` the SDK hands a tool handler. */
type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Inputs every long tool takes. */
export const longCallInput = {
  background: z.boolean().optional().describe('Return at once with the run id (status "running"); poll get_run for the result'),
};

/** Cost inputs of a dev run: fewer repetitions or seconds (what is measured stays the plan\'s). */
export const costInput = {
  repetitions: z.number().int().min(1).max(100).optional().describe("speedup: the fewest timed repetitions (default: the plan's)"),
  maxSeconds: z.number().min(0).max(3600).optional().describe("speedup: seconds for repetitions past the fewest (default: the plan's max_seconds)"),
};

/** A long tool: its input shape, and how a call starts its run (the run's number; `task` when called as an MCP task). */
export interface LongTool<Shape extends z.ZodRawShape> {
  shape: Shape;
  start: (input: z.infer<z.ZodObject<Shape>>, task: TaskOptions | null) => Promise<number>;
}

/** Each server's long tools by name (tasks.ts starts them as tasks). */
const longTools = new WeakMap<McpServer, Map<string, LongTool<z.ZodRawShape>>>();

/** The long tools registered on `server`. */
export function longToolsOf(server: McpServer): Map<string, LongTool<z.ZodRawShape>> {
  let tools = longTools.get(server);
  if (!tools) longTools.set(server, (tools = new Map()));
  return tools;
}

/** Register a long tool: a plain call (waits, or `background`), and a task (tasks.ts). */
export function registerLongTool<Shape extends z.ZodRawShape & typeof longCallInput>(
  server: McpServer,
  ctx: ServerContext,
  name: string,
  config: {title: string; description: string; inputSchema: Shape; outputSchema: z.ZodRawShape; start: LongTool<Shape>['start']},
): void {
  const {start, inputSchema, ...tool} = config;
  // Registered under the widened shape: the SDK's ToolCallback of a generic Shape is a conditional type TypeScript cannot resolve.
  const shape: z.ZodRawShape = inputSchema;
  const callback: ToolCallback<z.ZodRawShape> = async (input, extra) => {
    // The SDK has parsed `input` with this tool's schema, which is Shape: the one cast names what that parse gave.
    const parsed = input as z.infer<z.ZodObject<Shape>>;
    const id = await start(parsed, null);
    return toolResult(await awaitRun(ctx, id, extra, input.background === true, () => server.isConnected()));
  };
  server.registerTool(name, {...tool, inputSchema: shape}, callback);
  longToolsOf(server).set(name, {shape: config.inputSchema, start: start as LongTool<z.ZodRawShape>['start']});
}

/** One progress notification of a run to the call that waits on it; settles once it is written (or was not sent). */
function notify(extra: Extra, progress: number, message: string): Promise<void> {
  const token = extra._meta?.progressToken;
  if (token === undefined || extra.signal.aborted) return Promise.resolve();
  return extra.sendNotification({method: 'notifications/progress', params: {progressToken: token, progress, message}}).catch(() => {});
}

/**
 * How long a call's answer waits after a progress notification. The SDK's client handles a
 * notification on a later microtask but a response at once, and forgets the call's progress
 * handler with it: a run's last progress lines, read in the same chunk as the answer, would be
 * dropped. The pause lets the client read them first.
 */
const lastProgressSettleMs = 50;

/**
 * Wait for run `id` on behalf of one call (or not, with `background`); the
 * first progress notification names it. A client's cancellation stops the run;
 * its own timeout does not, nor does the connection closing (the SDK aborts
 * every call then, with no reason, before `connected` turns false): the run
 * goes on for `get_run` or a task of another server.
 */
async function awaitRun(ctx: ServerContext, id: number, extra: Extra, background: boolean, connected: () => boolean): Promise<Record<string, unknown>> {
  const runId = ctx.runs.publicId(id);
  // A sealed run's answer time is fixed at the call: said first, so a client can set its timeout (or poll) by it.
  const at = ctx.runs.view(id)?.answerAt;
  const when = at === undefined ? '' : `${answerAt(at)}; `;
  void notify(extra, 0, `${runId} started: ${when}should this call time out, poll get_run {"id": "${runId}"} for the result`);
  if (background) return {id: runId, status: 'running'};
  const onAbort = () => {
    const reason = extra.signal.reason;
    if (typeof reason === 'string') {
      if (!/timed out/i.test(reason)) ctx.runs.cancel(id);
      return;
    }
    setImmediate(() => connected() && ctx.runs.cancel(id));
  };
  extra.signal.addEventListener('abort', onAbort, {once: true});
  let view: RunView;
  let lastSent: Promise<void> | undefined;
  try {
    view = await ctx.runs.wait(id, (update) => {
      lastSent = notify(extra, update.n, `${runId}: ${update.text}`);
    });
  } finally {
    extra.signal.removeEventListener('abort', onAbort);
  }
  if (lastSent) {
    await lastSent;
    await new Promise((resolve) => setTimeout(resolve, lastProgressSettleMs));
  }
  if (view.status === 'done' && view.result) return view.result;
  throw new Error(view.error ?? `${runId} ended without a result`);
}
