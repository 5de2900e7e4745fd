// Karpenter's packing, for comparison: first-fit-decreasing by cpu then memory, where a claim takes pods while the
// largest instance type still holds them, and the fleet then launches the cheapest type that fits what landed.
import type { Pod } from '../shared/api/kube';
import type { InstanceType } from '../shared/catalog/types';
import { podRequests } from '../shared/scheduling/resources';

export function firstFitDecreasingCost(
  pods: readonly Pod[],
  types: readonly InstanceType[],
): { cost: number; nodes: number } {
  const price = (t: InstanceType) => Math.min(...t.offerings.filter((o) => o.available).map((o) => o.price));
  const reqs = pods
    .map((p) => podRequests(p))
    .sort((a, b) => (b.cpu ?? 0) - (a.cpu ?? 0) || (b.memory ?? 0) - (a.memory ?? 0));
  const fits = (used: Record<string, number>, t: InstanceType) =>
    Object.entries(used).every(([k, v]) => v <= (t.allocatable[k] ?? 0));
  const bins: Record<string, number>[] = [];
  for (const r of reqs) {
    let placed = false;
    for (const b of bins) {
      const next = { ...b };
      for (const [k, v] of Object.entries(r)) next[k] = (next[k] ?? 0) + v;
      if (types.some((t) => fits(next, t))) {
        Object.assign(b, next);
        placed = true;
        break;
      }
    }
    if (!placed) bins.push({ ...r });
  }
  let cost = 0;
  for (const b of bins) cost += Math.min(...types.filter((t) => fits(b, t)).map(price));
  return { cost, nodes: bins.length };
}
