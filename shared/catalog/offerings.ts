// Offerings: one per (zone × capacity type) where the type is sold, with its price and whether it may be tried now.
// Windows nodes pay the Windows (licence-included) prices, and a type without them has no Windows offerings.
import type { Catalog, InstanceTypeInfo, NodeOS, Offering, UnavailableOffering } from './types';

export function offeringKey(instanceType: string, zone: string, capacityType: string): string {
  return `${instanceType}|${zone}|${capacityType}`;
}

/** The unexpired entries, keyed for lookup; expired ones no longer block anything. */
export function unavailableKeys(unavailable: readonly UnavailableOffering[] | undefined, now: number): Set<string> {
  const keys = new Set<string>();
  for (const u of unavailable ?? []) {
    if (u.expiresAt > now) keys.add(offeringKey(u.instanceType, u.zone, u.capacityType));
  }
  return keys;
}

export function offeringsFor(
  info: InstanceTypeInfo,
  catalog: Catalog,
  unavailable?: ReadonlySet<string>,
  os: NodeOS = 'linux',
): Offering[] {
  const prices = os === 'windows' ? info.windows : info;
  const offerings: Offering[] = [];
  if (!prices) return offerings;
  for (const zone of info.zones) {
    const zoneId = catalog.zones.find((z) => z.name === zone)?.id;
    const spot = prices.spotPrice[zone];
    if (spot !== undefined) {
      const available = !unavailable?.has(offeringKey(info.name, zone, 'spot'));
      offerings.push({ zone, ...(zoneId ? { zoneId } : {}), capacityType: 'spot', price: spot, available });
    }
    const available = !unavailable?.has(offeringKey(info.name, zone, 'on-demand'));
    offerings.push({
      zone,
      ...(zoneId ? { zoneId } : {}),
      capacityType: 'on-demand',
      price: prices.onDemandPrice,
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
