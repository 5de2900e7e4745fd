// What "leaks nothing" means, checked against the pipeline's end state: every running instance belongs to exactly
// one live claim, no claim owns two instances, no live claim lacks its instance, and no pod is left pending.
import type { NodeClaim } from '../shared/api/nodeclaim';
import type { CloudInstance, NodeClaimStore } from '../shared/ports';
import type { SimCloud, SimCluster } from '../shared/sim';

export interface PipelineAudit {
  instances: number;
  liveClaims: number;
  /** Running instances no live claim records. */
  orphanInstances: string[];
  /** Claims with more than one running instance tagged with their name. */
  duplicateLaunches: string[];
  /** Launched-or-later claims whose instance is not running. */
  claimsWithoutInstance: string[];
  pendingPods: string[];
  boundPods: number;
  nodes: number;
}

const LIVE: readonly NodeClaim['state'][] = ['Pending', 'Launched', 'Registered', 'Initialized', 'Draining'];

export async function auditPipeline(sim: SimCluster, cloud: SimCloud, store: NodeClaimStore): Promise<PipelineAudit> {
  const [instances, claims, pending, bound, nodes] = await Promise.all([
    cloud.list(),
    store.list({ states: LIVE }),
    sim.listPendingPods(),
    sim.listPods(),
    sim.listNodes(),
  ]);
  const recorded = new Set(claims.flatMap((c) => (c.instanceId ? [c.instanceId] : [])));
  const byClaim = new Map<string, CloudInstance[]>();
  for (const i of instances) {
    const claim = i.tags['karpenter.sh/nodeclaim'] ?? '';
    byClaim.set(claim, [...(byClaim.get(claim) ?? []), i]);
  }
  const running = new Set(instances.map((i) => i.instanceId));
  return {
    instances: instances.length,
    liveClaims: claims.length,
    orphanInstances: instances.filter((i) => !recorded.has(i.instanceId)).map((i) => i.instanceId),
    duplicateLaunches: [...byClaim].filter(([, list]) => list.length > 1).map(([name]) => name),
    claimsWithoutInstance: claims
      .filter((c) => c.state !== 'Pending' && c.state !== 'Draining' && (!c.instanceId || !running.has(c.instanceId)))
      .map((c) => c.name),
    pendingPods: pending.map((p) => `${p.metadata.namespace ?? 'default'}/${p.metadata.name}`),
    boundPods: bound.length,
    nodes: nodes.length,
  };
}
