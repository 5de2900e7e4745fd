// The LP lower bound on what the current workload could cost, summed over NodePools: each pool's pods (by the node
// or claim they are on) on the instance types the pool allows, less the DaemonSets that run on every node. Pending
// pods not yet placed count toward the highest-weight NodePool. Cached on the pods per pool, since the bound only
// changes when the workload does.
import type { EC2NodeClass, NodePool } from '../../api/karpenter';
import type { DaemonSet, Pod } from '../../api/kube';
import { LabelNodePool } from '../../api/labels';
import type { NodeClaim } from '../../api/nodeclaim';
import { isDaemonSetPod, isTerminal } from '../../api/pods';
import { addInto, type ResourceList } from '../../api/resources';
import type { InstanceType } from '../../catalog/types';
import { podRequests } from '../../scheduling/resources';
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
    const key = [...byPool.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(
        ([pool, pods]) =>
          `${pool}:${pods
            .map((p) => `${p.metadata.namespace}/${p.metadata.name}`)
            .sort()
            .join(',')}`,
      )
      .join('|');
    if (key === this.cacheKey) return this.cached;
    const overhead = everywhereOverhead(inputs.daemonSets);
    let total = 0;
    for (const [poolName, pods] of byPool) {
      const pool = pools.find((p) => p.metadata.name === poolName);
      const nodeClass = inputs.nodeClasses.find((c) => c.metadata.name === pool?.spec.template.spec.nodeClassRef.name);
      if (!pool || !nodeClass) continue;
      const types = typesAllowedBy(pool.spec.template.spec.requirements, this.typesFor(nodeClass));
      const lb = await this.bound(pods, types, overhead);
      if (Number.isFinite(lb)) total += lb;
    }
    this.cacheKey = key;
    this.cached = total;
    return total;
  }
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
