import {describe, expect, it} from 'vitest';
import {defaultTestBudget, exposureWarning} from '../../lib/ledger/index.js';

describe('exposureWarning', () => {
  it('is silent up to the budget and warns past it with the count and the budget', () => {
    expect(defaultTestBudget).toBe(5);
    expect(exposureWarning(0, 5)).toBeNull();
    expect(exposureWarning(5, 5)).toBeNull();
    expect(exposureWarning(5)).toBeNull();
    const text = exposureWarning(6, 5, 'knn')!;
    expect(text).toMatch(/^warning: the test split of knn has now scored 6 distinct solutions, past its test_budget of 5: /);
    expect(text).toContain('stops being held out');
    expect(text).toContain('advisory');
    expect(text).not.toContain('\n');
    expect(exposureWarning(1, 0)).toMatch(/scored 1 distinct solutions, past its test_budget of 0/);
  });
});
