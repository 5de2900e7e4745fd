// Offerings: one per (zone × capacity type) where the type is sold, with its price and whether it may be tried now.
// Windows nodes pay the Windows (licence-included) prices, and a type without them has no Windows offerings.
import type { Catalog, InstanceTypeInfo, NodeOS, Offering, UnavailableOffering } from './types';

/** The ICE-cache key of an offering. A reserved offering is keyed by its reservation too: a reservation that ran out
 * says nothing of another reservation of the same type and zone, nor of on-demand or spot there (as Karpenter marks
 * the reservation, not the offering, unavailable; docs/aws.md, Capacity reservations). */
export function offeringKey(instanceType: string, zone: string, capacityType: string, reservationId?: string): string {
  return reservationId
    ? `${instanceType}|${zone}|${capacityType}|${reservationId}`
    : `${instanceType}|${zone}|${capacityType}`;
}

/** The key an unavailable entry is stored and looked up under. */
export const unavailableKey = (
  u: Pick<UnavailableOffering, 'instanceType' | 'zone' | 'capacityType' | 'reservationId'>,
) => offeringKey(u.instanceType, u.zone, u.capacityType, u.reservationId);

/** The unexpired entries, keyed for lookup; expired ones no longer block anything. */
export function unavailableKeys(unavailable: readonly UnavailableOffering[] | undefined, now: number): Set<string> {
  const keys = new Set<string>();
  for (const u of unavailable ?? []) {
    if (u.expiresAt > now) keys.add(unavailableKey(u));
  }
  return keys;
}

/** Whether the ICE cache refuses this offering of the type: its own entry, or for a reserved offering an entry that
 * names no reservation (one written before entries carried it) for its type, zone and capacity type. */
export function isRefused(
  refused: ReadonlySet<string>,
  instanceType: string,
  o: Pick<Offering, 'zone' | 'capacityType' | 'reservation'>,
): boolean {
  if (refused.has(offeringKey(instanceType, o.zone, o.capacityType))) return true;
  return (
    o.reservation !== undefined && refused.has(offeringKey(instanceType, o.zone, o.capacityType, o.reservation.id))
  );
}

const ESTIMATE = { priceSource: 'estimate' } as const;

export function offeringsFor(
  info: InstanceTypeInfo,
  catalog: Catalog,
  unavailable?: ReadonlySet<string>,
  os: NodeOS = 'linux',
): Offering[] {
  const prices = os === 'windows' ? info.windows : info;
  const offerings: Offering[] = [];
  if (!prices) return offerings;
  const estimated = catalog.estimatedPrices;
  const windowsEstimate = os === 'windows' && estimated?.windows === true;
  const spotSource = windowsEstimate || estimated?.spot ? ESTIMATE : undefined;
  const onDemandSource = windowsEstimate ? ESTIMATE : undefined;
  for (const zone of info.zones) {
    const zoneId = catalog.zones.find((z) => z.name === zone)?.id;
    const spot = prices.spotPrice[zone];
    if (spot !== undefined) {
      const available = !unavailable?.has(offeringKey(info.name, zone, 'spot'));
      offerings.push({
        zone,
        ...(zoneId ? { zoneId } : {}),
        capacityType: 'spot',
        price: spot,
        ...spotSource,
        available,
      });
    }
    const available = !unavailable?.has(offeringKey(info.name, zone, 'on-demand'));
    offerings.push({
      zone,
      ...(zoneId ? { zoneId } : {}),
      capacityType: 'on-demand',
      price: prices.onDemandPrice,
      ...onDemandSource,
      available,
    });
  }
  return offerings;
}

/** The cheapest available offering price of a capacity type, or undefined when there is none. */
export function cheapestPrice(
  offerings: readonly Offering[],
  capacityType?: Offering['capacityType'],
): number | undefined {
  let best: number | undefined;
  for (const o of offerings) {
    if (!o.available || (capacityType && o.capacityType !== capacityType)) continue;
    if (best === undefined || o.price < best) best = o.price;
  }
  return best;
}
