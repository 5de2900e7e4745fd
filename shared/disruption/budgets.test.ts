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

  it('reads counts and percentages whole, and refuses anything else', () => {
    expect(budgetNodes({ nodes: '12' }, 100)).toBe(12);
    expect(budgetNodes({ nodes: ' 20% ' }, 10)).toBe(2);
    for (const nodes of ['x10%', '10%x', '3x', 'x3', 'ten', '']) {
      expect(() => budgetNodes({ nodes }, 10), nodes).toThrow(
        `budget nodes "${nodes}" is neither a count nor a percentage`,
      );
    }
  });

  it('treats a schedule without a duration, or a duration without a schedule, as an error that fails closed', () => {
    const halves = [
      { nodes: '5', schedule: '0 9 * * *' },
      { nodes: '5', duration: '1h' },
    ];
    for (const b of halves) {
      expect(() => budgetActive(b, 0)).toThrow('schedule and duration go together');
      expect(budgetCap(pool({ budgets: [b] }), 10, 'Empty', 0)).toEqual({ allowed: 0, by: b });
    }
  });

  it('never opens a schedule that never fires', () => {
    const never = { nodes: '0', schedule: '0 0 30 2 *', duration: '1h' }; // 30 February
    expect(budgetActive(never, at('2026-01-05T09:30:00Z'))).toBe(false);
    expect(budgetCap(pool({ budgets: [never] }), 10, 'Empty', at('2026-01-05T09:30:00Z')).allowed).toBe(
      Number.POSITIVE_INFINITY,
    );
  });

  it("reads schedules in UTC whatever the host's time zone", () => {
    const saved = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      const b = { nodes: '0', schedule: '0 9 * * *', duration: '1h' };
      expect(budgetActive(b, at('2026-01-05T09:30:00Z'))).toBe(true);
      expect(budgetActive(b, at('2026-01-05T14:30:00Z'))).toBe(false);
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it('defaults to 10% when a NodePool leaves budgets unset, and names the first of equally tight budgets', () => {
    const p = pool();
    // An object read without the API's defaults may have no budgets field at all.
    Reflect.deleteProperty(p.spec.disruption, 'budgets');
    expect(budgetCap(p, 30, 'Empty', 0)).toEqual({ allowed: 3, by: { nodes: '10%' } });
    const first = { nodes: '1', reasons: ['Drifted' as const] };
    const tied = pool({ budgets: [first, { nodes: '1' }] });
    expect(budgetCap(tied, 10, 'Drifted', 0).by).toBe(first);
  });
});
