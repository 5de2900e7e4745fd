// Builders for disruption tests and the timing script: nodes with their claims on the scheduling fixture catalog,
// bound pods, NodePools with disruption settings, and a DisruptionInput around them.
import { claimHashes } from '../shared/api/hash';
import type { Budget, NodePool, NodeSelectorRequirementWithMinValues } from '../shared/api/karpenter';
import type { Pod, PodDisruptionBudget } from '../shared/api/kube';
import type { NodeClaim } from '../shared/api/nodeclaim';
import type { CapacityType, InstanceType } from '../shared/catalog/types';
import type { DisruptionInput, DisruptionNode } from '../shared/disruption/types';
import { nodePool as basePool, ec2NodeClass, nodeClaim, ownedBy, pod } from './builders';
import { fixtureInstanceTypes } from './instance-types';

export const T0 = Date.parse('2026-01-05T12:00:00Z');
export const MIN = 60_000;
export const HOUR = 3_600_000;
export const TYPES: InstanceType[] = fixtureInstanceTypes();

export const nodeClass = ec2NodeClass({ role: 'KarpenterNodeRole' }, 'default', 'demo');

export interface PoolOptions {
  name?: string;
  policy?: NodePool['spec']['disruption']['consolidationPolicy'];
  consolidateAfter?: string;
  budgets?: Budget[];
  expireAfter?: string;
  capacityTypes?: CapacityType[];
  /** Requirements after the capacity-type one (minValues cases). */
  requirements?: NodeSelectorRequirementWithMinValues[];
  labels?: Record<string, string>;
}

export function pool(o: PoolOptions = {}): NodePool {
  const p = basePool({
    name: o.name ?? 'default',
    requirements: [
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: o.capacityTypes ?? ['on-demand'] },
      ...(o.requirements ?? []),
    ],
    ...(o.labels ? { labels: o.labels } : {}),
  });
  p.spec.disruption = {
    consolidationPolicy: o.policy ?? 'WhenEmptyOrUnderutilized',
    consolidateAfter: o.consolidateAfter ?? '0s',
    budgets: o.budgets ?? [{ nodes: '100%' }],
  };
  p.spec.template.spec.expireAfter = o.expireAfter ?? 'Never';
  return p;
}

let podSeq = 0;

/** A running ReplicaSet pod bound to `nodeName` (label `app: web` unless given). */
export function boundPod(
  nodeName: string,
  cpu: string,
  memory = '512Mi',
  extra: { labels?: Record<string, string>; annotations?: Record<string, string>; name?: string } = {},
): Pod {
  podSeq++;
  return pod({
    name: extra.name ?? `p${podSeq}`,
    uid: `uid-p${podSeq}`,
    labels: extra.labels ?? { app: 'web' },
    ...(extra.annotations ? { annotations: extra.annotations } : {}),
    ownerReferences: ownedBy('ReplicaSet', 'web-1', { uid: 'rs' }),
    nodeName,
    cpu,
    memory,
    status: { phase: 'Running' },
  });
}

export interface NodeOptions {
  type?: string;
  /** An instance type from another catalog (the timing script uses the real one); overrides `type`. */
  instanceType?: InstanceType;
  pool?: NodePool;
  capacityType?: CapacityType;
  zone?: string;
  /** Pods as cpu requests ("500m"), bound to this node. */
  cpus?: string[];
  pods?: Pod[];
  createdAt?: number;
  lastPodEventAt?: number;
  annotations?: Record<string, string>;
  state?: NodeClaim['state'];
  markedForDeletion?: boolean;
  nominatedAt?: number;
  kubeletVersion?: string;
}

export function priceOf(type: string | InstanceType, capacityType: CapacityType, zone = 'us-east-1a'): number {
  const t = typeof type === 'string' ? TYPES.find((x) => x.name === type) : type;
  const o = t?.offerings.find((x) => x.zone === zone && x.capacityType === capacityType);
  if (!o) throw new Error(`no offering ${type} ${capacityType} ${zone}`);
  return o.price;
}

export function node(name: string, o: NodeOptions = {}): DisruptionNode {
  const type = o.instanceType ?? (TYPES.find((t) => t.name === (o.type ?? 'm5.xlarge')) as InstanceType);
  const capacityType = o.capacityType ?? 'on-demand';
  const zone = o.zone ?? 'us-east-1a';
  const p = o.pool ?? pool();
  const createdAt = new Date(o.createdAt ?? T0 - HOUR).toISOString();
  const pods = [...(o.pods ?? []), ...(o.cpus ?? []).map((c) => boundPod(name, c))];
  const price = priceOf(type, capacityType, zone);
  const claim = nodeClaim({
    name: `claim-${name}`,
    uid: `uid-${name}`,
    cluster: 'test',
    nodePool: p.metadata.name,
    state: o.state ?? 'Initialized',
    instanceTypeOptions: [type.name],
    labels: {},
    requests: {},
    nominatedPods: [],
    nodeName: name,
    instanceType: type.name,
    zone,
    capacityType,
    pricePerHour: price,
    createdAt,
    stateTimes: { Initialized: createdAt },
    ...claimHashes(p, nodeClass),
  });
  return {
    node: {
      name,
      nodeClaim: claim.name,
      nodePool: p.metadata.name,
      labels: {
        ...type.labels,
        ...(p.spec.template.metadata?.labels ?? {}),
        'kubernetes.io/hostname': name,
        'topology.kubernetes.io/zone': zone,
        'karpenter.sh/capacity-type': capacityType,
        'karpenter.sh/nodepool': p.metadata.name,
      },
      taints: [],
      allocatable: { ...type.allocatable },
      pods,
      inflight: false,
      ...(o.markedForDeletion ? { markedForDeletion: true } : {}),
      pricePerHour: price,
      instanceType: type.name,
      capacityType,
    },
    claim,
    ...(o.annotations ? { annotations: o.annotations } : {}),
    ...(o.lastPodEventAt !== undefined ? { lastPodEventAt: o.lastPodEventAt } : {}),
    ...(o.nominatedAt !== undefined ? { nominatedAt: o.nominatedAt } : {}),
    ...(o.kubeletVersion ? { kubeletVersion: o.kubeletVersion } : {}),
  };
}

export function pdb(
  name: string,
  labels: Record<string, string>,
  maxUnavailable: number | string,
): PodDisruptionBudget {
  return {
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace: 'default' },
    spec: { maxUnavailable, selector: { matchLabels: labels } },
  };
}

export function disruptionInput(nodes: DisruptionNode[], o: Partial<DisruptionInput> = {}): DisruptionInput {
  const pools = o.nodePools ?? [
    ...new Map(nodes.map((n) => [n.claim.nodePool, o.nodePools?.[0] ?? pool({ name: n.claim.nodePool })])).values(),
  ];
  return {
    now: T0,
    cluster: 'test',
    nodes,
    nodePools: pools.length ? pools : [pool()],
    nodeClasses: [nodeClass],
    instanceTypes: new Map((pools.length ? pools : [pool()]).map((p) => [p.metadata.name, TYPES])),
    ...o,
  };
}

/**
 * The cluster after a plan ran: candidates gone, moved pods on their targets, replacements up as initialized nodes
 * (as the cheapest offering the plan chose), `later` ms on. For multi-sweep tests.
 */
export function applyPlan(
  input: DisruptionInput,
  plan: { commands: import('../shared/disruption/types').DisruptionCommand[] },
  later = HOUR,
): DisruptionInput {
  const now = input.now + later;
  const gone = new Set(plan.commands.flatMap((c) => c.candidates.map((x) => x.name)));
  const podsByKey = new Map(
    input.nodes.flatMap((n) => n.node.pods.map((p) => [`${p.metadata.namespace}/${p.metadata.name}`, p])),
  );
  const moved = new Map<string, Pod[]>();
  for (const c of plan.commands) {
    for (const [target, keys] of Object.entries(c.moves)) {
      const list = moved.get(target) ?? [];
      for (const k of keys) {
        const p = podsByKey.get(k);
        if (p) list.push({ ...p, spec: { ...p.spec, nodeName: target } });
      }
      moved.set(target, list);
    }
  }
  const nodes: DisruptionNode[] = input.nodes
    .filter((n) => !gone.has(n.node.name))
    .map((n) => {
      const extra = moved.get(n.node.name) ?? [];
      if (!extra.length) return n;
      return { ...n, node: { ...n.node, pods: [...n.node.pods, ...extra] }, lastPodEventAt: now - later / 2 };
    });
  const pools = new Map(input.nodePools.map((p) => [p.metadata.name, p]));
  for (const c of plan.commands) {
    for (const r of c.replacements) {
      const type = r.instanceTypeOptions.find((t) => t.name === r.cheapest.instanceType) as InstanceType;
      const name = r.name;
      const pods = r.pods.map((p) => ({ ...p, spec: { ...p.spec, nodeName: name } }));
      const n = node(name, {
        instanceType: type,
        capacityType: r.cheapest.capacityType,
        zone: r.cheapest.zone,
        pods,
        pool: pools.get(r.nodePool) ?? pool(),
        createdAt: now - later / 2,
      });
      nodes.push(n);
    }
  }
  return { ...input, now, nodes };
}
