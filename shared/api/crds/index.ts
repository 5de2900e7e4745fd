// Karpless's own CRDs for NodePool and EC2NodeClass, and their YAML for `karpless crds`.
import { stringify } from 'yaml';
import { ec2NodeClassCRD } from './ec2nodeclass';
import { nodePoolCRD } from './nodepool';
import type { CustomResourceDefinition } from './schema';

export type { CustomResourceDefinition, Schema, ValidationRule } from './schema';
export { ec2NodeClassCRD, nodePoolCRD };

export function karplessCRDs(): CustomResourceDefinition[] {
  return [nodePoolCRD(), ec2NodeClassCRD()];
}

/** Both CRDs as one multi-document YAML stream, ready for `kubectl apply -f -`. */
export function crdsYaml(): string {
  return karplessCRDs()
    .map((crd) => `---\n${stringify(crd, { lineWidth: 0 })}`)
    .join('');
}
