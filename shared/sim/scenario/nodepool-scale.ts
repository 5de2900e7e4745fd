// The scenario's `scale: { kind: NodePool, name, replicas }` step: `kubectl scale nodepool NAME --replicas=N` on a
// static NodePool (Karpenter's NodePool CRD has a scale subresource on spec.replicas). The pool is updated through
// the API like any patch, and the forwarder's NodePoolChanged hint is delivered, so the provisioner adds or removes
// nodes at once: bypassing disruption budgets, waiting on PDBs (docs/disruption.md, "Static NodePools").
import type { NodePool } from '../../api/karpenter';
import type { SimCluster } from '../sim-cluster';

/** Sets a static NodePool's replicas; a missing pool or a dynamic one (no spec.replicas) is an error naming it. */
export async function scaleNodePool(cluster: SimCluster, name: string, replicas: number): Promise<NodePool> {
  const pool = (await cluster.listNodePools()).find((p) => p.metadata.name === name);
  if (!pool) throw new Error(`scale: NodePool ${name} not found`);
  if (pool.spec.replicas === undefined) {
    // Karpenter's CEL rule: a NodePool cannot switch between dynamic and static.
    throw new Error(
      `scale: NodePool ${name} is not static (it has no spec.replicas), and a NodePool cannot switch between dynamic and static`,
    );
  }
  const scaled: NodePool = { ...pool, spec: { ...pool.spec, replicas } };
  cluster.upsert(scaled);
  return scaled;
}
