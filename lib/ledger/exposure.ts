/** Test-split exposure: how often a benchmark's held-out split has been looked at. */

/** The plan's `test_budget` when it sets none: distinct solutions scored on test before evals warn. */
export const defaultTestBudget = 5;

/**
 * The stderr warning for an eval on test once `count` distinct solutions
 * (this one included) have been scored there, past `budget`; null within it.
 */
export function exposureWarning(count: number, budget: number = defaultTestBudget, benchmark?: string): string | null {
  if (count <= budget) return null;
  const which = benchmark ? `the test split of ${benchmark}` : 'the test split';
  return (
    `warning: ${which} has now scored ${count} distinct solutions, past its test_budget of ${budget}: ` +
    'a test split evaluated after every change stops being held out; choose between solutions on dev ' +
    '(the count is advisory: it covers only the runs this ledger recorded)'
  );
}
