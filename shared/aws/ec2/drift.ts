// Drift on what the account resolves now versus what the instance runs: AMI, subnet and security groups. (Drift of
// the EC2NodeClass spec itself is a hash comparison the engine does.)

import { amiDrift } from '../../catalog/drift-ami';
import type { ImageNeeds } from '../../catalog/images';
import type { CloudInstance } from '../../ports';
import type { ResolvedNodeClass } from './nodeclass';

/** `type` is what decides the instance type's image (undefined when the type is not known any more). */
export function driftReason(
  instance: CloudInstance,
  resolved: ResolvedNodeClass,
  type: ImageNeeds | undefined,
): string | undefined {
  if (resolved.ready.status !== 'True') return undefined; // never replace nodes because discovery is broken
  const ami = amiDrift({
    imageId: instance.imageId,
    instanceType: instance.instanceType,
    info: type,
    amis: resolved.amis,
  });
  if (ami) return ami;
  if (instance.subnetId && !resolved.subnets.some((s) => s.id === instance.subnetId)) {
    return `SubnetDrift: instance is in ${instance.subnetId}, which no subnetSelectorTerm selects any more`;
  }
  if (instance.securityGroupIds) {
    const want = resolved.securityGroups.map((g) => g.id).sort();
    const have = [...instance.securityGroupIds].sort();
    if (want.join(',') !== have.join(',')) {
      return `SecurityGroupDrift: instance has ${have.join(', ')}, EC2NodeClass resolves to ${want.join(', ')}`;
    }
  }
  return undefined;
}
