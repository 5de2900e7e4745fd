// A NodeClaim being planned: its requirements narrow as pods join, its instance-type options shrink to those that
// still match, and it is filled up to its target type (chosen by cost.ts). Finalizing orders the options by price
// and cuts them to the configured maximum while keeping minValues satisfiable.
import type { Pod } from '../api/kube';
import { LabelCapacityType, LabelHostname, LabelInstanceType } from '../api/labels';
import { HostPortUsage } from './hostports';
import { cheapestOffering, type OfferingPrices, type TypeOption } from './instancetypes';
import type { PodShape } from './podshape';
import { Requirement } from './requirement';
import type { Requirements } from './requirements';
import { fitsVec, type ResourceIndex } from './resources';
import type { NodeClaimTemplate } from './template';
import type { PlannedNodeClaim } from './types';

export class InflightClaim {
  readonly used: Float64Array;
  readonly pods: Pod[] = [];
  /** The shape each pod joined with, for counting it once the claim's domain is pinned. */
  readonly shapes: PodShape[] = [];
  readonly hostPorts = new HostPortUsage();
  readonly failed = new Set<number>();
  /** No waiting pod is small enough to fit any more: skipped by every scan. */
  closed = false;

  constructor(
    readonly template: NodeClaimTemplate,
    readonly name: string,
    public requirements: Requirements,
    public options: TypeOption[],
    public target: TypeOption,
    dims: number,
    /** Capacity held against the NodePool's limits (the target's); undefined when the pool has no limits. */
    public reserved: Float64Array | undefined,
  ) {
    this.used = new Float64Array(dims);
  }

  get hostname(): string {
    return this.name;
  }
}

/** Whether the option set still offers at least minValues distinct values for every key that asks for them. */
export function minValuesShortfall(options: readonly TypeOption[], reqs: Requirements): string | undefined {
  for (const r of reqs.values()) {
    if (r.minValues === undefined) continue;
    const seen = new Set<string>();
    for (const o of options) {
      const v = r.key === LabelInstanceType ? o.name : o.it.labels[r.key];
      if (v !== undefined && r.has(v)) seen.add(v);
    }
    if (seen.size < r.minValues) {
      return `minValues ${r.minValues} for ${r.key} not met: only ${seen.size} value(s) among the instance types that fit`;
    }
  }
  return undefined;
}

export function allowsSpot(reqs: Requirements): boolean {
  const ct = reqs.get(LabelCapacityType);
  return !ct || ct.has('spot');
}

/**
 * Orders by what the fleet would pay (spot first when the claim may use spot), then by name for determinism. With
 * `limit`, stops after that many (callers without minValues need no more).
 */
export function orderByPrice(
  options: readonly TypeOption[],
  reqs: Requirements,
  prices: OfferingPrices,
  limit = Number.POSITIVE_INFINITY,
): { options: TypeOption[]; preferSpot: boolean } {
  const table = prices.table(reqs);
  const spot = allowsSpot(reqs) && options.some((o) => Number.isFinite(table.spot[o.index]));
  const byIndex = new Map<number, TypeOption>();
  for (const o of options) byIndex.set(o.index, o);
  const out: TypeOption[] = [];
  for (const i of prices.order(table, spot)) {
    const o = byIndex.get(i);
    if (!o) continue;
    out.push(o);
    if (out.length >= limit) break;
  }
  return { options: out, preferSpot: spot };
}

/** The cheapest `max` options, swapping in the cheapest carriers of missing values when minValues needs them. */
export function truncate(ordered: readonly TypeOption[], reqs: Requirements, max: number): TypeOption[] {
  if (ordered.length <= max) return [...ordered];
  const keep = new Set<TypeOption>();
  for (const r of reqs.values()) {
    if (r.minValues === undefined) continue;
    const seen = new Set<string>();
    for (const o of ordered) {
      if (seen.size >= r.minValues) break;
      const v = r.key === LabelInstanceType ? o.name : o.it.labels[r.key];
      if (v !== undefined && !seen.has(v)) {
        seen.add(v);
        keep.add(o);
      }
    }
  }
  for (const o of ordered) {
    if (keep.size >= max) break;
    keep.add(o);
  }
  return ordered.filter((o) => keep.has(o));
}

export function finalizeClaim(
  claim: InflightClaim,
  index: ResourceIndex,
  maxTypes: number,
): PlannedNodeClaim | undefined {
  const t = claim.template;
  const zero = new Float64Array(claim.used.length);
  const fitting = claim.options.filter(
    (o) => fitsVec(zero, claim.used, o.alloc) && (!claim.reserved || withinReservation(o.capacity, claim.reserved)),
  );
  const limit = t.hasMinValues ? Number.POSITIVE_INFINITY : maxTypes;
  const { options: ordered, preferSpot } = orderByPrice(fitting, claim.requirements, t.prices, limit);
  const options = truncate(ordered, claim.requirements, maxTypes);
  const first = options[0];
  if (!first) return undefined;
  // Ordered by what the fleet pays, so the first option holds the cheapest offering.
  const off = cheapestOffering(first.offerings, claim.requirements, preferSpot);
  if (!off) return undefined;
  const reqs = claim.requirements.clone();
  reqs.add(
    Requirement.of(
      LabelInstanceType,
      'In',
      options.map((o) => o.name),
    ),
  );
  const labels: Record<string, string> = { ...t.labels };
  for (const [k, v] of Object.entries(reqs.singleValueLabels())) if (k !== LabelHostname) labels[k] = v;
  const requests = new Float64Array(claim.used);
  for (let i = 0; i < requests.length; i++) requests[i] = (requests[i] as number) + (t.daemonVector[i] ?? 0);
  return {
    name: claim.name,
    nodePool: t.name,
    nodeClass: t.nodeClass,
    requirements: reqs.toNodeSelector(),
    instanceTypeOptions: options.map((o) => o.it),
    labels,
    taints: [...t.taints],
    startupTaints: [...t.startupTaints],
    pods: claim.pods,
    requests: index.toList(requests),
    daemonSetOverhead: { ...t.daemonOverhead },
    cheapest: { instanceType: first.name, zone: off.zone, capacityType: off.capacityType, price: off.price },
  };
}

function withinReservation(capacity: Float64Array, reserved: Float64Array): boolean {
  for (let i = 0; i < reserved.length; i++) if ((capacity[i] ?? 0) > (reserved[i] as number) + 1e-9) return false;
  return true;
}
