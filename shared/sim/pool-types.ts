// The instance types and offerings a NodePool's requirements allow, judged on the types' well-known labels. Used to
// price the lower bound per NodePool, so a pool limited to on-demand GPUs is not bounded by spot CPU prices.
import type { NodeSelectorRequirementWithMinValues } from '../api/karpenter';
import { LabelCapacityType, LabelZone } from '../api/labels';
import { requirementAllows } from '../api/selector';
import type { InstanceType } from '../catalog/types';
import { offeringAllowed } from './offering-filter';

/** Types whose labels meet every requirement on a label they carry, with offerings cut to allowed zones and
 * capacity types; requirements on keys a type does not label (custom NodePool labels) do not exclude it. */
export function typesAllowedBy(
  requirements: NodeSelectorRequirementWithMinValues[],
  types: InstanceType[],
): InstanceType[] {
  const labelReqs = requirements.filter((r) => r.key !== LabelZone && r.key !== LabelCapacityType);
  const out: InstanceType[] = [];
  for (const t of types) {
    if (!labelReqs.every((r) => !(r.key in t.labels) || requirementAllows(r, t.labels[r.key]))) continue;
    const offerings = t.offerings.filter((o) => o.available && offeringAllowed(requirements, o));
    if (offerings.length > 0) out.push({ ...t, offerings });
  }
  return out;
}
