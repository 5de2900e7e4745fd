import { describe, expect, it } from 'vitest';
import { pool } from '../../testkit/disruption';
import { budgetActive, budgetCap, budgetNodes, remainingBudget } from './budgets';

const at = (iso: string): number => Date.parse(iso);

describe('budgets', () => {
  it('rounds percentages up, as Karpenter does', () => {
    expect(budgetNodes({ nodes: '10%' }, 25)).toBe(3);
    expect(budgetNodes({ nodes: '5%' }, 10)).toBe(1);
    expect(budgetNodes({ nodes: '0%' }, 10)).toBe(0);
    expect(budgetNodes({ nodes: '3' }, 100)).toBe(3);
  });

  it('defaults to 10% when a NodePool has no budgets', () => {
    const p = pool();
    p.spec.disruption.budgets = [];
    expect(budgetCap(p, 30, 'Empty', 0).allowed).toBe(3);
  });

  it('takes the most restrictive budget that applies to the reason', () => {
    const p = pool({ budgets: [{ nodes: '50%' }, { nodes: '1', reasons: ['Drifted'] }] });
    expect(budgetCap(p, 10, 'Drifted', 0).allowed).toBe(1);
    expect(budgetCap(p, 10, 'Empty', 0).allowed).toBe(5);
  });

  it('opens a scheduled budget only inside its window (UTC)', () => {
    const b = { nodes: '0', schedule: '0 9 * * 1-5', duration: '8h' };
    expect(budgetActive(b, at('2026-01-05T08:59:00Z'))).toBe(false); // Monday before the window
    expect(budgetActive(b, at('2026-01-05T09:00:00Z'))).toBe(true);
    expect(budgetActive(b, at('2026-01-05T16:59:00Z'))).toBe(true);
    expect(budgetActive(b, at('2026-01-05T17:00:01Z'))).toBe(false);
    expect(budgetActive(b, at('2026-01-10T10:00:00Z'))).toBe(false); // Saturday
  });

  it('blocks inside the window only, leaving the other budgets in force outside it', () => {
    const p = pool({ budgets: [{ nodes: '0', schedule: '0 9 * * *', duration: '1h' }, { nodes: '20%' }] });
    expect(remainingBudget(p, 10, 0, 'Underutilized', at('2026-01-05T09:30:00Z'))).toBe(0);
    expect(remainingBudget(p, 10, 0, 'Underutilized', at('2026-01-05T10:30:00Z'))).toBe(2);
  });

  it('subtracts nodes already disrupting and fails closed on a bad schedule', () => {
    expect(remainingBudget(pool({ budgets: [{ nodes: '3' }] }), 10, 2, 'Empty', 0)).toBe(1);
    expect(remainingBudget(pool({ budgets: [{ nodes: '3' }] }), 10, 5, 'Empty', 0)).toBe(0);
    const bad = pool({ budgets: [{ nodes: '5', schedule: 'not a cron', duration: '1h' }] });
    expect(budgetCap(bad, 10, 'Empty', 0).allowed).toBe(0);
  });
});
