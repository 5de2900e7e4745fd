// A deleted NodePool takes its nodes with it (docs/disruption.md, Deleting a NodePool). Karpenter's NodeClaims carry
// an owner reference to their NodePool, so Kubernetes' garbage collector deletes them once the pool is gone (or, in a
// foreground deletion, while the pool waits with its deletionTimestamp), and each drains as any deleted NodeClaim
// does: PDBs and do-not-disrupt respected until the terminationGracePeriod. Karpless's claims live in its store, so
// the Sweep tick does the collector's part: a claim whose pool no longer exists in the cluster, or is being deleted,
// starts its termination. Pools left to Karpenter during a cut-over still exist, so their absence from the owned
// pools never triggers this.
import type { NodeClaim } from '../api/nodeclaim';
import type { InstanceDeps } from './deps';
import { startTermination } from './termination';

export interface NodePoolDeletionResult {
  /** Claims whose termination this run started. */
  deleted: string[];
}

const NOT_DRAINING: NodeClaim['state'][] = ['Pending', 'Launched', 'Registered', 'Initialized'];

export async function terminateClaimsOfDeletedPools(deps: InstanceDeps): Promise<NodePoolDeletionResult> {
  const result: NodePoolDeletionResult = { deleted: [] };
  const [pools, claims] = await Promise.all([deps.kube.listNodePools(), deps.store.list({ states: NOT_DRAINING })]);
  const present = new Map(pools.map((p) => [p.metadata.name, p]));
  for (const claim of claims) {
    const pool = present.get(claim.nodePool);
    if (pool && !pool.metadata.deletionTimestamp) continue;
    const detail = pool ? `NodePool ${claim.nodePool} is being deleted` : `NodePool ${claim.nodePool} was deleted`;
    const started = await startTermination(deps, claim, { cause: 'Deleted', detail });
    if (started?.state !== 'Draining') continue;
    result.deleted.push(claim.name);
    deps.log.info('deleting nodeclaim of a deleted nodepool', { nodeClaim: claim.name, nodePool: claim.nodePool });
  }
  return result;
}
