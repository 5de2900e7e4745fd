// The LP lower bound on what the current workload could cost, summed over NodePools: each pool's pods (by the node
// or claim they are on) on the instance types the pool allows, less the DaemonSets that run on every node. Pending
// pods not yet placed count toward the highest-weight NodePool. Capacity reservations count at their whole size
// (the pods in them are part of the workload), near free. Cached on the pods per pool and the reservations, since
// the bound only changes when they do.
import type { EC2NodeClass, NodePool } from '../../api/karpenter';
import type { DaemonSet, Pod } from '../../api/kube';
import { LabelNodePool } from '../../api/labels';
import type { NodeClaim } from '../../api/nodeclaim';
import { isDaemonSetPod, isTerminal } from '../../api/pods';
import { addInto, type ResourceList } from '../../api/resources';
import type { InstanceType } from '../../catalog/types';
import { podRequests } from '../../scheduling';
import { typesAllowedBy } from '../pool-types';

export interface LowerBoundInputs {
  pods: Pod[];
  nodeLabels: Map<string, Record<string, string>>;
  claims: NodeClaim[];
  nodePools: NodePool[];
  nodeClasses: EC2NodeClass[];
  daemonSets: DaemonSet[];
}

export class LowerBoundTracker {
  private cacheKey = '';
  private cached = 0;

  constructor(
    private readonly bound: (pods: Pod[], types: InstanceType[], overhead: ResourceList) => number | Promise<number>,
    private readonly typesFor: (nodeClass: EC2NodeClass) => InstanceType[],
  ) {}

  async compute(inputs: LowerBoundInputs): Promise<number> {
    const pools = [...inputs.nodePools].sort((a, b) => (b.spec.weight ?? 0) - (a.spec.weight ?? 0));
    const fallback = pools[0]?.metadata.name;
    const nominated = new Map<string, string>();
    for (const c of inputs.claims) {
      if (c.state === 'Terminated' || c.state === 'Failed') continue;
      for (const r of c.nominatedPods) nominated.set(`${r.namespace}/${r.name}`, c.nodePool);
    }
    const byPool = new Map<string, Pod[]>();
    for (const pod of inputs.pods) {
      if (isDaemonSetPod(pod) || isTerminal(pod)) continue;
      const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
      const pool =
        (pod.spec.nodeName ? inputs.nodeLabels.get(pod.spec.nodeName)?.[LabelNodePool] : undefined) ??
        nominated.get(key) ??
        fallback;
      if (!pool) continue;
      const list = byPool.get(pool);
      if (list) list.push(pod);
      else byPool.set(pool, [pod]);
    }
    // Each pool's class types as served (reserved offerings included); filtered by the pool only on a cache miss.
    const typesByPool = new Map<string, { pool: NodePool; types: InstanceType[] }>();
    for (const poolName of byPool.keys()) {
      const pool = pools.find((p) => p.metadata.name === poolName);
      const nodeClass = inputs.nodeClasses.find((c) => c.metadata.name === pool?.spec.template.spec.nodeClassRef.name);
      if (!pool || !nodeClass) continue;
      typesByPool.set(poolName, { pool, types: this.typesFor(nodeClass) });
    }
    const key = [...byPool.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(
        ([pool, pods]) =>
          `${pool}:${pods
            .map((p) => `${p.metadata.namespace}/${p.metadata.name}`)
            .sort()
            .join(',')}`,
      )
      .join('|')
      .concat(`|${reservedKey(typesByPool)}`);
    if (key === this.cacheKey) return this.cached;
    const overhead = everywhereOverhead(inputs.daemonSets);
    let total = 0;
    for (const [poolName, pods] of byPool) {
      const served = typesByPool.get(poolName);
      if (!served) continue;
      const types = typesAllowedBy(served.pool.spec.template.spec.requirements, served.types);
      const lb = await this.bound(pods, types, overhead);
      if (Number.isFinite(lb)) total += lb;
    }
    this.cacheKey = key;
    this.cached = total;
    return total;
  }
}

/** The reserved offerings the pools may use, with their room: a reservation added or expiring changes the bound. */
function reservedKey(typesByPool: Map<string, { types: InstanceType[] }>): string {
  const parts: string[] = [];
  for (const [pool, { types }] of typesByPool)
    for (const t of types)
      for (const o of t.offerings)
        if (o.reservation) parts.push(`${pool}/${o.reservation.id}:${o.reservation.capacity}:${o.available}`);
  return parts.sort().join(',');
}

/** Requests of the DaemonSets with no node selection: they run on every node, whatever its type. */
function everywhereOverhead(daemonSets: DaemonSet[]): ResourceList {
  const out: ResourceList = {};
  for (const ds of daemonSets) {
    const spec = ds.spec.template.spec;
    if (spec.nodeSelector && Object.keys(spec.nodeSelector).length > 0) continue;
    if (spec.affinity?.nodeAffinity) continue;
    addInto(out, podRequests({ kind: 'Pod', metadata: { name: ds.metadata.name }, spec } as Pod));
  }
  return out;
}
