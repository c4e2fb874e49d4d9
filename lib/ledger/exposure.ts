/**
 * Test-split exposure: how often a benchmark's held-out split has been looked
 * at. One count for every door (`arbor benchmark runs`, `eval … test`'s
 * warning, the report, MCP `submit_test`'s `used N of M` and its refusal):
 * `testExposure`, read from the ledger and the sealed calls file beside it.
 */
import {readFileSync} from 'node:fs';
import {arborCommand} from '../invocation.js';
import type {Ledger} from './ledger.js';

/** The plan's `test_budget` when it sets none: distinct solutions scored on test before evals warn. */
export const defaultTestBudget = 5;

/** What MCP `submit_test` kept of an entry (lib/mcp/budget.ts writes it): its calls, and the digests it answered. */
export interface SealedCalls {
  calls: number;
  answered: string[];
}

/** The sealed calls file beside a ledger (`<ledger>.sealed.json`, lib/mcp/budget.ts). */
export function sealedCallsFile(ledgerFile: string): string {
  return `${ledgerFile}.sealed.json`;
}

/** The sealed calls of `benchmark` recorded beside `ledgerFile` (none when there is no such file, or it is not one). */
function sealedCallsOf(ledgerFile: string, benchmark: string): SealedCalls {
  try {
    const state = JSON.parse(readFileSync(sealedCallsFile(ledgerFile), 'utf8')) as {entries?: Record<string, {calls?: number; answers?: object}>};
    const entry = state.entries?.[benchmark];
    return {calls: typeof entry?.calls === 'number' ? entry.calls : 0, answered: Object.keys(entry?.answers ?? {})};
  } catch {
    return {calls: 0, answered: []};
  }
}

/** The distinct solutions (digests) scored on `benchmark`'s test split: eval, calibrate and a compare's candidate, never a harness error. */
function testSolutions(ledger: Ledger, benchmark: string): string[] {
  const runs = ledger.listRuns({benchmark, split: 'test', withCases: false});
  return [...new Set(runs.filter((run) => run.status !== 'error' && run.solutionSha256).map((run) => run.solutionSha256!))];
}

/**
 * The test exposure of `benchmark`: every MCP `submit_test` call (each counts,
 * a resubmitted solution and a failed eval too), plus each other distinct
 * solution the ledger scored on test (CLI `eval`, `calibrate`, `compare
 * --split test`). A compare's baseline is what the candidate is measured
 * against, not a look of its own: it does not count (submit_test's baseline is
 * the entry's own solution, every time).
 */
export function testExposure(ledger: Ledger, benchmark: string, sealed: SealedCalls = sealedCallsOf(ledger.path, benchmark)): number {
  const answered = new Set(sealed.answered);
  return sealed.calls + testSolutions(ledger, benchmark).filter((digest) => !answered.has(digest)).length;
}

/**
 * The stderr warning for an eval on test once the exposure (this eval
 * included) is past `budget`; null within it.
 */
export function exposureWarning(count: number, budget: number = defaultTestBudget, benchmark?: string): string | null {
  if (count <= budget) return null;
  const which = benchmark ? `the test split of ${benchmark}` : 'the test split';
  return (
    `warning: ${which} has now scored ${count} distinct solutions, past its test_budget of ${budget}: ` +
    'a test split evaluated after every change stops being held out; choose between solutions on dev ' +
    '(the count is advisory: it covers only the runs this ledger recorded, and every MCP submit_test call)'
  );
}

/**
 * Warnings for an `eval … test` of `digest` just recorded: the solution was
 * never scored on dev (test should confirm what dev chose), and it is the
 * second or later distinct solution scored on test (each one more look).
 */
export function testEvalWarnings(ledger: Ledger, benchmark: string, digest: string | null): string[] {
  const warnings: string[] = [];
  const dev = ledger.listRuns({benchmark, split: 'dev', withCases: false});
  if (digest && !dev.some((run) => run.solutionSha256 === digest && run.kind !== 'compare')) {
    warnings.push(
      `warning: this solution of ${benchmark} has no dev eval on record: score it on dev first (${arborCommand()} benchmark eval <folder> dev), and keep test for confirming what dev chose`,
    );
  }
  const count = testSolutions(ledger, benchmark).length;
  if (count >= 2) {
    warnings.push(
      `warning: ${count} distinct solutions of ${benchmark} have now been scored on test: each one more look at the held-out split; choose between solutions on dev`,
    );
  }
  return warnings;
}
