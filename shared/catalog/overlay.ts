// NodeOverlays applied to the instance types each NodePool sees: one transformation, made once per read of the
// cluster, before provisioning, consolidation, the lower bound or a report reads a price or a capacity
// (docs/api.md, "NodeOverlay"). Karpenter's rules:
// - overlays are taken in precedence order (higher weight, then the name later in the alphabet);
// - an overlay selects an offering when the type's labels, the NodePool's name and template labels, and the
//   offering's zone and capacity type all meet its requirements; a key none of them carries meets only NotIn and
//   DoesNotExist;
// - the first overlay to price an offering sets its price; capacity merges resource by resource, the first
//   overlay to name a resource setting it;
// - an overlay that would price an offering, or set a resource, already set by an overlay of the same weight
//   conflicts: it is applied nowhere, and reported.
import { LabelCapacityType, LabelNodePool, LabelZone, LabelZoneId } from '../api/labels';
import { byOverlayPrecedence, type NodeOverlay, overlaidPrice } from '../api/nodeoverlay';
import { parseResource } from '../api/quantity';
import { requirementAllows } from '../api/selector';
import type { AppliedCapacityOverlay, AppliedPriceOverlay, InstanceType, Offering } from './types';

/** The NodePool facts an overlay may select on. */
export interface OverlayPool {
  name: string;
  labels?: Record<string, string>;
}

export interface OverlayConflict {
  overlay: string;
  reason: string;
}

export interface OverlaidTypes {
  /** Per NodePool name, its types with every overlay applied; pools no overlay touches keep their arrays. */
  instanceTypes: Map<string, InstanceType[]>;
  /** Overlays left out because they conflict with another of the same weight (Karpenter's Ready=False). */
  conflicts: OverlayConflict[];
}

interface TypeUpdate {
  /** Offering key → [overlay, its weight]. */
  price: Map<string, [NodeOverlay, number]>;
  /** Resource → [overlay, its weight]. */
  capacity: Map<string, [NodeOverlay, number]>;
}

const offeringKey = (o: Offering): string => `${o.zone}/${o.capacityType}`;

const OFFERING_KEYS: ReadonlySet<string> = new Set([LabelZone, LabelZoneId, LabelCapacityType]);

/** The offerings of `type` in `pool` that `overlay` selects; none when it does not select the type. */
export function selectedOfferings(overlay: NodeOverlay, pool: OverlayPool, type: InstanceType): Offering[] {
  const reqs = overlay.spec.requirements ?? [];
  const typeLabels: Record<string, string> = { ...type.labels, ...(pool.labels ?? {}), [LabelNodePool]: pool.name };
  if (!reqs.every((r) => OFFERING_KEYS.has(r.key) || requirementAllows(r, typeLabels[r.key]))) return [];
  const offeringReqs = reqs.filter((r) => OFFERING_KEYS.has(r.key));
  return type.offerings.filter((o) =>
    offeringReqs.every((r) => {
      const value = r.key === LabelZone ? o.zone : r.key === LabelZoneId ? o.zoneId : o.capacityType;
      return requirementAllows(r, value);
    }),
  );
}

export function applyNodeOverlays(
  overlays: readonly NodeOverlay[],
  pools: readonly OverlayPool[],
  instanceTypes: ReadonlyMap<string, InstanceType[]>,
): OverlaidTypes {
  if (overlays.length === 0) return { instanceTypes: new Map(instanceTypes), conflicts: [] };
  const updates = new Map<string, Map<string, TypeUpdate>>();
  const updateFor = (pool: string, type: string): TypeUpdate => {
    const byType = updates.get(pool) ?? new Map<string, TypeUpdate>();
    updates.set(pool, byType);
    const u = byType.get(type) ?? { price: new Map(), capacity: new Map() };
    byType.set(type, u);
    return u;
  };
  const conflicts: OverlayConflict[] = [];
  for (const overlay of [...overlays].sort(byOverlayPrecedence)) {
    const weight = overlay.spec.weight ?? 0;
    const change = overlay.spec.price ?? overlay.spec.priceAdjustment;
    const resources = Object.keys(overlay.spec.capacity ?? {});
    const matches: { pool: string; type: string; offerings: Offering[] }[] = [];
    let conflict: string | undefined;
    for (const pool of pools) {
      for (const type of instanceTypes.get(pool.name) ?? []) {
        const offerings = selectedOfferings(overlay, pool, type);
        if (offerings.length === 0) continue;
        matches.push({ pool: pool.name, type: type.name, offerings });
        const u = updates.get(pool.name)?.get(type.name);
        if (!u || conflict) continue;
        const rival =
          (change !== undefined &&
            offerings.map((o) => u.price.get(offeringKey(o))).find((p) => p && p[1] === weight)?.[0]) ||
          resources.map((r) => u.capacity.get(r)).find((c) => c && c[1] === weight)?.[0];
        if (rival) {
          conflict = `conflicts with NodeOverlay ${rival.metadata.name} (same weight ${weight}) on ${type.name} in NodePool ${pool.name}`;
        }
      }
    }
    if (conflict) {
      conflicts.push({ overlay: overlay.metadata.name, reason: conflict });
      continue;
    }
    for (const m of matches) {
      const u = updateFor(m.pool, m.type);
      if (change !== undefined) {
        for (const o of m.offerings) if (!u.price.has(offeringKey(o))) u.price.set(offeringKey(o), [overlay, weight]);
      }
      for (const r of resources) if (!u.capacity.has(r)) u.capacity.set(r, [overlay, weight]);
    }
  }
  const out = new Map<string, InstanceType[]>();
  for (const [pool, types] of instanceTypes) {
    const byType = updates.get(pool);
    out.set(pool, byType ? types.map((t) => overlaid(t, byType.get(t.name))) : types);
  }
  return { instanceTypes: out, conflicts };
}

function overlaid(type: InstanceType, u: TypeUpdate | undefined): InstanceType {
  if (!u) return type;
  // Only what an overlay changes is copied; the rest stays shared with the catalog's type (as Karpenter's store does).
  const out: InstanceType = { ...type };
  if (u.capacity.size > 0) {
    const capacity = { ...type.capacity };
    const allocatable = { ...type.allocatable };
    const capacityOverlays: Record<string, AppliedCapacityOverlay> = {};
    for (const [resource, [overlay, weight]] of u.capacity) {
      const q = overlay.spec.capacity?.[resource];
      if (q === undefined) continue;
      // Extended resources carry no kubelet overhead, so what an overlay adds is allocatable in full.
      capacity[resource] = parseResource(resource, q);
      allocatable[resource] = capacity[resource];
      capacityOverlays[resource] = { name: overlay.metadata.name, weight, quantity: String(q) };
    }
    Object.assign(out, { capacity, allocatable, capacityOverlays });
  }
  if (u.price.size > 0) {
    out.offerings = type.offerings.map((o) => {
      const hit = u.price.get(offeringKey(o));
      if (!hit) return o;
      const [overlay, weight] = hit;
      const change = overlay.spec.price ?? overlay.spec.priceAdjustment ?? '';
      const adjustment =
        overlay.spec.price !== undefined ? `price: ${overlay.spec.price}` : `priceAdjustment: ${change}`;
      const applied: AppliedPriceOverlay = { name: overlay.metadata.name, weight, adjustment, basePrice: o.price };
      const priced: Offering = { ...o, price: overlaidPrice(o.price, change), overlay: applied };
      // An absolute price is the overlay's own; an adjustment of an estimate is still an estimate.
      if (overlay.spec.price !== undefined) delete priced.priceSource;
      return priced;
    });
  }
  return out;
}
