/**
 * The local runner: every item evaluated here, one eval at a time, through
 * the eval pipeline (runEval) in a child process that holds no secret
 * (eval-process.ts: the bundle's code runs in that process; the salted test
 * seeds are derived here), each report put on record in the run ledger as
 * `arbor benchmark eval` does. An eval that fails is a result like any
 * other; the run goes on.
 */
import {performance} from 'node:perf_hooks';
import {loadPlan} from '../benchmark/plan.js';
import {derivedTestSeeds, evalInChild, redactDeep, seedRedactor} from './eval-process.js';
import type {RunEventSink} from './events.js';
import {describeFailure, errorCodeOf, errorResult, recordReport, resultFromReport, type RunResult} from './result.js';
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
    let redact = (text: string) => text;
    try {
      const env = options.env ?? process.env;
      // A plan that cannot be read is the eval's own error, said by the eval.
      const plan = await loadPlan(item.target.dir).catch(() => undefined);
      const testSeeds = plan ? await derivedTestSeeds(plan, item.split, env) : undefined;
      if (plan) redact = seedRedactor(plan, testSeeds);
      const evaluated = await evalInChild(
        {benchmark: item.target.dir, split: item.split, solution: item.solution, unsandboxed: options.unsandboxed, ...(testSeeds ? {testSeeds} : {})},
        {env, cwd: options.cwd ?? process.cwd(), onProgress: (kind, text) => emit({type: 'progress', item, kind, text: redact(text)})},
      );
      const report = redactDeep(evaluated, redact);
      const recorded = await recordReport(report, {env: options.env, cwd: options.cwd});
      warnings = recorded.warnings;
      result = resultFromReport(item, report, {runId: recorded.runId ?? undefined});
    } catch (error) {
      // The eval was given the entry's absolute folder: name it as the user did.
      const failure = redact(describeFailure(error)).split(item.target.dir).join(item.target.shown);
      result = errorResult(item, failure, (performance.now() - started) / 1000, errorCodeOf(error));
    }
    results.push(result);
    emit({type: 'finish', item, result, warnings});
  }
  return results;
}
