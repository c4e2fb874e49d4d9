/**
 * MCP tasks (the protocol's call-now, poll-later mechanism; the SDK's
 * experimental task API) for the long tools: a client that declares task
 * support calls `evaluate`, `compare` or `submit_test` with a `task`, gets the
 * task at once, and polls `tasks/get` and `tasks/result`, from this server or
 * any later one on the same zoo: a task is a run (`run-<n>`, the same id
 * `get_run` takes), kept in the zoo's MCP store. `tasks/cancel` stops a dev
 * run's eval; a `submit_test` task runs on to its answer. Tools list the three
 * with `execution.taskSupport: "optional"`: a plain call works as before.
 */
import type {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js';
import type {Request, RequestId, Result, Task} from '@modelcontextprotocol/sdk/types.js';
import {CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError} from '@modelcontextprotocol/sdk/types.js';
import type {CreateTaskOptions, TaskStore} from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import {z} from 'zod';
import {longToolsOf} from './calls.js';
import type {ServerContext} from './context.js';
import type {RunView} from './jobs.js';
import {shownDeep, shownText} from './names.js';
import {toolResult} from './result.js';
import {sessionCall} from './session.js';

/** The server's task capabilities: tasks of tools/call, tasks/list, tasks/cancel. */
export const taskCapabilities = {tasks: {list: {}, cancel: {}, requests: {tools: {call: {}}}}};

/** How often a client should poll a task (ms). */
const taskPollMs = 2_000;

/** A run as a task. */
function taskOf(view: RunView, keepMs: number): Task {
  const status = ({running: 'working', done: 'completed', failed: 'failed', cancelled: 'cancelled'} as const)[view.status];
  const message = view.error ?? view.progress.last;
  return {
    taskId: view.id,
    status,
    ttl: view.task?.ttlMs ?? keepMs,
    createdAt: view.started,
    lastUpdatedAt: view.updated,
    pollInterval: view.task?.pollMs ?? taskPollMs,
    ...(message ? {statusMessage: message} : {}),
  };
}

/**
 * The SDK's TaskStore over the zoo's runs. Tasks are made by the long tools
 * themselves (a task is their run), never through createTask. A task is its
 * client's (its server's workspaces folder: jobs.ts, Runs.find), not its
 * session's: every session of the server sees it, and it survives the session
 * that made it; a server of another client finds no such task.
 */
export class RunTaskStore implements TaskStore {
  readonly #ctx: ServerContext;

  constructor(ctx: ServerContext) {
    this.#ctx = ctx;
  }

  /** The task's run when it is this client's (jobs.ts, Runs.find): every other id is no task, with one answer. */
  #view(taskId: string): RunView | undefined {
    const id = this.#ctx.runs.find(taskId);
    return id === undefined ? undefined : this.#ctx.runs.view(id);
  }

  async createTask(_params: CreateTaskOptions, _requestId: RequestId, request: Request): Promise<Task> {
    throw new Error(`${request.method}: tasks are made by evaluate, compare and submit_test only`);
  }

  async getTask(taskId: string): Promise<Task | null> {
    const view = this.#view(taskId);
    return view ? taskOf(view, this.#ctx.keepMs) : null;
  }

  async storeTaskResult(taskId: string): Promise<void> {
    throw new Error(`${taskId}: a task's result is its run's`);
  }

  async getTaskResult(taskId: string): Promise<Result> {
    const view = this.#view(taskId);
    if (!view) throw new Error(`task ${taskId} is not a run of this zoo's servers (ended runs are kept ${this.#ctx.keepMs / 86_400_000} days)`);
    if (view.status === 'done' && view.result) return toolResult(shownDeep(this.#ctx, view.result));
    return {content: [{type: 'text', text: shownText(this.#ctx, view.error ?? `${view.id} is ${view.status}`)}], isError: true};
  }

  async updateTaskStatus(taskId: string, status: Task['status']): Promise<void> {
    const view = this.#view(taskId);
    if (!view) throw new Error(`task ${taskId} is not a run of this zoo's servers`);
    if (status !== 'cancelled') throw new Error(`${taskId}: only its run sets its status`);
    if (view.sealed) throw new Error(`${taskId} is a submit_test: the call has counted, and its test eval runs on to its answer`);
    this.#ctx.runs.cancel(view.number);
  }

  async listTasks(cursor?: string): Promise<{tasks: Task[]; nextCursor?: string}> {
    // A cursor is the public id of the page's last task (its own, never a count of the zoo's runs).
    const before = cursor === undefined ? undefined : this.#ctx.runs.find(cursor);
    if (cursor !== undefined && before === undefined) throw new Error(`cursor ${cursor}: pass the nextCursor of the previous page`);
    const page = 20;
    const runs = this.#ctx.store.taskRuns(this.#ctx.runs.owner, page, before);
    const tasks = runs.flatMap((run) => {
      const view = this.#ctx.runs.view(run.id);
      return view ? [taskOf(view, this.#ctx.keepMs)] : [];
    });
    return {tasks, ...(runs.length === page ? {nextCursor: runs.at(-1)!.publicId!} : {})};
  }
}

type Handler = (request: unknown, extra: unknown) => unknown;

/**
 * Route the task calls of the long tools to their start, and list those tools
 * as task-capable; everything else goes to the McpServer's own handlers. Set
 * before any tool is registered (the McpServer installs its handlers then).
 */
export function routeTaskCalls(server: McpServer, ctx: ServerContext): void {
  const protocol = server.server;
  // The SDK types a handler by its request schema (a generic method); this router compares schemas by identity and hands
  // requests and answers on unchanged, so it holds the method, and gives it back, under one plain function type.
  const set = protocol.setRequestHandler.bind(protocol) as (schema: unknown, handler: Handler) => void;
  const route = (schema: unknown, handler: Handler): void => {
    if (schema === CallToolRequestSchema)
      return set(schema, (request, extra) => {
        const call = request as z.infer<typeof CallToolRequestSchema>;
        const task = taskCall(server, ctx, call);
        // A task call is one of the session's calls too (session.ts), logged as the tool's name and "(task)".
        const where = {store: ctx.store, owner: ctx.workspaces, limits: ctx.limits};
        return task ? sessionCall(where, `${call.params.name} (task)`, call.params.arguments, () => task) : handler(request, extra);
      });
    if (schema === ListToolsRequestSchema) {
      return set(schema, async (request, extra) => {
        const listed = (await handler(request, extra)) as {tools: Array<{name: string; execution?: unknown}>};
        for (const tool of listed.tools) if (longToolsOf(server).has(tool.name)) tool.execution = {taskSupport: 'optional'};
        return listed;
      });
    }
    return set(schema, handler);
  };
  protocol.setRequestHandler = route as typeof protocol.setRequestHandler;
}

/** A task call of a long tool: its run started, the task answered. Undefined for any other call. */
function taskCall(server: McpServer, ctx: ServerContext, request: z.infer<typeof CallToolRequestSchema>): Promise<{task: Task}> | undefined {
  const task = request.params.task;
  if (!task) return undefined;
  const tool = longToolsOf(server).get(request.params.name);
  // Any other tool answers at once: asked as a task, it is refused before it runs (checkout would make a workspace for nothing).
  if (!tool)
    return Promise.reject(
      new McpError(ErrorCode.InvalidParams, `${request.params.name} does not run as a task (evaluate, compare and submit_test do): call it without "task"`),
    );
  return (async () => {
    const parsed = z.object(tool.shape).safeParse(request.params.arguments ?? {});
    if (!parsed.success) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Input validation error: Invalid arguments for tool ${request.params.name}: ${z.prettifyError(parsed.error)}`,
      );
    }
    const ttlMs = Math.min(task.ttl ?? ctx.keepMs, ctx.keepMs);
    let id: number;
    try {
      id = await tool.start(parsed.data, {ttlMs, pollMs: taskPollMs});
    } catch (error) {
      // Refused before any run (a path outside, the budget spent): one line, as the plain call's tool error.
      throw new McpError(ErrorCode.InvalidParams, shownText(ctx, (error as Error).message));
    }
    return {task: taskOf(ctx.runs.view(id)!, ctx.keepMs)};
  })();
}
