/**
 * The local runner: every item evaluated here, one eval at a time, through
 * the door of every local eval (door.ts), always in a child process that
 * holds no secret (eval-process.ts: the bundle's code runs in that process;
 * the salted test seeds are derived here), each report put on record in the
 * run ledger as `arbor benchmark eval` does. An eval that fails is a result like any
 * other; the run goes on.
 */
import {performance} from 'node:perf_hooks';
import type {RunEventSink} from './events.js';
import {describeFailure, errorCodeOf, errorResult, resultFromReport, type RunResult} from './result.js';
import type {RunItem} from './targets.js';

/** Options of runLocal. */
export interface LocalRunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Run solutions without the bubblewrap sandbox (as `benchmark eval --unsandboxed`). */
  unsandboxed?: boolean;
  onEvent?: RunEventSink;
}

/** Evaluate the items one after another; one result per item, in order. */
export async function runLocal(items: readonly RunItem[], options: LocalRunOptions = {}): Promise<RunResult[]> {
  const emit = options.onEvent ?? (() => {});
  const results: RunResult[] = [];
  for (const item of items) {
    emit({type: 'start', item});
    const started = performance.now();
    let result: RunResult;
    let warnings: string[] = [];
    try {
      const env = options.env ?? process.env;
      // Through the door every local eval takes: in a child without the secrets (derived seeds blanked out of what
      // it says), on record with the plan it was scored under.
      const {evaluateHere} = await import('./door.js');
      const {
        report,
        warnings: said,
        runId,
      } = await evaluateHere(
        'eval',
        {benchmark: item.target.dir, split: item.split, solution: item.solution, unsandboxed: options.unsandboxed},
        {env, cwd: options.cwd ?? process.cwd(), isolate: true, record: {}, onProgress: (kind, text) => emit({type: 'progress', item, kind, text})},
      );
      warnings = said;
      result = resultFromReport(item, report, {runId: runId ?? undefined});
    } catch (error) {
      // The eval was given the entry's absolute folder: name it as the user did.
      const failure = describeFailure(error).split(item.target.dir).join(item.target.shown);
      result = errorResult(item, failure, (performance.now() - started) / 1000, errorCodeOf(error));
    }
    results.push(result);
    emit({type: 'finish', item, result, warnings});
  }
  return results;
}
