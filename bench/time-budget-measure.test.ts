import { describe, expect, it } from 'vitest';
import { budgetLimitMs, keptBudget } from './time-budget-measure';

describe('the time-budget row', () => {
  it('allows 5 % of the budget plus 100 ms', () => {
    expect(budgetLimitMs(2000)).toBe(2200);
    expect(budgetLimitMs(60_000)).toBe(63_100);
  });

  it('passes only when every solve stopped in time and pods were deferred', () => {
    expect(keptBudget(2000, [2199], 10)).toBe(true);
    expect(keptBudget(2000, [2201], 10)).toBe(false);
    expect(keptBudget(2000, [1500, 2300], 10)).toBe(false);
    // A batch that fit in its budget tested nothing.
    expect(keptBudget(2000, [900], 0)).toBe(false);
    expect(keptBudget(2000, [], 5)).toBe(false);
  });
});
