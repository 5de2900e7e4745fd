// DescribeCapacityReservations for an EC2NodeClass's capacityReservationSelectorTerms (docs/aws.md, Capacity
// reservations), with Karpenter's queries: an id term asks for that id; a tags or instanceMatchCriteria term filters on
// each tag ('*': the key alone), the match criteria and the owner; every query asks only for active reservations. Answers are cached per term for a minute, and
// a launch into a reservation takes one off its cached room at once, so back-to-back launches do not overfill it.
import {
  DescribeCapacityReservationsCommand,
  type DescribeCapacityReservationsCommandOutput,
  type EC2Client,
  type CapacityReservation as Ec2Reservation,
  type Filter,
} from '@aws-sdk/client-ec2';
import type { CapacityReservationSelectorTerm } from '../../api/karpenter';
import type { CapacityReservation } from '../../catalog/reservations';
import type { Clock } from '../../ports';
import { errorCode } from './errors';

const TTL_MS = 60_000;

export function reservationQuery(term: CapacityReservationSelectorTerm): {
  CapacityReservationIds?: string[];
  Filters: Filter[];
} {
  const filters: Filter[] = [{ Name: 'state', Values: ['active'] }];
  if (term.id) return { CapacityReservationIds: [term.id], Filters: filters };
  if (term.ownerID) filters.push({ Name: 'owner-id', Values: [term.ownerID] });
  for (const [k, v] of Object.entries(term.tags ?? {})) {
    filters.push(v === '*' ? { Name: 'tag-key', Values: [k] } : { Name: `tag:${k}`, Values: [v] });
  }
  if (term.instanceMatchCriteria)
    filters.push({ Name: 'instance-match-criteria', Values: [term.instanceMatchCriteria] });
  return { Filters: filters };
}

/** EC2's answer in the engine's shape; undefined for one whose match criteria or type Karpenter does not know. */
export function fromEc2(r: Ec2Reservation): CapacityReservation | undefined {
  const criteria = r.InstanceMatchCriteria;
  const type = r.ReservationType ?? 'default';
  if ((criteria !== 'open' && criteria !== 'targeted') || (type !== 'default' && type !== 'capacity-block'))
    return undefined;
  if (!r.CapacityReservationId || !r.InstanceType || !r.AvailabilityZone) return undefined;
  const tags = Object.fromEntries((r.Tags ?? []).flatMap((t) => (t.Key ? [[t.Key, t.Value ?? '']] : [])));
  return {
    id: r.CapacityReservationId,
    instanceType: r.InstanceType,
    availabilityZone: r.AvailabilityZone,
    ownerID: r.OwnerId ?? '',
    reservationType: type,
    instanceMatchCriteria: criteria,
    availableInstanceCount: r.AvailableInstanceCount ?? 0,
    ...(r.TotalInstanceCount !== undefined ? { totalInstanceCount: r.TotalInstanceCount } : {}),
    ...(r.EndDate ? { endTime: r.EndDate.toISOString() } : {}),
    // EC2 leaves Interruptible out for default reservations and capacity blocks: absent is false, as in Karpenter.
    ...(r.Interruptible === true ? { interruptible: true } : {}),
    ...(Object.keys(tags).length ? { tags } : {}),
  };
}

export class CapacityReservations {
  private readonly cache = new Map<string, { at: number; reservations: CapacityReservation[] }>();

  constructor(
    private readonly ec2: EC2Client,
    private readonly clock: Clock,
  ) {}

  /** The reservations the terms select (ORed), each once, without those already ended. */
  async list(terms: readonly CapacityReservationSelectorTerm[] | undefined): Promise<CapacityReservation[]> {
    const byId = new Map<string, CapacityReservation>();
    const now = this.clock.now();
    for (const term of terms ?? []) {
      for (const r of await this.query(term, now)) byId.set(r.id, r);
    }
    return [...byId.values()].filter((r) => !r.endTime || Date.parse(r.endTime) > now);
  }

  /** A launch went into the reservation: one less instance of room until EC2 is asked again. */
  markLaunched(id: string): void {
    for (const entry of this.cache.values()) {
      for (const r of entry.reservations) if (r.id === id && r.availableInstanceCount > 0) r.availableInstanceCount--;
    }
  }

  /** EC2 refused a launch into it (ReservationCapacityExceeded): no room until EC2 is asked again. */
  markUnavailable(id: string): void {
    for (const entry of this.cache.values()) {
      for (const r of entry.reservations) if (r.id === id) r.availableInstanceCount = 0;
    }
  }

  private async query(term: CapacityReservationSelectorTerm, now: number): Promise<CapacityReservation[]> {
    const key = JSON.stringify([
      term.id ?? '',
      term.ownerID ?? '',
      term.instanceMatchCriteria ?? '',
      Object.entries(term.tags ?? {}).sort(),
    ]);
    const hit = this.cache.get(key);
    if (hit && now - hit.at < TTL_MS) return hit.reservations;
    const reservations: CapacityReservation[] = [];
    let NextToken: string | undefined;
    do {
      let out: DescribeCapacityReservationsCommandOutput;
      try {
        out = await this.ec2.send(
          new DescribeCapacityReservationsCommand({
            ...reservationQuery(term),
            ...(term.id ? {} : { MaxResults: 1000 }),
            ...(NextToken ? { NextToken } : {}),
          }),
        );
      } catch (err) {
        // An id that no longer exists selects nothing, as in Karpenter.
        if (/NotFound/.test(errorCode(err))) break;
        throw err;
      }
      for (const r of out.CapacityReservations ?? []) {
        const mine = fromEc2(r);
        if (mine) reservations.push(mine);
      }
      NextToken = out.NextToken;
    } while (NextToken);
    this.cache.set(key, { at: now, reservations });
    return reservations;
  }
}
