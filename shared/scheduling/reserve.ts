// Capacity reservations in a plan (docs/aws.md, Capacity reservations). The solver sees a reserved offering as nearly
// free, so it packs onto reserved types first; this pass then hands out the reservations' room, claim by claim in plan
// order, as Karpenter's scheduler does: a claim that can use reserved offerings takes a slot and is pinned to
// `reserved` and that reservation's id. Karpenter holds a slot in every reservation among the claim's options, since
// its launch may land in any of them; here the claim holds one, in the reservation its launch will pick, so two
// one-instance reservations serve two claims in the same pass (docs/aws.md, Capacity reservations). A claim left without room falls back to its other capacity types, on the
// same instance types, or — when its pool allows only `reserved` — leaves its pods pending.
import {
  LabelCapacityReservationId,
  LabelCapacityReservationInterruptible,
  LabelCapacityReservationType,
  LabelCapacityType,
  LabelInstanceType,
  ReservationLabels,
} from '../api/labels';
import type { InstanceType, Offering } from '../catalog/types';
import { allowedOfferings } from './instancetypes';
import { Requirement } from './requirement';
import { Requirements } from './requirements';
import type { PlannedNodeClaim, UnschedulablePod } from './types';

/** Room left per reservation id, seeded from the first offering that names it. */
class Ledger {
  private readonly room = new Map<string, number>();
  left(o: Offering): number {
    const r = o.reservation;
    if (!r) return 0;
    if (!this.room.has(r.id)) this.room.set(r.id, r.capacity);
    return this.room.get(r.id) as number;
  }
  take(id: string): void {
    this.room.set(id, (this.room.get(id) ?? 1) - 1);
  }
}

const reservedTypes = new WeakMap<InstanceType, boolean>();
/** Whether the type has any reserved offering; cached per type object, since most plans have none at all. */
function hasReserved(t: InstanceType): boolean {
  let v = reservedTypes.get(t);
  if (v === undefined) {
    v = t.offerings.some((o) => o.capacityType === 'reserved');
    reservedTypes.set(t, v);
  }
  return v;
}

export function reserveCapacity(claims: readonly PlannedNodeClaim[]): {
  nodeClaims: PlannedNodeClaim[];
  unschedulable: UnschedulablePod[];
} {
  const ledger = new Ledger();
  const nodeClaims: PlannedNodeClaim[] = [];
  const unschedulable: UnschedulablePod[] = [];
  for (const claim of claims) {
    const asksReservation = claim.requirements.some((r) => ReservationLabels.includes(r.key));
    if (!asksReservation && !claim.instanceTypeOptions.some(hasReserved)) {
      nodeClaims.push(claim);
      continue;
    }
    const reqs = Requirements.from(claim.requirements);
    const ct = reqs.get(LabelCapacityType);
    const needsReservation = asksReservation && needsReservationLabel(reqs);
    if (ct && !ct.has('reserved') && !needsReservation) {
      nodeClaims.push(claim);
      continue;
    }
    const reserved = claim.instanceTypeOptions.flatMap((t) =>
      allowedOfferings(t.offerings, reqs)
        .filter((o) => o.capacityType === 'reserved' && reservationAllowed(reqs, o))
        .map((o) => ({ t, o })),
    );
    if (reserved.length === 0) {
      // Only a reserved node carries the reservation labels its pods select on.
      if (needsReservation) {
        for (const pod of claim.pods)
          unschedulable.push({
            pod,
            reason: `nodepool "${claim.nodePool}": no capacity reservation with room matches the pod's capacity reservation labels (${ReservationLabels.join(', ')})`,
          });
      } else nodeClaims.push(claim);
      continue;
    }
    // One slot, in the reservation the launch will use: on-demand reservations, then capacity blocks, then
    // interruptible reservations (as the launch filters them, shared/aws/ec2/fleet.ts), then the cheapest, then the
    // one with the most room.
    const taken = new Set<string>();
    const open = reserved
      .filter(({ o }) => ledger.left(o) > 0)
      .sort((a, b) => kindRank(a.o) - kindRank(b.o) || a.o.price - b.o.price || ledger.left(b.o) - ledger.left(a.o));
    const pick = open[0]?.o.reservation?.id;
    if (pick) {
      ledger.take(pick);
      taken.add(pick);
    }
    if (taken.size > 0) {
      nodeClaims.push(pinToReservations(claim, reqs, reserved, taken));
      continue;
    }
    const fallback = withoutReserved(claim, reqs);
    if (fallback) nodeClaims.push(fallback);
    else {
      const ids = [...new Set(reserved.map((r) => r.o.reservation?.id))].join(', ');
      for (const pod of claim.pods)
        unschedulable.push({
          pod,
          reason: `nodepool "${claim.nodePool}": capacity reservations ${ids} have no room left, and the pool allows no other capacity type`,
        });
    }
  }
  return { nodeClaims, unschedulable };
}

function pinToReservations(
  claim: PlannedNodeClaim,
  reqs: Requirements,
  reserved: readonly { t: InstanceType; o: Offering }[],
  taken: ReadonlySet<string>,
): PlannedNodeClaim {
  const held = reserved.filter((r) => taken.has(r.o.reservation?.id ?? ''));
  const names = new Set(held.map((r) => r.t.name));
  const options = claim.instanceTypeOptions.filter((t) => names.has(t.name));
  const ids = [...taken].sort();
  const types = [...new Set(held.map((r) => r.o.reservation?.type ?? 'default'))];
  const interruptible = [...new Set(held.map((r) => String(r.o.reservation?.interruptible === true)))];
  const pinned = reqs.clone();
  pinned.add(Requirement.of(LabelCapacityType, 'In', ['reserved']));
  pinned.add(Requirement.of(LabelCapacityReservationId, 'In', ids));
  pinned.add(
    Requirement.of(
      LabelInstanceType,
      'In',
      options.map((t) => t.name),
    ),
  );
  const best = held.reduce((a, b) => (b.o.price < a.o.price ? b : a));
  const labels: Record<string, string> = { ...claim.labels, [LabelCapacityType]: 'reserved' };
  if (ids.length === 1) labels[LabelCapacityReservationId] = ids[0] as string;
  if (types.length === 1) labels[LabelCapacityReservationType] = types[0] as string;
  if (interruptible.length === 1) labels[LabelCapacityReservationInterruptible] = interruptible[0] as string;
  if (options.length === 1) labels[LabelInstanceType] = (options[0] as InstanceType).name;
  return {
    ...claim,
    requirements: mergeMinValues(pinned, claim),
    instanceTypeOptions: options,
    labels,
    cheapest: { instanceType: best.t.name, zone: best.o.zone, capacityType: 'reserved', price: best.o.price },
  };
}

/** The claim without its reserved offerings: its other allowed capacity types on the types that have them, spot
 * first when allowed (as the fleet launches), else on-demand. Undefined when nothing else is allowed. */
function withoutReserved(claim: PlannedNodeClaim, reqs: Requirements): PlannedNodeClaim | undefined {
  // A pod that asks for a reservation label (its id, type or interruptibility) needs a reserved node: on-demand and
  // spot nodes carry none of them.
  if (needsReservationLabel(reqs)) return undefined;
  const ct = reqs.get(LabelCapacityType);
  const others = (['spot', 'on-demand'] as const).filter((c) => !ct || ct.has(c));
  if (others.length === 0) return undefined;
  const narrowed = reqs.clone().add(Requirement.of(LabelCapacityType, 'In', others));
  const usable = claim.instanceTypeOptions
    .map((t) => ({ t, offerings: allowedOfferings(t.offerings, narrowed) }))
    .filter((u) => u.offerings.length > 0);
  if (usable.length === 0) return undefined;
  const preferSpot = usable.some((u) => u.offerings.some((o) => o.capacityType === 'spot'));
  let best: { t: InstanceType; o: Offering } | undefined;
  for (const u of usable) {
    for (const o of u.offerings) {
      if (preferSpot && o.capacityType !== 'spot') continue;
      if (!best || o.price < best.o.price) best = { t: u.t, o };
    }
  }
  const chosen = best as { t: InstanceType; o: Offering };
  const options = usable.map((u) => u.t);
  narrowed.add(
    Requirement.of(
      LabelInstanceType,
      'In',
      options.map((t) => t.name),
    ),
  );
  const labels = { ...claim.labels };
  if (others.length === 1) labels[LabelCapacityType] = others[0] as string;
  else delete labels[LabelCapacityType];
  return {
    ...claim,
    requirements: mergeMinValues(narrowed, claim),
    instanceTypeOptions: options,
    labels,
    cheapest: {
      instanceType: chosen.t.name,
      zone: chosen.o.zone,
      capacityType: chosen.o.capacityType,
      price: chosen.o.price,
    },
  };
}

/** Whether a requirement on a reservation label rules its absence out: only reserved nodes carry those labels. */
function needsReservationLabel(reqs: Requirements): boolean {
  return ReservationLabels.some((k) => reqs.get(k)?.allowsAbsent() === false);
}

/** Priority of a reservation's kind, as one CreateFleet request takes one kind: on-demand reservations (0), capacity
 * blocks (1), interruptible reservations (2), Karpenter's order among equally priced partitions. */
function kindRank(o: Offering): number {
  if (o.reservation?.type === 'capacity-block') return 1;
  return o.reservation?.interruptible ? 2 : 0;
}

/** Whether the claim's requirements on the reservation labels admit the offering's reservation: Karpenter's reserved
 * offerings carry its id, type and interruptibility as requirements (a pod may select on them). */
function reservationAllowed(reqs: Requirements, o: Offering): boolean {
  const r = o.reservation;
  if (!r) return false;
  const id = reqs.get(LabelCapacityReservationId);
  const type = reqs.get(LabelCapacityReservationType);
  const interruptible = reqs.get(LabelCapacityReservationInterruptible);
  return (
    (!id || id.has(r.id)) &&
    (!type || type.has(r.type)) &&
    (!interruptible || interruptible.has(String(r.interruptible === true)))
  );
}

/** The narrowed requirements, keeping each key's minValues as the claim had it. */
function mergeMinValues(reqs: Requirements, claim: PlannedNodeClaim) {
  const min = new Map(claim.requirements.filter((r) => r.minValues !== undefined).map((r) => [r.key, r.minValues]));
  return reqs.toNodeSelector().map((r) => (min.has(r.key) ? { ...r, minValues: min.get(r.key) } : r));
}
