// The scenario step that gives the simulated account a capacity reservation (docs/scenarios.md, Capacity
// reservations): an on-demand capacity reservation or a capacity block, with its size, zone, tags and, for a block, its
// end as a duration from the step. Parsing (with field paths) and applying live together, one concept.
import {
  expectDuration,
  expectEnum,
  expectInt,
  expectObject,
  expectString,
  expectStringMap,
  show,
} from '../../api/check';
import type { Problems } from '../../api/problems';
import { parseDuration } from '../../api/quantity';
import { OWNER_ID, RESERVATION_ID } from '../../api/validate-reservations';
import type { CapacityReservation } from '../../catalog/reservations';
import type { SimCloud } from '../sim-cloud';

export interface ReservationStepAction {
  type: 'capacityReservation';
  reservation: Omit<CapacityReservation, 'endTime'>;
  /** A capacity block's end, in ms after the step. */
  endsAfter?: number;
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
  'tags',
];

export function parseReservationStep(p: Problems, path: string, v: unknown): ReservationStepAction | undefined {
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
    p.error(`${path}.endsAfter`, 'required for a capacity-block: how long after this step the block ends');
  const tags = expectStringMap(p, `${path}.tags`, o.tags);
  if (!id || !RESERVATION_ID.test(id) || !instanceType || !zone || count === undefined) return undefined;
  return {
    type: 'capacityReservation',
    reservation: {
      id,
      instanceType,
      availabilityZone: zone,
      ownerID: owner ?? '000000000000',
      reservationType: type ?? 'default',
      instanceMatchCriteria: criteria ?? 'targeted',
      availableInstanceCount: count,
      totalInstanceCount: count,
      ...(tags ? { tags } : {}),
    },
    ...(ends !== undefined ? { endsAfter: parseDuration(ends) } : {}),
  };
}

/** Adds the reservation to the simulated account, its end counted from `now`. */
export function applyReservationStep(cloud: SimCloud, action: ReservationStepAction, now: number): void {
  const end = action.endsAfter !== undefined ? { endTime: new Date(now + action.endsAfter).toISOString() } : {};
  cloud.addReservations([{ ...action.reservation, ...end }]);
}
