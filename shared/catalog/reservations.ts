// Capacity reservations as offerings (docs/aws.md, Capacity reservations): each reservation an EC2NodeClass selects
// adds one `reserved` offering to its instance type, in its zone. As Karpenter models them, a reserved offering costs
// the on-demand price divided by 10,000,000 — near zero, so the solver prefers it, yet still ordered by size — and is
// available only while the reservation has room and is not an expiring capacity block.
import type { CapacityReservationSelectorTerm } from '../api/karpenter';
import type { CapacityReservationStatus } from '../api/status';
import { isRefused, unavailableKeys } from './offerings';
import type { InstanceType, Offering, UnavailableOffering } from './types';

/** A reservation as the cloud reports it: the status fields plus the room left and its tags (for selection). */
export interface CapacityReservation extends Omit<CapacityReservationStatus, 'state'> {
  /** Instances it can still take (EC2's AvailableInstanceCount). */
  availableInstanceCount: number;
  /** Instances it holds in all (EC2's TotalInstanceCount). */
  totalInstanceCount?: number;
  tags?: Record<string, string>;
}

/** Karpenter's divisor: a reserved offering's price is the on-demand price over this. */
export const RESERVED_PRICE_DIVISOR = 10_000_000;
/** A capacity block turns `expiring` this long before its end: EC2 reclaims its instances 30 minutes before the end,
 * and Karpenter drains them 10 minutes before that. */
export const CAPACITY_BLOCK_EXPIRY_LEAD_MS = 40 * 60_000;

export function reservationState(r: Pick<CapacityReservation, 'reservationType' | 'endTime'>, now: number) {
  if (r.reservationType !== 'capacity-block' || !r.endTime) return 'active' as const;
  return now < Date.parse(r.endTime) - CAPACITY_BLOCK_EXPIRY_LEAD_MS ? ('active' as const) : ('expiring' as const);
}

/** What status.capacityReservations lists for these reservations, sorted by id as Karpenter sorts them. */
export function reservationStatuses(reservations: readonly CapacityReservation[], now: number) {
  return [...reservations]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map(
      (r): CapacityReservationStatus => ({
        id: r.id,
        instanceType: r.instanceType,
        availabilityZone: r.availabilityZone,
        ownerID: r.ownerID,
        reservationType: r.reservationType,
        instanceMatchCriteria: r.instanceMatchCriteria,
        state: reservationState(r, now),
        ...(r.endTime ? { endTime: r.endTime } : {}),
        interruptible: r.interruptible === true,
      }),
    );
}

/** Whether a term selects the reservation: by id alone, or by all its tags ('*' matches any value) and/or its
 * instance match criteria, and the owner when given (Karpenter's DescribeCapacityReservations filters). */
export function termSelects(term: CapacityReservationSelectorTerm, r: CapacityReservation): boolean {
  if (term.id !== undefined) return term.id === r.id;
  if (term.tags === undefined && term.instanceMatchCriteria === undefined) return false;
  if (term.ownerID !== undefined && term.ownerID !== r.ownerID) return false;
  if (term.instanceMatchCriteria !== undefined && term.instanceMatchCriteria !== r.instanceMatchCriteria) return false;
  return Object.entries(term.tags ?? {}).every(([k, v]) => r.tags?.[k] !== undefined && (v === '*' || r.tags[k] === v));
}

/** The reservations any of the terms selects (terms are ORed), without those already ended. */
export function selectReservations(
  terms: readonly CapacityReservationSelectorTerm[] | undefined,
  reservations: readonly CapacityReservation[],
  now: number,
): CapacityReservation[] {
  if (!terms?.length) return [];
  return reservations.filter(
    (r) => (!r.endTime || Date.parse(r.endTime) > now) && terms.some((t) => termSelects(t, r)),
  );
}

/** The types with a reserved offering added for each reservation of theirs in a zone they are offered in (a type
 * the EC2NodeClass rules out, or a zone without its subnets, gets none). */
export function withReservedOfferings(
  types: InstanceType[],
  reservations: readonly CapacityReservation[],
  now: number,
  unavailable?: readonly UnavailableOffering[],
): InstanceType[] {
  const refused = unavailableKeys(unavailable, now);
  if (reservations.length === 0) return types;
  const byType = new Map<string, CapacityReservation[]>();
  for (const r of reservations) byType.set(r.instanceType, [...(byType.get(r.instanceType) ?? []), r]);
  return types.map((t) => {
    const mine = byType.get(t.name);
    if (!mine) return t;
    const reserved = mine
      .filter((r) => t.offerings.some((o) => o.zone === r.availabilityZone))
      .map((r) => reservedOffering(t, r, now))
      .map((o) => (isRefused(refused, t.name, o) ? { ...o, available: false } : o));
    return reserved.length ? { ...t, offerings: [...t.offerings, ...reserved] } : t;
  });
}

/** The type's offering in the reservation's zone gives it its zone id. */
function reservedOffering(t: InstanceType, r: CapacityReservation, now: number) {
  const zoneId = t.offerings.find((o) => o.zone === r.availabilityZone)?.zoneId;
  const state = reservationState(r, now);
  const offering: Offering = {
    zone: r.availabilityZone,
    ...(zoneId ? { zoneId } : {}),
    capacityType: 'reserved',
    price: t.info.onDemandPrice / RESERVED_PRICE_DIVISOR,
    available: r.availableInstanceCount > 0 && state === 'active',
    reservation: {
      id: r.id,
      type: r.reservationType,
      capacity: r.availableInstanceCount,
      ...(r.endTime ? { endTime: r.endTime } : {}),
      ...(r.interruptible ? { interruptible: true } : {}),
    },
  };
  return offering;
}

/** Karpenter's CapacityReservationDrift: the instance is still in a reservation (EC2 still reports it there), but the
 * EC2NodeClass no longer selects it (its terms changed). A reservation that ended or was cancelled releases its
 * instances to on-demand, so they are not in it any more and do not drift (docs/aws.md, Capacity reservations). */
export function reservationDrift(
  reservationId: string | undefined,
  selected: readonly Pick<CapacityReservation, 'id'>[],
): string | undefined {
  if (!reservationId || selected.some((r) => r.id === reservationId)) return undefined;
  return `CapacityReservationDrift: instance is in capacity reservation ${reservationId}, which capacityReservationSelectorTerms no longer select`;
}
