// Karpless's own CRDs for NodePool, EC2NodeClass, NodeOverlay and NodeClaim, and their YAML for `karpless crds`.
import { stringify } from 'yaml';
import { ec2NodeClassCRD } from './ec2nodeclass';
import { nodeClaimCRD } from './nodeclaim';
import { nodeOverlayCRD } from './nodeoverlay';
import { nodePoolCRD } from './nodepool';
import type { CustomResourceDefinition } from './schema';

export type { CustomResourceDefinition, Schema, ValidationRule } from './schema';
export { ec2NodeClassCRD, nodeClaimCRD, nodeOverlayCRD, nodePoolCRD };

export function karplessCRDs(): CustomResourceDefinition[] {
  return [nodePoolCRD(), ec2NodeClassCRD(), nodeOverlayCRD(), nodeClaimCRD()];
}

/** Every CRD as one multi-document YAML stream, ready for `kubectl apply -f -`. */
export function crdsYaml(): string {
  return karplessCRDs()
    .map((crd) => `---\n${stringify(crd, { lineWidth: 0 })}`)
    .join('');
}
