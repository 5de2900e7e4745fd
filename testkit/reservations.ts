// Capacity reservation builders for the tests: one reservation in the engine's shape (shared/catalog/reservations.ts),
// and a bed whose pool may launch into reservations.
import type { NodeSelectorRequirementWithMinValues } from '../shared/api/karpenter';
import { LabelArch, LabelCapacityType, LabelInstanceType, LabelOS, LabelZone } from '../shared/api/labels';
import type { CapacityReservation } from '../shared/catalog/reservations';
import { createTestbed, type Testbed, testNodeClass, testNodePool } from './bed';

export function reservation(o: Partial<CapacityReservation> & { id: string }): CapacityReservation {
  const total = o.totalInstanceCount ?? o.availableInstanceCount ?? 1;
  return {
    instanceType: 'm5.large',
    availabilityZone: 'us-east-1a',
    ownerID: '111122223333',
    reservationType: 'default',
    instanceMatchCriteria: 'targeted',
    availableInstanceCount: total,
    totalInstanceCount: total,
    ...o,
  };
}

/** The bed's pool on m5.large and c5.large in us-east-1a, allowing `capacityTypes`, through a class that selects
 * reservations tagged team=ml; the cloud holds `reservations`. */
export function reservationBed(
  capacityTypes: string[],
  reservations: CapacityReservation[],
  types = ['m5.large', 'c5.large'],
): Testbed {
  const requirements: NodeSelectorRequirementWithMinValues[] = [
    { key: LabelOS, operator: 'In', values: ['linux'] },
    { key: LabelArch, operator: 'In', values: ['amd64'] },
    { key: LabelInstanceType, operator: 'In', values: types },
    { key: LabelZone, operator: 'In', values: ['us-east-1a'] },
    { key: LabelCapacityType, operator: 'In', values: capacityTypes },
  ];
  const nodeClass = testNodeClass();
  nodeClass.spec.capacityReservationSelectorTerms = [{ tags: { team: 'ml' } }];
  const t = createTestbed({ nodePool: testNodePool('default', requirements), nodeClass });
  t.cloud.addReservations(reservations.map((r) => ({ ...r, tags: { team: 'ml', ...(r.tags ?? {}) } })));
  return t;
}
