// Why a NodePool is left with no instance type to launch, in terms of its own requirements or DaemonSets, so that a
// pending pod's FailedScheduling names what to fix instead of only "no instance types".
import { LabelCapacityType, LabelZone, LabelZoneId } from '../api/labels';
import type { InstanceType, Offering } from '../catalog/types';
import { allowedOfferings, typeCompatible } from './instancetypes';
import { Requirements } from './requirements';

const OFFERING_KEYS: readonly [string, (o: Offering) => string | undefined][] = [
  [LabelZone, (o) => o.zone],
  [LabelCapacityType, (o) => o.capacityType],
  [LabelZoneId, (o) => o.zoneId],
];

/** `reserved` offerings exist only for capacity reservations the EC2NodeClass selects and that have room. */
const RESERVED_NOTE =
  '; reserved offerings come only from capacity reservations with room that the EC2NodeClass selects (capacityReservationSelectorTerms)';

/**
 * The first cause found, from the widest: the EC2NodeClass offers nothing; one offering requirement (zone, capacity
 * type, zone id) matches no available offering, with what is offered; one label requirement matches no instance type;
 * the requirements only together; DaemonSet overhead exceeds every type that is left. `fitsOverhead` says whether a
 * type's allocatable still holds the pool's DaemonSets.
 */
export function whyNoInstanceTypes(
  raw: readonly InstanceType[],
  reqs: Requirements,
  nodeClass: string,
  fitsOverhead: (it: InstanceType) => boolean,
): string {
  if (raw.length === 0) return `its EC2NodeClass ${nodeClass} offers no instance types`;
  const available = raw.flatMap((it) => it.offerings.filter((o) => o.available));
  if (available.length === 0) return 'every offering of its instance types was recently refused by EC2';
  for (const [key, offeredValue] of OFFERING_KEYS) {
    const r = reqs.get(key);
    if (!r) continue;
    const offered = [...new Set(available.map(offeredValue))].filter((v): v is string => v !== undefined).sort();
    if (offered.some((v) => r.has(v))) continue;
    const reserved = key === LabelCapacityType && r.has('reserved') ? RESERVED_NOTE : '';
    return `${key} ${r} matches no offering (offered: ${offered.join(', ')})${reserved}`;
  }
  const offeredTypes = raw.filter((it) => allowedOfferings(it.offerings, reqs).length > 0);
  if (offeredTypes.length === 0) return 'no instance type is offered in the allowed zones and capacity types together';
  const labelReqs = [...reqs.values()].filter((r) => !OFFERING_KEYS.some(([key]) => key === r.key));
  for (const r of labelReqs) {
    const alone = new Requirements().add(r);
    if (!offeredTypes.some((it) => typeCompatible({ it, offerings: it.offerings }, alone))) {
      return `no instance type has ${r.key} ${r}`;
    }
  }
  const compatible = offeredTypes.filter((it) => typeCompatible({ it, offerings: it.offerings }, reqs));
  if (compatible.length === 0)
    return `no instance type meets all of ${labelReqs.map((r) => `${r.key} ${r}`).join(', ')}`;
  if (!compatible.some(fitsOverhead)) {
    return `its DaemonSets request more than any of its ${compatible.length} instance types can hold`;
  }
  return 'no instance type is left';
}
