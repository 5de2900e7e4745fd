// Turning an insufficient-capacity failure into cached unavailable offerings, so the next provisioning pass plans
// around them (docs/architecture.md, Timers: ICE cache 3 min).
import type { UnavailableOffering } from '../catalog/types';
import type { InsufficientCapacityError } from '../errors';
import type { NodeClaimStore } from '../ports';
import { OFFERING_TTL_MS } from './dynamo/schema';

export function unavailableFrom(
  offerings: InsufficientCapacityError['offerings'],
  now: number,
  ttlMs = OFFERING_TTL_MS,
): UnavailableOffering[] {
  return offerings.map((o) => ({ ...o, expiresAt: now + ttlMs }));
}

export async function recordInsufficientCapacity(
  store: Pick<NodeClaimStore, 'markUnavailable'>,
  error: InsufficientCapacityError,
  now: number,
  ttlMs = OFFERING_TTL_MS,
): Promise<UnavailableOffering[]> {
  const offerings = unavailableFrom(error.offerings, now, ttlMs);
  await Promise.all(offerings.map((o) => store.markUnavailable(o)));
  return offerings;
}
