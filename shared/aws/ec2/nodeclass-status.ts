// A resolved EC2NodeClass as its status shows it, in Karpenter v1's shape: the subnets, security groups, AMIs (each
// with the requirements of the instance types it boots) and instance profile, and whether it can launch.

import { LabelArch, LabelInstanceAcceleratorManufacturer, LabelInstanceGPUManufacturer } from '../../api/labels';
import type { NodeClassRequirement } from '../../api/status';
import type { NodeClassResolution } from '../../ports';
import type { ResolvedAmi } from './amis';
import type { ResolvedNodeClass } from './nodeclass';

export function nodeClassResolution(r: ResolvedNodeClass): NodeClassResolution {
  return {
    subnets: r.subnets.map((s) => ({ id: s.id, zone: s.zone, ...(s.zoneId ? { zoneID: s.zoneId } : {}) })),
    securityGroups: r.securityGroups.map((g) => ({ id: g.id, ...(g.name ? { name: g.name } : {}) })),
    amis: r.amis.map((a) => ({ id: a.id, ...(a.name ? { name: a.name } : {}), requirements: amiRequirements(a) })),
    ...(r.instanceProfile ? { instanceProfile: r.instanceProfile } : {}),
    ready: { status: r.ready.status, reason: r.ready.reason, message: r.ready.message },
  };
}

/** The instance types an image boots (amiFor in amis.ts): its architecture, and for an alias image its variant. An
 * image chosen by id, name or tags serves every type of its architecture. */
function amiRequirements(ami: ResolvedAmi): NodeClassRequirement[] {
  const arch: NodeClassRequirement = { key: LabelArch, operator: 'In', values: [ami.arch] };
  // As variantFor decides: an NVIDIA GPU takes the nvidia image, an AWS accelerator the neuron one, the rest standard.
  switch (ami.variant) {
    case 'nvidia':
      return [arch, { key: LabelInstanceGPUManufacturer, operator: 'In', values: ['nvidia'] }];
    case 'neuron':
      return [arch, { key: LabelInstanceAcceleratorManufacturer, operator: 'In', values: ['aws'] }];
    case 'standard':
      return [
        arch,
        { key: LabelInstanceGPUManufacturer, operator: 'NotIn', values: ['nvidia'] },
        { key: LabelInstanceAcceleratorManufacturer, operator: 'NotIn', values: ['aws'] },
      ];
    default:
      return [arch];
  }
}
