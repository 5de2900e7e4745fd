// The scenario step that gives the simulated account a capacity reservation (docs/scenarios.md, Capacity
// reservations); its fields are the CapacityReservation document's (shared/api/capacity-reservation.ts).
import { type CapacityReservationInput, parseCapacityReservation } from '../../api/capacity-reservation';
import type { Problems } from '../../api/problems';
import { addReservation } from '../reservations';
import type { SimCloud } from '../sim-cloud';

export interface ReservationStepAction {
  type: 'capacityReservation';
  reservation: CapacityReservationInput;
}

export function parseReservationStep(p: Problems, path: string, v: unknown): ReservationStepAction | undefined {
  const reservation = parseCapacityReservation(p, path, v, 'this step');
  return reservation ? { type: 'capacityReservation', reservation } : undefined;
}

/** Adds the reservation to the simulated account, its end counted from `now`. */
export function applyReservationStep(cloud: SimCloud, action: ReservationStepAction, now: number): void {
  addReservation(cloud, action.reservation, now);
}
