// Capacity reservations given to the simulator (a CapacityReservation document or a scenario step) enter its account
// here: the size becomes the reservation's total, and a block's end is counted from when it is given.
import type { CapacityReservationInput } from '../api/capacity-reservation';
import type { CapacityReservation } from '../catalog/reservations';
import type { SimCloud } from './sim-cloud';

export function reservationOf(input: CapacityReservationInput, now: number): CapacityReservation {
  const { instanceCount, endsAfterMs, ...rest } = input;
  return {
    ...rest,
    availableInstanceCount: instanceCount,
    totalInstanceCount: instanceCount,
    ...(endsAfterMs !== undefined ? { endTime: new Date(now + endsAfterMs).toISOString() } : {}),
  };
}

export function addReservation(cloud: SimCloud, input: CapacityReservationInput, now: number): void {
  cloud.addReservations([reservationOf(input, now)]);
}
