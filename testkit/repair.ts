// A control-plane test bed for node repair: n initialized nodes (one pod each) in the bed's NodePool with the
// NodeRepair setting on, and a way to set a Node condition as the kubelet or a node monitoring agent would.
import type { NodePool } from '../shared/api/karpenter';
import type { ConditionStatus, Node } from '../shared/api/kube';
import type { NodeClaim } from '../shared/api/nodeclaim';
import type { RepairPolicy } from '../shared/api/repair-policies';
import { provision } from '../shared/controllers/provision';
import { DISRUPTION_SETTINGS_DEFAULTS } from '../shared/disruption/settings';
import type { Clock } from '../shared/ports';
import type { SimCluster } from '../shared/sim';
import { createTestbed, makePod, type PodOptions, type Testbed, testNodePool } from './bed';

export const MINUTE = 60_000;

/** The fake cloud provider's one policy in Karpenter's health suite: BadNode=False, tolerated for 30 minutes. */
export const BAD_NODE_POLICY: readonly RepairPolicy[] = [
  { conditionType: 'BadNode', conditionStatus: 'False', tolerationMs: 30 * MINUTE },
];

export interface RepairBed {
  t: Testbed;
  /** The live claims, one per node, in node-name order. */
  claims: NodeClaim[];
  nodes: Node[];
}

export interface RepairBedOptions {
  nodePool?: NodePool;
  nodeRepair?: boolean;
  pod?: PodOptions;
}

/** `count` initialized nodes, each holding one 3-cpu pod (only an xlarge fits one, so no two pods share a node). */
export async function repairBed(count: number, o: RepairBedOptions = {}): Promise<RepairBed> {
  const t = createTestbed({
    nodePool: o.nodePool ?? testNodePool(),
    config: { disruption: { ...DISRUPTION_SETTINGS_DEFAULTS, nodeRepair: o.nodeRepair ?? true } },
  });
  for (let i = 0; i < count; i++) t.cluster.addPod(makePod(`web-${i}`, { cpu: '3', ...o.pod }));
  await provision(t.deps);
  await t.settle(2 * MINUTE);
  const nodes = (await t.cluster.listNodes()).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  const claims = await t.store.list({ states: ['Initialized'] });
  const byNode = new Map(claims.map((c) => [c.nodeName, c]));
  if (nodes.length !== count || claims.length !== count) {
    throw new Error(`repairBed: wanted ${count} initialized nodes, got ${nodes.length} nodes, ${claims.length} claims`);
  }
  return { t, nodes, claims: nodes.map((n) => byNode.get(n.metadata.name) as NodeClaim) };
}

/** Sets (or replaces) one condition on a Node of a test bed or a local pipeline (`sim`); `since` is its
 * lastTransitionTime (epoch ms), now by default. */
export function setNodeCondition(
  world: { cluster: SimCluster; clock: Clock } | { sim: SimCluster; clock: Clock },
  node: string,
  type: string,
  status: ConditionStatus,
  since = world.clock.now(),
): void {
  const cluster = 'sim' in world ? world.sim : world.cluster;
  cluster.updateNode(node, (n) => ({
    ...n,
    status: {
      ...n.status,
      conditions: [
        ...(n.status?.conditions ?? []).filter((c) => c.type !== type),
        { type, status, lastTransitionTime: new Date(since).toISOString() },
      ],
    },
  }));
}
