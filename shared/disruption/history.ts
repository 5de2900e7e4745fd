// Per-NodePool disruption history, carried from sweep to sweep by the caller (the store or the simulator), so a
// NodePool whose nodes keep being replaced backs off instead of churning.
import type { DisruptionHistory, DisruptionPlan } from './types';

/** The history with this plan's commands appended and entries older than `keepMs` dropped. */
export function recordHistory(
  history: DisruptionHistory,
  plan: DisruptionPlan,
  keepMs = 24 * 3_600_000,
): DisruptionHistory {
  const out: DisruptionHistory = {};
  for (const [pool, entries] of Object.entries(history)) {
    const kept = entries.filter((e) => e.at >= plan.at - keepMs);
    if (kept.length) out[pool] = kept;
  }
  for (const c of plan.commands) {
    const pools = new Set(c.candidates.map((x) => x.nodePool));
    for (const pool of pools) {
      const removed = c.candidates.filter((x) => x.nodePool === pool).length;
      const launched = c.replacements.filter((r) => r.nodePool === pool).length;
      out[pool] = [...(out[pool] ?? []), { at: plan.at, reason: c.reason, removed, launched }];
    }
  }
  return out;
}
