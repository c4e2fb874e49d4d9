/**
 * A long tool call: start the job, report its progress to the client (when it
 * sent a progress token), and wait. A client's cancellation stops the eval; a
 * client's own timeout does not (the SDK words it "Request timed out"): the job
 * runs on and `get_run` gives its result.
 */
import type {RequestHandlerExtra} from '@modelcontextprotocol/sdk/shared/protocol.js';
import type {ServerNotification, ServerRequest} from '@modelcontextprotocol/sdk/types.js';
import {z} from 'zod';
import type {Job} from './jobs.js';

/** The `extra` the SDK hands a tool handler. */
export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Inputs every long tool takes. */
export const longCallInput = {
  background: z.boolean().optional().describe('Return at once with the run id (status "running"); poll get_run for the result'),
};

/** Cost inputs of a dev run: fewer repetitions or seconds (what is measured stays the plan\'s). */
export const costInput = {
  repetitions: z.number().int().min(1).max(100).optional().describe("speedup: the fewest timed repetitions (default: the plan's)"),
  maxSeconds: z.number().min(0).max(3600).optional().describe("speedup: seconds for repetitions past the fewest (default: the plan's max_seconds)"),
};

/** The progress callback of a job started by this call: one notification per update, while the call waits. */
export function progressTo(extra: Extra): (job: Job) => void {
  const token = extra._meta?.progressToken;
  return (job) => {
    if (token === undefined || extra.signal.aborted) return;
    extra
      .sendNotification({method: 'notifications/progress', params: {progressToken: token, progress: job.updates, message: `${job.id}: ${job.last}`}})
      .catch(() => {});
  };
}

/** Wait for `job` on behalf of one call (or not, with `background`); the first progress notification names its id. */
export async function awaitJob(job: Job, extra: Extra, background = false): Promise<Record<string, unknown>> {
  const token = extra._meta?.progressToken;
  if (token !== undefined) {
    const message = `${job.id} started: should this call time out, poll get_run {"id": "${job.id}"} for the result`;
    await extra.sendNotification({method: 'notifications/progress', params: {progressToken: token, progress: 0, message}}).catch(() => {});
  }
  if (background) return {id: job.id, status: 'running'};
  const onAbort = () => {
    if (/timed out/i.test(String(extra.signal.reason ?? ''))) return;
    job.cancel();
  };
  extra.signal.addEventListener('abort', onAbort, {once: true});
  try {
    return await job.done;
  } finally {
    extra.signal.removeEventListener('abort', onAbort);
  }
}
