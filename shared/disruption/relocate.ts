// Where the pods of nodes with constrained pods (topology spread, pod affinity, volumes, host ports) go: one full
// solve against the cluster as the sweep left it, bounded per sweep. Unconstrained nodes go through batch.ts. Also
// the price helpers both share: option prices and a cheap single-node bound.
import type { NodePool } from '../api/karpenter';
import type { Pod } from '../api/kube';
import { LabelCapacityType, LabelZone } from '../api/labels';
import { requirementAllows } from '../api/selector';
import type { InstanceType } from '../catalog/types';
import type { PlannedNodeClaim } from '../scheduling';
import type { NodeFacts } from './candidate';
import type { FitResult, Placement } from './capacity';
import type { Sweep } from './sweep';

export interface Relocation {
  fit: FitResult;
  replacements: PlannedNodeClaim[];
}

/** `deferred`: the sweep's deadline stopped the solve before it placed every pod, so the members were not judged. */
export type RelocateOutcome = Relocation | { blocker: string } | { deferred: true };

export function relocate(sw: Sweep, members: NodeFacts[], solverChecks: { left: number }): RelocateOutcome {
  const exclude = new Set(members.map((m) => m.idx));
  const pods = members.flatMap((m) => m.pods);
  const salt = members.map((m) => m.name).join(',');
  if (solverChecks.left <= 0) {
    return { blocker: 'pods with topology, affinity or volume constraints: solver checks for this sweep used up' };
  }
  solverChecks.left--;
  const r = sw.solveWithCluster(pods, exclude, salt);
  if (r.deferred?.length) return { deferred: true };
  if (r.unschedulable.length) return { blocker: unschedulableBlocker(r.unschedulable.map((u) => u.reason)) };
  const byName = new Map(sw.input.nodes.map((n, i) => [n.node.name, i]));
  const placements: Placement[] = [];
  for (const e of r.existingNodes) {
    const node = byName.get(e.name);
    if (node === undefined) continue;
    for (const pod of e.pods) {
      const original = pods.find(
        (p) => p.metadata.name === pod.metadata.name && p.metadata.namespace === pod.metadata.namespace,
      );
      if (original) placements.push({ node, pod: original });
    }
  }
  return { fit: sw.model.place(placements), replacements: r.nodeClaims };
}

function unschedulableBlocker(reasons: string[]): string {
  return `pods would not schedule elsewhere: ${reasons[0] ?? 'no capacity'}${reasons.length > 1 ? ` (+${reasons.length - 1} more)` : ''}`;
}

function allowed(claim: PlannedNodeClaim, key: string): Set<string> | undefined {
  const r = claim.requirements.find((q) => q.key === key && q.operator === 'In');
  return r ? new Set(r.values ?? []) : undefined;
}

/** The cheapest (or, with `pick` 'worst', the dearest) available offering of a type that the claim's zone and
 * capacity-type requirements admit; infinite when none does. */
export function optionPrice(
  type: InstanceType,
  claim: PlannedNodeClaim,
  capacityType?: string,
  pick: 'cheapest' | 'worst' = 'cheapest',
): number {
  const zones = allowed(claim, LabelZone);
  const capacity = allowed(claim, LabelCapacityType);
  let best = Number.POSITIVE_INFINITY;
  let worst = Number.NEGATIVE_INFINITY;
  for (const o of type.offerings) {
    if (!o.available) continue;
    if (zones && !zones.has(o.zone)) continue;
    if (capacity && !capacity.has(o.capacityType)) continue;
    if (capacityType && o.capacityType !== capacityType) continue;
    best = Math.min(best, o.price);
    worst = Math.max(worst, o.price);
  }
  if (pick === 'cheapest') return best;
  return Number.isFinite(worst) ? worst : Number.POSITIVE_INFINITY;
}

/** A type some NodePool allows: its cheapest offering, its worst launch price (Karpenter's price filter) and its
 * allocatable resources. */
interface BoundType {
  price: number;
  worst: number;
  allocatable: Record<string, number>;
}

/** What one new node for these pods would cost at best, and whether the price filter would let it launch. */
export interface Holder {
  price: number;
  /** Some type that holds the pods launches, wherever the fleet puts it, below this price (Karpenter's
   * WorstLaunchPrice, replacement-options.ts). */
  worst: number;
}

/** A cheap lower bound on one new node for these pods: the cheapest type whose allocatable holds their sum. Only the
 * types some NodePool's requirements allow count (a requirement on a label the type does not carry excludes
 * nothing): a replacement launches within its pool's requirements, and a t3.nano's per-vCPU price would bound a
 * c/m/r pool's nodes far too low. */
export class SingleNodeBound {
  private readonly types: BoundType[];
  private readonly rates = new Map<string, number>();

  constructor(instanceTypes: Map<string, InstanceType[]>, pools: readonly NodePool[]) {
    const seen = new Map<string, BoundType>();
    for (const pool of pools) {
      // Karpenter's default capacity type is on-demand when a NodePool does not name one.
      const req = pool.spec.template.spec.requirements.find((r) => r.key === LabelCapacityType && r.operator === 'In');
      const capacity = new Set(req?.values ?? ['on-demand']);
      const labelled = pool.spec.template.spec.requirements.filter(
        (r) => r.key !== LabelCapacityType && r.key !== LabelZone,
      );
      for (const t of instanceTypes.get(pool.metadata.name) ?? []) {
        if (!labelled.every((r) => !(r.key in t.labels) || requirementAllows(r, t.labels[r.key]))) continue;
        let price = Number.POSITIVE_INFINITY;
        for (const o of t.offerings) if (o.available && capacity.has(o.capacityType)) price = Math.min(price, o.price);
        const prev = seen.get(t.name);
        if (Number.isFinite(price) && (!prev || price < prev.price))
          seen.set(t.name, { price, worst: worstOf(t, capacity), allocatable: t.allocatable });
      }
    }
    this.types = [...seen.values()].sort((a, b) => a.price - b.price);
  }

  /** Any set of nodes holding `sum` costs at least the cheapest per-unit rate of cpu and of memory times the sum. */
  lowerBound(sum: Record<string, number>): number {
    let bound = 0;
    for (const k of ['cpu', 'memory']) {
      const need = sum[k] ?? 0;
      if (need <= 0) continue;
      bound = Math.max(bound, need * this.rate(k));
    }
    return bound;
  }

  private rate(k: string): number {
    let rate = this.rates.get(k);
    if (rate === undefined) {
      rate = Number.POSITIVE_INFINITY;
      for (const t of this.types) {
        const have = t.allocatable[k] ?? 0;
        if (have > 0) rate = Math.min(rate, t.price / have);
      }
      this.rates.set(k, rate);
    }
    return rate;
  }

  price(sum: Record<string, number>): number {
    for (const t of this.types) if (holds(t, sum)) return t.price;
    return Number.POSITIVE_INFINITY;
  }

  /** The cheapest type that holds `sum`, with the lowest worst launch price of any type that holds it. */
  holder(sum: Record<string, number>): Holder | undefined {
    let best: Holder | undefined;
    for (const t of this.types) {
      if (!holds(t, sum)) continue;
      if (!best) best = { price: t.price, worst: t.worst };
      else best.worst = Math.min(best.worst, t.worst);
    }
    return best;
  }
}

function holds(t: BoundType, sum: Record<string, number>): boolean {
  for (const k in sum) if ((sum[k] as number) > (t.allocatable[k] ?? 0) + 1e-9) return false;
  return true;
}

/** Karpenter's WorstLaunchPrice over the capacity types a pool allows: the dearest available offering of the first
 * class (reserved, spot, on-demand) that has one. */
function worstOf(t: InstanceType, capacity: ReadonlySet<string>): number {
  for (const ct of ['reserved', 'spot', 'on-demand']) {
    if (!capacity.has(ct)) continue;
    let worst = Number.NEGATIVE_INFINITY;
    for (const o of t.offerings) if (o.available && o.capacityType === ct) worst = Math.max(worst, o.price);
    if (Number.isFinite(worst)) return worst;
  }
  return Number.POSITIVE_INFINITY;
}

export function sumRequests(
  pods: readonly Pod[],
  requests: (p: Pod) => Record<string, number>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of pods) {
    const r = requests(p);
    for (const k in r) out[k] = (out[k] ?? 0) + (r[k] as number);
  }
  return out;
}
