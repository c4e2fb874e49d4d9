/**
 * The local runner: every item evaluated here, one eval at a time, through
 * the eval pipeline (runEval), each report put on record in the run ledger
 * as `arbor benchmark eval` does. An eval that fails is a result like any
 * other; the run goes on.
 */
import {performance} from 'node:perf_hooks';
import type {RunEventSink} from './events.js';
import {describeFailure, errorResult, recordReport, resultFromReport, type RunResult} from './result.js';
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
  const {runEval} = await import('../eval/pipeline.js');
  const emit = options.onEvent ?? (() => {});
  const results: RunResult[] = [];
  for (const item of items) {
    emit({type: 'start', item});
    const started = performance.now();
    let result: RunResult;
    let warnings: string[] = [];
    try {
      const report = await runEval({
        benchmark: item.target.dir,
        split: item.split,
        solution: item.solution,
        unsandboxed: options.unsandboxed,
        cwd: options.cwd,
        env: options.env,
        onProgress: (kind, text) => emit({type: 'progress', item, kind, text}),
      });
      const recorded = await recordReport(report, {env: options.env, cwd: options.cwd});
      warnings = recorded.warnings;
      result = resultFromReport(item, report, {runId: recorded.runId ?? undefined});
    } catch (error) {
      result = errorResult(item, describeFailure(error), (performance.now() - started) / 1000);
    }
    results.push(result);
    emit({type: 'finish', item, result, warnings});
  }
  return results;
}
