/** A list worker thread: verifies batches of zoo entries with its own remark parser (files outside the folders read once per worker). */
import {parentPort} from 'node:worker_threads';
import {type Inspected, inspectEntry, listRun} from './entry.js';
import {markdown} from './markdown.js';

/** A batch the pool sends: absolute folder paths and their display names. */
export interface WorkerBatch {
  id: number;
  /** `files`: the folder's top-level text files as discovery listed them. */
  items: {abs: string; shown: string; files?: string[]}[];
}

/** The answer to a batch, in the same order. */
export interface WorkerResult {
  id: number;
  results: Inspected[];
}

const run = listRun();
parentPort?.on('message', (batch: WorkerBatch) => {
  const results = batch.items.map((item) => inspectEntry(item.abs, item.shown, markdown, item.files, run));
  parentPort!.postMessage({id: batch.id, results} satisfies WorkerResult);
});
