// Which NodePools are Karpless's to act on, by the provider their nodeClassRef names. Karpenter acts only on NodePools
// whose nodeClassRef is a node class of its own cloud provider and leaves the rest to their owner, so a cluster can run
// EKS Auto Mode's pools (nodeClassRef group eks.amazonaws.com, kind NodeClass) beside Karpless's (docs/deploy.md,
// "Other providers' NodePools").
import { NODE_CLASS_GROUP, NODE_CLASS_KIND } from './defaults';
import type { NodePool } from './karpenter';

interface NodeClassRefLike {
  group?: string | undefined;
  kind?: string | undefined;
}

/** `group/kind` of a NodePool's nodeClassRef when it belongs to another provider; undefined when it is an EC2NodeClass
 * (an absent group or kind defaults to Karpless's). */
export function otherProviderNodeClass(ref: NodeClassRefLike): string | undefined {
  const group = ref.group ?? NODE_CLASS_GROUP;
  const kind = ref.kind ?? NODE_CLASS_KIND;
  return group === NODE_CLASS_GROUP ? undefined : `${group}/${kind}`;
}

/** Whether Karpless provisions, disrupts and publishes status for this NodePool. */
export function isProviderNodePool(pool: NodePool): boolean {
  return otherProviderNodeClass(pool.spec.template.spec.nodeClassRef) === undefined;
}

/** The one line that says a NodePool is left to its owner. */
export function leftToOwnerMessage(pool: string, nodeClass: string): string {
  return `NodePool ${pool} uses ${nodeClass}, another provider's node class: left to its owner`;
}
