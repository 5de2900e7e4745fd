// NodePool disruption budgets, as Karpenter computes them: every budget whose reasons include the reason and whose
// schedule window is open caps the pool; the smallest cap wins; a percentage of the pool's nodes rounds up; a
// budget that cannot be read fails closed (0). Without budgets the default is 10 %.
import { Cron } from 'croner';
import type { Budget, DisruptionReason, NodePool } from '../api/karpenter';
import { parseDuration } from '../api/quantity';

export const DEFAULT_BUDGET: Budget = { nodes: '10%' };

/** Whether the budget applies at `now`: always without a schedule, else within `duration` after a cron hit (UTC). */
export function budgetActive(budget: Budget, now: number): boolean {
  if (budget.schedule === undefined && budget.duration === undefined) return true;
  if (budget.schedule === undefined || budget.duration === undefined)
    throw new Error('schedule and duration go together');
  const window = parseDuration(budget.duration);
  // A pattern without a callback is only evaluated, never scheduled.
  const next = new Cron(budget.schedule, { timezone: 'UTC' }).nextRun(new Date(now - window));
  return next !== null && next.getTime() <= now;
}

/** The budget's node count for a pool of `poolNodes` nodes; percentages round up. */
export function budgetNodes(budget: Budget, poolNodes: number): number {
  const text = budget.nodes.trim();
  const pct = /^(\d{1,3})%$/.exec(text);
  if (pct) return Math.ceil((Number(pct[1]) * poolNodes) / 100);
  if (/^\d+$/.test(text)) return Number(text);
  throw new Error(`budget nodes "${budget.nodes}" is neither a count nor a percentage`);
}

export interface BudgetCap {
  allowed: number;
  /** The budget that set the cap, for explanations. */
  by?: Budget;
}

/** How many nodes of the pool may be disrupting at once for `reason` at `now` (before subtracting those already
 * disrupting). Infinity when no budget applies. */
export function budgetCap(pool: NodePool, poolNodes: number, reason: DisruptionReason, now: number): BudgetCap {
  const budgets = pool.spec.disruption.budgets?.length ? pool.spec.disruption.budgets : [DEFAULT_BUDGET];
  let cap: BudgetCap = { allowed: Number.POSITIVE_INFINITY };
  for (const b of budgets) {
    if (b.reasons && !b.reasons.includes(reason)) continue;
    let allowed: number;
    try {
      allowed = budgetActive(b, now) ? budgetNodes(b, poolNodes) : Number.POSITIVE_INFINITY;
    } catch {
      allowed = 0;
    }
    if (allowed < cap.allowed) cap = { allowed, by: b };
  }
  return cap;
}

/** Remaining disruptions: the cap minus the pool's nodes already disrupting, never below zero. */
export function remainingBudget(
  pool: NodePool,
  poolNodes: number,
  disrupting: number,
  reason: DisruptionReason,
  now: number,
): number {
  return Math.max(0, budgetCap(pool, poolNodes, reason, now).allowed - disrupting);
}
