// Packed merges (docs/disruption.md, The sweep: *packed merge*): groups of candidates that one new node could hold
// for enough less, chosen by their pods' summed requests rather than by their place in the disruption order.
// Karpenter's multi-node consolidation only ever tries prefixes of its order, so once the cheap, well-packed nodes
// are gone, the few dear ones left over sit far apart in that order (a half-used m5a.4xlarge here, an r5a.2xlarge
// there, a c5a.large at the end) and no prefix the budget allows holds a merge of them. The estimate is the cheap
// bound's (relocate.ts, SingleNodeBound.holder): the cheapest type that holds the group's requests, and whether any
// type holding them passes Karpenter's worst-launch-price filter. Every group is then checked by the same solve
// and rules as a prefix trial, so the estimate only picks what to try.
import { minSavingFor } from './balanced';
import type { NodeFacts } from './candidate';
import { podRequests } from './pods';
import { type SingleNodeBound, sumRequests } from './relocate';
import type { Sweep } from './sweep';

/** Candidates the packing looks at: the most wasteful ones (price above their pods' cheapest possible price). */
export const PACK_POOL = 24;
/** Largest group the packing enumerates (Karpenter's merges are budget-bound; ten percent of 40 nodes is four). */
export const PACK_SIZE = 4;
/** Groups the packing solves for per sweep, beyond the merge search's own solves: the first that passes goes. */
export const PACK_TRIES = 2;

interface Item {
  f: NodeFacts;
  sum: Record<string, number>;
  kind: string;
}

/** A group one new node could hold, and what it would save at the cheapest holder's price. */
export interface PackedGroup {
  members: NodeFacts[];
  saving: number;
}

/** Groups of 2 to PACK_SIZE candidates that the budgets allow, whose pods' summed requests one new node holds for at
 * least the minimum saving less, with some holding type launching below their price wherever the fleet puts it;
 * the largest estimated saving first. Identical candidates (pool, price, requests, pod count) count once per group
 * shape, so a fleet of equal nodes does not multiply the enumeration. */
export function packedGroups(sw: Sweep, candidates: readonly NodeFacts[], bound: SingleNodeBound): PackedGroup[] {
  const daemons = sw.input.daemonSets?.length ?? 0;
  const items = candidates
    .map((f) => {
      const sum = sumRequests(f.pods, podRequests);
      return { f, sum, waste: f.price - bound.lowerBound(sum) };
    })
    .filter((x) => x.waste > 0)
    .sort((a, b) => b.waste - a.waste)
    .slice(0, PACK_POOL)
    .map(({ f, sum }): Item => ({ f, sum, kind: `${f.poolName}|${f.price}|${JSON.stringify(sum)}` }));
  const left = new Map<string, number>();
  for (const { f } of items) left.set(f.poolName, sw.budgetLeft(f.poolName, 'Underutilized'));
  const out: PackedGroup[] = [];
  const shapes = new Set<string>();
  const group: Item[] = [];
  const visit = (from: number): void => {
    if (group.length >= 2) consider(group);
    if (group.length >= PACK_SIZE) return;
    for (let i = from; i < items.length; i++) {
      const it = items[i] as Item;
      const budget = left.get(it.f.poolName) ?? 0;
      if (budget <= 0) continue;
      left.set(it.f.poolName, budget - 1);
      group.push(it);
      visit(i + 1);
      group.pop();
      left.set(it.f.poolName, budget);
    }
  };
  const consider = (g: readonly Item[]): void => {
    const shape = g
      .map((x) => x.kind)
      .sort()
      .join('+');
    if (shapes.has(shape)) return;
    shapes.add(shape);
    const members = g.map((x) => x.f);
    const price = members.reduce((s, m) => s + m.price, 0);
    const sum: Record<string, number> = {};
    for (const x of g) for (const k in x.sum) sum[k] = (sum[k] ?? 0) + (x.sum[k] as number);
    sum.pods = (sum.pods ?? 0) + daemons;
    const holder = bound.holder(sum);
    if (!holder || !(holder.worst < price)) return;
    if (holder.price > price * (1 - minSavingFor(members, sw.settings.minSavingFraction))) return;
    out.push({ members, saving: price - holder.price });
  };
  visit(0);
  return out.sort((a, b) => b.saving - a.saving);
}
