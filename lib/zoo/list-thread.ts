/**
 * The list driver thread's starter: `listZooStream` (list.ts) on a thread of its own
 * (list-driver.ts), its rows passed to the sink as they come back. Apart from list.ts so that
 * the stream, the thread's driver and its starter import one way only (no circle through the
 * worker's start).
 */
import {Worker} from 'node:worker_threads';
import {ArborError, ExitCode} from '../errors.js';
import {type DriverMessage, type ListOptions, type ListSink, type ListSummary, listYoungMb, listZooStream} from './list.js';

/** Old-generation heap of the list driver thread (MB); `ARBOR_LIST_HEAP_MB` overrides it. */
const driverHeapMb = 96;

/**
 * `listZooStream` on a thread of its own with a capped heap, the sink called here as rows come
 * back: what the CLI runs. The driver's garbage (stats, paths, cache lines of 100,000 folders)
 * is then collected instead of growing the process, which keeps `list` at 120-170 MB up to
 * 100,000 folders. If the driver runs out of heap before its first row, the listing runs here
 * instead.
 */
export async function listZooInThread(options: ListOptions, sink: ListSink, env: NodeJS.ProcessEnv = process.env): Promise<ListSummary> {
  const heap = /^\d+$/.test(env.ARBOR_LIST_HEAP_MB ?? '') ? Number(env.ARBOR_LIST_HEAP_MB) : driverHeapMb;
  const worker = new Worker(new URL('./list-driver.js', import.meta.url), {
    workerData: options,
    resourceLimits: {maxOldGenerationSizeMb: heap, maxYoungGenerationSizeMb: listYoungMb(env)},
  });
  let started = false;
  let outcome: {summary: ListSummary} | {error: unknown} | undefined;
  await new Promise<void>((resolve) => {
    worker.on('message', (message: DriverMessage) => {
      if (message.type === 'start') {
        started = true;
        sink.start?.(message.info);
      } else if (message.type === 'rows') for (const row of message.rows) sink.entry(row);
      else if (message.type === 'end') outcome = {summary: message.summary};
      else if (message.type === 'error') outcome = {error: new ArborError(message.message, message.code, message.exitCode as ArborError['exitCode'])};
      else outcome = {error: new Error(message.stack)};
    });
    worker.on('error', (error) => {
      outcome ??= {error};
    });
    worker.on('exit', () => resolve());
  });
  if (outcome && 'summary' in outcome) return outcome.summary;
  const error = outcome?.error;
  if (!started && (error as {code?: string} | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY') return listZooStream(options, sink);
  if ((error as {code?: string} | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    throw new ArborError(`list ran out of its ${heap} MB heap; run it again with ARBOR_LIST_HEAP_MB=${heap * 4}`, 'list-heap', ExitCode.internal);
  }
  throw error ?? new Error('the list driver thread stopped without a result');
}
