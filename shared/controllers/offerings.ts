// Offerings as the launch path sees them: the store's unavailable cache applied to the resolved instance types, and
// a claim's requirements narrowing each type to the offerings it may launch into.
import type { NodeSelectorRequirementWithMinValues } from '../api/karpenter';
import { LabelCapacityReservationId, LabelCapacityType, LabelZone, LabelZoneId } from '../api/labels';
import type { NodeClaim } from '../api/nodeclaim';
import { isRefused, unavailableKey } from '../catalog/offerings';
import type { InstanceType, UnavailableOffering } from '../catalog/types';

/** Marks every offering cached as unavailable (a reserved one by its reservation); the types themselves are copied,
 * never mutated. */
export function applyUnavailable(types: InstanceType[], unavailable: UnavailableOffering[]): InstanceType[] {
  if (unavailable.length === 0) return types;
  const refused = new Set(unavailable.map(unavailableKey));
  return types.map((t) => {
    if (!t.offerings.some((o) => isRefused(refused, t.name, o))) return t;
    return {
      ...t,
      offerings: t.offerings.map((o) => (isRefused(refused, t.name, o) ? { ...o, available: false } : o)),
    };
  });
}

/** Whether the requirements admit `value` for `key`; a key they do not mention is unconstrained. */
export function admits(requirements: NodeSelectorRequirementWithMinValues[], key: string, value: string): boolean {
  for (const r of requirements) {
    if (r.key !== key) continue;
    const values = r.values ?? [];
    switch (r.operator) {
      case 'In':
        if (!values.includes(value)) return false;
        break;
      case 'NotIn':
        if (values.includes(value)) return false;
        break;
      case 'DoesNotExist':
        return false;
      case 'Exists':
        break;
      default: {
        const n = Number(value);
        const bound = Number(values[0]);
        if (!Number.isFinite(n) || !Number.isFinite(bound)) return false;
        if (r.operator === 'Gt' && !(n > bound)) return false;
        if (r.operator === 'Lt' && !(n < bound)) return false;
        if (r.operator === 'Gte' && !(n >= bound)) return false;
        if (r.operator === 'Lte' && !(n <= bound)) return false;
      }
    }
  }
  return true;
}

/** A zone-id requirement admits an offering whose zone id is unknown only when it names no ids (NotIn, Exists). */
function admitsZoneId(requirements: NodeSelectorRequirementWithMinValues[], zoneId: string | undefined): boolean {
  if (zoneId !== undefined) return admits(requirements, LabelZoneId, zoneId);
  return !requirements.some((r) => r.key === LabelZoneId && r.operator === 'In');
}

/** Per resolved-types array (never mutated: applyUnavailable copies), its types by name and each type cut to the
 * offerings a set of launch requirements admits, so claims of the same NodePool share the work. */
const launchCuts = new WeakMap<
  InstanceType[],
  { byName: Map<string, InstanceType>; cuts: Map<string, InstanceType | undefined> }
>();

/** The requirements launchOptions reads, as a key: claims with the same ones get the same cut of a type. */
const LAUNCH_KEYS: ReadonlySet<string> = new Set([
  LabelZone,
  LabelZoneId,
  LabelCapacityType,
  LabelCapacityReservationId,
]);

/** The claim's instance-type options in its order (cheapest first), each cut to the available offerings its zone,
 * zone-id and capacity-type requirements admit; types left with no offering are dropped. */
export function launchOptions(claim: NodeClaim, resolved: InstanceType[]): InstanceType[] {
  let cache = launchCuts.get(resolved);
  if (!cache) {
    cache = { byName: new Map(resolved.map((t) => [t.name, t])), cuts: new Map() };
    launchCuts.set(resolved, cache);
  }
  const requirementsKey = JSON.stringify(claim.requirements.filter((r) => LAUNCH_KEYS.has(r.key)));
  const out: InstanceType[] = [];
  for (const name of claim.instanceTypeOptions) {
    const key = `${requirementsKey}\n${name}`;
    let cut = cache.cuts.get(key);
    if (cut === undefined && !cache.cuts.has(key)) {
      cut = cutOfferings(claim.requirements, cache.byName.get(name));
      cache.cuts.set(key, cut);
    }
    if (cut) out.push(cut);
  }
  return out;
}

function cutOfferings(
  requirements: NodeSelectorRequirementWithMinValues[],
  type: InstanceType | undefined,
): InstanceType | undefined {
  if (!type) return undefined;
  const offerings = type.offerings.filter(
    (o) =>
      o.available &&
      admits(requirements, LabelZone, o.zone) &&
      admitsZoneId(requirements, o.zoneId) &&
      admits(requirements, LabelCapacityType, o.capacityType) &&
      (!o.reservation || admits(requirements, LabelCapacityReservationId, o.reservation.id)),
  );
  return offerings.length > 0 ? { ...type, offerings } : undefined;
}
