// Static NodePools (`spec.replicas`): the pool keeps exactly that many nodes whatever the pods need. Provisioning
// never plans pods onto new nodes of it, consolidation never removes its nodes, and scaling it bypasses disruption
// budgets (docs/disruption.md, "Static NodePools").
import type { NodePool } from './karpenter';

export const isStaticNodePool = (pool: Pick<NodePool, 'spec'> | undefined): boolean =>
  pool?.spec.replicas !== undefined && pool.spec.replicas !== null;

/** Karpenter's CRD rule on an update: a NodePool cannot switch between static and dynamic. The message is the CRD's. */
export function staticTransitionError(before: Pick<NodePool, 'spec'>, after: NodePool): string | undefined {
  if (isStaticNodePool(before) === isStaticNodePool(after)) return undefined;
  return `NodePool/${after.metadata.name}: spec: Cannot transition NodePool between static (replicas set) and dynamic (replicas unset) provisioning modes`;
}
