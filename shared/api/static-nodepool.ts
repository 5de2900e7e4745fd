// Static NodePools (`spec.replicas`): the pool keeps exactly that many nodes whatever the pods need. Provisioning
// never plans pods onto new nodes of it, consolidation never removes its nodes, and scaling it bypasses disruption
// budgets (docs/disruption.md, "Static NodePools").
import type { NodePool } from './karpenter';

export const isStaticNodePool = (pool: Pick<NodePool, 'spec'> | undefined): boolean =>
  pool?.spec.replicas !== undefined && pool.spec.replicas !== null;
