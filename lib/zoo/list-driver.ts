/**
 * A list driver thread: runs `listZooStream` for the thread that started it and posts the
 * rows back in batches. It exists for its heap limit: V8 lets a thread's heap grow with the
 * garbage a large zoo's discovery makes (stats, paths, cache lines), and only a thread started
 * with `resourceLimits` keeps it small (see `listZooInThread` in list-thread.ts).
 */
import {parentPort, workerData} from 'node:worker_threads';
import {isArborError} from '../errors.js';
import {listZooStream, type DriverMessage, type ListEntry, type ListOptions} from './list.js';

const post = (message: DriverMessage) => parentPort!.postMessage(message);
let rows: ListEntry[] = [];
const flush = () => {
  if (rows.length) post({type: 'rows', rows});
  rows = [];
};
try {
  const summary = await listZooStream(workerData as ListOptions, {
    start: (info) => post({type: 'start', info}),
    entry: (row) => {
      rows.push(row);
      if (rows.length >= 256) flush();
    },
  });
  flush();
  post({type: 'end', summary});
} catch (error) {
  flush();
  if (isArborError(error)) post({type: 'error', message: error.message, code: error.code, exitCode: error.exitCode});
  else post({type: 'crash', stack: error instanceof Error ? (error.stack ?? error.message) : String(error)});
}
