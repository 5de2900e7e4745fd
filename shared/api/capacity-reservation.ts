// A capacity reservation given to the simulator (docs/scenarios.md, Capacity reservations): the fields of an EC2
// on-demand capacity reservation or capacity block that Karpenter reads, with its size and, for a block, its end as a
// duration from when the simulator receives it. Read from a `capacityReservation` scenario step and from a
// `CapacityReservation` document (apiVersion karpless.dev/v1alpha1) in `simulate -f` or a scenario's `apply`.
import {
  expectBool,
  expectDuration,
  expectEnum,
  expectInt,
  expectObject,
  expectString,
  expectStringMap,
  show,
} from './check';
import type { Problems } from './problems';
import { parseDuration } from './quantity';
import type { CapacityReservationStatus } from './status';
import { OWNER_ID, RESERVATION_ID } from './validate-reservations';

export const CAPACITY_RESERVATION_API_VERSION = 'karpless.dev/v1alpha1';

/** The fields Karpenter publishes in status.capacityReservations, less what the simulator derives (state, endTime). */
export interface CapacityReservationInput extends Omit<CapacityReservationStatus, 'state' | 'endTime'> {
  /** The reservation's size (EC2's TotalInstanceCount). */
  instanceCount: number;
  tags?: Record<string, string>;
  /** A capacity block's end, in ms after the simulator receives it. */
  endsAfterMs?: number;
}

const FIELDS = [
  'id',
  'instanceType',
  'availabilityZone',
  'instanceCount',
  'reservationType',
  'endsAfter',
  'ownerID',
  'instanceMatchCriteria',
  'interruptible',
  'tags',
];

/** The reservation at `path`, every problem reported with its field path; undefined when it is unusable. `origin`
 * names what a block's `endsAfter` counts from. */
export function parseCapacityReservation(
  p: Problems,
  path: string,
  v: unknown,
  origin = 'it is applied (the start of a simulate -f run)',
): CapacityReservationInput | undefined {
  const o = expectObject(p, path, v, true);
  if (!o) return undefined;
  for (const k of Object.keys(o)) if (!FIELDS.includes(k)) p.error(`${path}.${k}`, 'unknown field');
  const id = expectString(p, `${path}.id`, o.id, true);
  if (id !== undefined && !RESERVATION_ID.test(id))
    p.error(`${path}.id`, `${show(id)} does not match ${RESERVATION_ID.source}`);
  const instanceType = expectString(p, `${path}.instanceType`, o.instanceType, true);
  const zone = expectString(p, `${path}.availabilityZone`, o.availabilityZone, true);
  const count = expectInt(p, `${path}.instanceCount`, o.instanceCount, { min: 1, required: true });
  const type = expectEnum(p, `${path}.reservationType`, o.reservationType, ['default', 'capacity-block'] as const);
  const owner = expectString(p, `${path}.ownerID`, o.ownerID);
  if (owner !== undefined && !OWNER_ID.test(owner))
    p.error(`${path}.ownerID`, `${show(owner)} does not match ${OWNER_ID.source}`);
  const criteria = expectEnum(p, `${path}.instanceMatchCriteria`, o.instanceMatchCriteria, [
    'open',
    'targeted',
  ] as const);
  const ends = expectDuration(p, `${path}.endsAfter`, o.endsAfter, false);
  if (type === 'capacity-block' && ends === undefined && o.endsAfter === undefined)
    p.error(`${path}.endsAfter`, `required for a capacity-block: how long after ${origin} the block ends`);
  const interruptible = expectBool(p, `${path}.interruptible`, o.interruptible);
  if (interruptible && type === 'capacity-block')
    p.error(`${path}.interruptible`, 'a capacity-block cannot be interruptible (only default reservations are)');
  const tags = expectStringMap(p, `${path}.tags`, o.tags);
  if (!id || !RESERVATION_ID.test(id) || !instanceType || !zone || count === undefined) return undefined;
  return {
    id,
    instanceType,
    availabilityZone: zone,
    ownerID: owner ?? '000000000000',
    reservationType: type ?? 'default',
    instanceMatchCriteria: criteria ?? 'targeted',
    instanceCount: count,
    ...(interruptible ? { interruptible: true } : {}),
    ...(tags ? { tags } : {}),
    ...(ends !== undefined ? { endsAfterMs: parseDuration(ends) } : {}),
  };
}
