// Instance types as one NodePool sees them: allocatable after DaemonSet overhead, the offerings its requirements
// allow, and the checks that decide whether a type can serve a NodeClaim's requirements.
import { LabelCapacityType, LabelZone, LabelZoneId } from '../api/labels';
import type { InstanceType, Offering } from '../catalog/types';
import type { Requirement } from './requirement';
import type { Requirements } from './requirements';

export interface TypeOption {
  /** Position in the template's type list (stable, used for caches). */
  index: number;
  it: InstanceType;
  name: string;
  /** Allocatable minus the NodePool's DaemonSet overhead: what pods may use. */
  alloc: Float64Array;
  capacity: Float64Array;
  /** Available offerings allowed by the NodePool's own requirements. */
  offerings: Offering[];
  /** Cheapest such offering price. */
  minPrice: number;
}

const INSTANCE_LABEL_PREFIX = 'karpenter.k8s.aws/instance';

function offeringAllowed(o: Offering, zone?: Requirement, ct?: Requirement, zoneId?: Requirement): boolean {
  return (
    o.available &&
    (!zone || zone.has(o.zone)) &&
    (!ct || ct.has(o.capacityType)) &&
    (!zoneId || zoneId.has(o.zoneId ?? undefined))
  );
}

export function allowedOfferings(offerings: readonly Offering[], reqs: Requirements): Offering[] {
  const zone = reqs.get(LabelZone);
  const ct = reqs.get(LabelCapacityType);
  const zoneId = reqs.get(LabelZoneId);
  return offerings.filter((o) => offeringAllowed(o, zone, ct, zoneId));
}

/** Why the type cannot meet the requirements, or undefined when it can. */
export function typeIncompatibility(t: { it: InstanceType; offerings: readonly Offering[] }, reqs: Requirements) {
  let offeringChecked = false;
  for (const r of reqs.values()) {
    if (r.key === LabelZone || r.key === LabelCapacityType || r.key === LabelZoneId) {
      if (offeringChecked) continue;
      offeringChecked = true;
      const zone = reqs.get(LabelZone);
      const ct = reqs.get(LabelCapacityType);
      const zoneId = reqs.get(LabelZoneId);
      if (!t.offerings.some((o) => offeringAllowed(o, zone, ct, zoneId)))
        return 'no available offering in the allowed zones and capacity types';
      continue;
    }
    const v = t.it.labels[r.key];
    if (v !== undefined) {
      if (!r.has(v)) return `${r.key}=${v} is not in ${r}`;
    } else if (r.key.startsWith(INSTANCE_LABEL_PREFIX) && !r.allowsAbsent()) {
      return `${r.key} is not defined for ${t.it.name}`;
    }
  }
  return undefined;
}

export function typeCompatible(t: { it: InstanceType; offerings: readonly Offering[] }, reqs: Requirements): boolean {
  return typeIncompatibility(t, reqs) === undefined;
}

/**
 * The price CreateFleet's lowest-price strategy would pay for this type under the requirements: spot when the claim
 * allows spot and the type has a spot offering there (spot goes first), otherwise on-demand.
 */
export function cheapestOffering(
  offerings: readonly Offering[],
  reqs: Requirements,
  preferSpot: boolean,
): Offering | undefined {
  let best: Offering | undefined;
  let bestRank = 2;
  for (const o of allowedOfferings(offerings, reqs)) {
    const rank = preferSpot && o.capacityType === 'spot' ? 0 : 1;
    if (!best || rank < bestRank || (rank === bestRank && o.price < best.price)) {
      best = o;
      bestRank = rank;
    }
  }
  return best;
}
