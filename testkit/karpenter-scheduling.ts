// Builders for the translated Karpenter scheduling suite (test/karpenter/scheduling): spread and affinity terms as
// Karpenter's tests write them, and the per-domain counts its ExpectSkew asserts.
import type { Pod, PodAffinityTerm, TopologySpreadConstraint } from '../shared/api/kube';
import type { InstanceType } from '../shared/catalog/types';
import { lowerBound, solve } from '../shared/scheduling';
import type { ClusterNode, SchedulingResult } from '../shared/scheduling/types';
import type { SimulationEngine } from '../shared/sim/simulation';
import { ec2NodeClass, input, nodePool } from './builders';
import { fixtureInstanceTypes } from './instance-types';

export const Zone = 'topology.kubernetes.io/zone';
export const ZoneId = 'topology.k8s.aws/zone-id';
export const Hostname = 'kubernetes.io/hostname';
export const CapacityType = 'karpenter.sh/capacity-type';
export const Arch = 'kubernetes.io/arch';
export const InstanceTypeLabel = 'node.kubernetes.io/instance-type';
export const Family = 'karpenter.k8s.aws/instance-family';
export const Size = 'karpenter.k8s.aws/instance-size';
export const Category = 'karpenter.k8s.aws/instance-category';

/** The zone ids the fixture types' zones carry (as one account maps them). */
export const ZONE_IDS: Record<string, string> = {
  'us-east-1a': 'use1-az1',
  'us-east-1b': 'use1-az2',
  'us-east-1c': 'use1-az3',
};

export const labels = { app: 'test' };

export function spread(topologyKey: string, o: Partial<TopologySpreadConstraint> = {}): TopologySpreadConstraint {
  return {
    topologyKey,
    maxSkew: 1,
    whenUnsatisfiable: 'DoNotSchedule',
    labelSelector: { matchLabels: labels },
    ...o,
  };
}

export function affinityTerm(topologyKey: string, matchLabels: Record<string, string> = labels): PodAffinityTerm {
  return { topologyKey, labelSelector: { matchLabels } };
}

/** Copies of the types whose offerings carry the zone ids of ZONE_IDS. */
export function withZoneIds(types: InstanceType[]): InstanceType[] {
  return types.map((t) => ({
    ...t,
    offerings: t.offerings.map((o) => ({ ...o, ...(ZONE_IDS[o.zone] ? { zoneId: ZONE_IDS[o.zone] } : {}) })),
  }));
}

/** Pods per domain of `key` over the planned claims and existing nodes, counting only pods with these labels,
 * sorted descending (Karpenter's ExpectSkew, as a multiset). */
export function skew(r: SchedulingResult, key: string, match: Record<string, string> = labels): number[] {
  const counts = new Map<string, number>();
  const matches = (l: Record<string, string> | undefined) => Object.entries(match).every(([k, v]) => l?.[k] === v);
  for (const c of r.nodeClaims) {
    const d = key === Hostname ? c.name : c.labels[key];
    const n = c.pods.filter((p) => matches(p.metadata.labels)).length;
    if (d !== undefined && n > 0) counts.set(d, (counts.get(d) ?? 0) + n);
  }
  return [...counts.values()].sort((a, b) => b - a);
}

/** Karpenter's ExpectSkew over the whole cluster: `skew`'s planned pods plus the pods bound to the existing nodes
 * and the ones the plan put there, in the default namespace, leaving out what topology ignores (terminal and
 * terminating pods) and nodes without the key. */
export function clusterSkew(
  r: SchedulingResult,
  existing: readonly ClusterNode[],
  key: string,
  match: Record<string, string> = labels,
): number[] {
  const counts = new Map<string, number>();
  const add = (d: string | undefined, n: number) => {
    if (d !== undefined && n > 0) counts.set(d, (counts.get(d) ?? 0) + n);
  };
  const counted = (p: Pod) =>
    (p.metadata.namespace ?? 'default') === 'default' &&
    !p.metadata.deletionTimestamp &&
    p.status?.phase !== 'Failed' &&
    p.status?.phase !== 'Succeeded' &&
    Object.entries(match).every(([k, v]) => p.metadata.labels?.[k] === v);
  for (const c of r.nodeClaims) add(key === Hostname ? c.name : c.labels[key], c.pods.filter(counted).length);
  for (const n of existing) {
    const placed = r.existingNodes.find((e) => e.name === n.name)?.pods ?? [];
    add(key === Hostname ? n.name : n.labels[key], [...n.pods, ...placed].filter(counted).length);
  }
  return [...counts.values()].sort((a, b) => b - a);
}

/** Karpenter's successive ExpectProvisioned calls: each batch is solved with the nodes of the earlier batches as
 * existing nodes (claims become nodes of their cheapest offering, pods bound). Returns the nodes and how many pods
 * no batch placed. */
export function provisionRounds(
  batches: Pod[][],
  o: Omit<Parameters<typeof input>[0], 'pods' | 'existingNodes'> = {},
): { nodes: ClusterNode[]; unschedulable: number } {
  let nodes: ClusterNode[] = [];
  let unschedulable = 0;
  batches.forEach((batch, round) => {
    const r = solve(
      input({ ...o, pods: batch, existingNodes: nodes, options: { nameNodeClaim: (p, i) => `${p}-${round}-${i}` } }),
    );
    unschedulable += r.unschedulable.length;
    const bind = (p: Pod, nodeName: string): Pod => ({ ...p, spec: { ...p.spec, nodeName } });
    nodes = nodes.map((n) => {
      const placed = r.existingNodes.find((e) => e.name === n.name)?.pods ?? [];
      return { ...n, pods: [...n.pods, ...placed.map((p) => bind(p, n.name))] };
    });
    for (const c of r.nodeClaims) {
      const type = c.instanceTypeOptions.find((t) => t.name === c.cheapest.instanceType) as InstanceType;
      nodes.push({
        name: c.name,
        labels: {
          ...type.labels,
          ...c.labels,
          [Hostname]: c.name,
          [Zone]: c.cheapest.zone,
          [CapacityType]: c.cheapest.capacityType,
          [InstanceTypeLabel]: type.name,
        },
        taints: c.taints,
        allocatable: { ...type.allocatable },
        pods: c.pods.map((p) => bind(p, c.name)),
        inflight: false,
        instanceType: type.name,
      });
    }
  });
  return { nodes, unschedulable };
}

/** Karpenter's ExpectSkew over nodes alone (clusterSkew with no plan). */
export const nodeSkew = (
  nodes: readonly ClusterNode[],
  key: string,
  match: Record<string, string> = labels,
): number[] =>
  clusterSkew(
    {
      nodeClaims: [],
      existingNodes: [],
      unschedulable: [],
      warnings: [],
      stats: { pods: 0, durationMs: 0, relaxations: 0, timedOut: false },
    },
    nodes,
    key,
    match,
  );

/** A simulation engine over the fixture types (zone ids included), for translated cases run through `simulate`. */
export function fixtureEngine(): SimulationEngine {
  const types = withZoneIds(fixtureInstanceTypes());
  return {
    solve,
    lowerBound,
    instanceTypesFor: () => types,
    defaultNodePool: () => ({ nodePool: nodePool(), nodeClass: ec2NodeClass() }),
  };
}
