// Narrows an instance type's offerings to those a NodeClaim's requirements allow (zone, zone id and capacity type),
// so the simulated fleet only considers what the real CreateFleet request would carry.
import type { NodeSelectorRequirementWithMinValues } from '../api/karpenter';
import { LabelCapacityType, LabelZone, LabelZoneId } from '../api/labels';
import type { InstanceType, Offering } from '../catalog/types';

/** `value` undefined: the offering does not know it (a zone id outside the catalog's map); only In rejects that. */
function allows(requirements: NodeSelectorRequirementWithMinValues[], key: string, value: string | undefined): boolean {
  for (const r of requirements) {
    if (r.key !== key) continue;
    const values = r.values ?? [];
    if (r.operator === 'In' && (value === undefined || !values.includes(value))) return false;
    if (r.operator === 'NotIn' && value !== undefined && values.includes(value)) return false;
    if (r.operator === 'DoesNotExist' && value !== undefined) return false;
    if (r.operator === 'Exists' && value === undefined) return false;
  }
  return true;
}

export function offeringAllowed(requirements: NodeSelectorRequirementWithMinValues[], offering: Offering): boolean {
  return (
    allows(requirements, LabelZone, offering.zone) &&
    allows(requirements, LabelZoneId, offering.zoneId) &&
    allows(requirements, LabelCapacityType, offering.capacityType)
  );
}

export function restrictOfferings(
  types: InstanceType[],
  requirements: NodeSelectorRequirementWithMinValues[],
): InstanceType[] {
  return types.map((t) => ({ ...t, offerings: t.offerings.filter((o) => offeringAllowed(requirements, o)) }));
}
