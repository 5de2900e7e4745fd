// Narrows an instance type's offerings to those a NodeClaim's requirements allow (zone and capacity type), so the
// simulated fleet only considers what the real CreateFleet request would carry.
import type { NodeSelectorRequirementWithMinValues } from '../api/karpenter';
import { LabelCapacityType, LabelZone } from '../api/labels';
import type { InstanceType, Offering } from '../catalog/types';

function allows(requirements: NodeSelectorRequirementWithMinValues[], key: string, value: string): boolean {
  for (const r of requirements) {
    if (r.key !== key) continue;
    const values = r.values ?? [];
    if (r.operator === 'In' && !values.includes(value)) return false;
    if (r.operator === 'NotIn' && values.includes(value)) return false;
    if (r.operator === 'DoesNotExist') return false;
  }
  return true;
}

export function offeringAllowed(requirements: NodeSelectorRequirementWithMinValues[], offering: Offering): boolean {
  return (
    allows(requirements, LabelZone, offering.zone) && allows(requirements, LabelCapacityType, offering.capacityType)
  );
}

export function restrictOfferings(
  types: InstanceType[],
  requirements: NodeSelectorRequirementWithMinValues[],
): InstanceType[] {
  return types.map((t) => ({ ...t, offerings: t.offerings.filter((o) => offeringAllowed(requirements, o)) }));
}
