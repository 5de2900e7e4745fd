// Small builders for tests: pods, NodePools, EC2NodeClasses, nodes and DaemonSets with Karpenter's defaults, so a
// test states only what it is about.
import type { EC2NodeClass, NodePool, NodeSelectorRequirementWithMinValues } from '../shared/api/karpenter';
import type { Container, DaemonSet, OwnerReference, Pod, PodSpec, PodStatus, Taint } from '../shared/api/kube';
import type { NodeClaim } from '../shared/api/nodeclaim';
import type { InstanceType } from '../shared/catalog/types';
import type { ClusterNode, SchedulingInput } from '../shared/scheduling/types';
import { fixtureInstanceTypes } from './instance-types';

let podCounter = 0;

export interface PodOptions extends Partial<Omit<PodSpec, 'containers'>> {
  name?: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  /** Writes `apiVersion` and `kind`, as a manifest or the API server has them. */
  typed?: boolean;
  cpu?: string;
  memory?: string;
  requests?: Record<string, string | number>;
  /** The containers; one named `app` requesting `cpu`, `memory` and `requests` unless given. */
  containers?: Container[];
  status?: PodStatus;
}

/** The one pod builder: every pod fixture (bed, disruption, watch objects, workloads) presets fields through it. */
export function pod(o: PodOptions = {}): Pod {
  const {
    name,
    namespace,
    uid,
    labels,
    annotations,
    ownerReferences,
    typed,
    cpu,
    memory,
    requests,
    containers,
    status,
    ...spec
  } = o;
  const req: Record<string, string | number> = { ...(requests ?? {}) };
  if (cpu) req.cpu = cpu;
  if (memory) req.memory = memory;
  podCounter++;
  return {
    ...(typed ? { apiVersion: 'v1' as const, kind: 'Pod' as const } : {}),
    metadata: {
      name: name ?? `pod-${podCounter}`,
      namespace: namespace ?? 'default',
      ...(uid ? { uid } : {}),
      labels: labels ?? {},
      ...(annotations ? { annotations } : {}),
      ...(ownerReferences ? { ownerReferences } : {}),
    },
    spec: { containers: containers ?? [{ name: 'app', resources: { requests: req } }], ...spec },
    ...(status ? { status } : {}),
  };
}

/** A pod owned by a controller of this kind (what makes it evictable and replaced rather than lost). */
export function ownedBy(kind: string, name: string, extra: Partial<OwnerReference> = {}): OwnerReference[] {
  return [{ apiVersion: 'apps/v1', kind, name, ...extra }];
}

export function pods(n: number, o: PodOptions = {}): Pod[] {
  return Array.from({ length: n }, (_, i) => pod({ ...o, name: `${o.name ?? 'pod'}-${i}` }));
}

export interface NodePoolOptions {
  name?: string;
  weight?: number;
  requirements?: NodeSelectorRequirementWithMinValues[];
  labels?: Record<string, string>;
  taints?: Taint[];
  startupTaints?: Taint[];
  limits?: Record<string, string | number>;
  terminationGracePeriod?: string;
  /** The EC2NodeClass the template refers to; `default` unless given. */
  nodeClass?: string;
  /** The template's annotations (copied to NodeClaims and Nodes). */
  annotations?: Record<string, string>;
  /** `720h` unless given. */
  expireAfter?: string;
}

export function nodePool(o: NodePoolOptions = {}): NodePool {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: o.name ?? 'default' },
    spec: {
      template: {
        ...(o.labels || o.annotations
          ? {
              metadata: {
                ...(o.labels ? { labels: o.labels } : {}),
                ...(o.annotations ? { annotations: o.annotations } : {}),
              },
            }
          : {}),
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: o.nodeClass ?? 'default' },
          requirements: o.requirements ?? [],
          ...(o.taints ? { taints: o.taints } : {}),
          ...(o.startupTaints ? { startupTaints: o.startupTaints } : {}),
          ...(o.terminationGracePeriod ? { terminationGracePeriod: o.terminationGracePeriod } : {}),
          expireAfter: o.expireAfter ?? '720h',
        },
      },
      disruption: {
        consolidationPolicy: 'WhenEmptyOrUnderutilized',
        consolidateAfter: '0s',
        budgets: [{ nodes: '10%' }],
      },
      ...(o.limits ? { limits: o.limits } : {}),
      weight: o.weight ?? 0,
    },
  };
}

/**
 * The one EC2NodeClass fixture: AL2023, subnets and security groups found by the `karpenter.sh/discovery` tag, and
 * the node role named after it. `spec` overrides any field (`role: undefined` for an instance profile instead).
 */
export function ec2NodeClass(
  spec: Partial<EC2NodeClass['spec']> = {},
  name = 'default',
  discovery = 'test-cluster',
): EC2NodeClass {
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name },
    spec: {
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': discovery } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': discovery } }],
      role: `KarpenterNodeRole-${discovery}`,
      ...spec,
    },
  };
}

/** The one NodeClaim builder: a Pending claim of `default` for one m5.large and one nominated pod; `overrides`
 * replace any field. */
export function nodeClaim(overrides: Partial<NodeClaim> = {}): NodeClaim {
  const name = overrides.name ?? 'default-abc12';
  return {
    name,
    uid: `uid-${name}`,
    cluster: 'test-cluster',
    nodePool: 'default',
    nodeClass: 'default',
    state: 'Pending',
    version: 1,
    requirements: [],
    instanceTypeOptions: ['m5.large'],
    labels: { 'karpenter.sh/nodepool': 'default' },
    taints: [],
    startupTaints: [],
    requests: { cpu: 1000, memory: 1024 },
    nominatedPods: [{ namespace: 'default', name: 'web-1', uid: 'pod-1' }],
    createdAt: '2026-01-01T00:00:00.000Z',
    stateTimes: {},
    ...overrides,
  };
}

export function daemonSet(name: string, spec: Partial<PodSpec> & { cpu?: string; memory?: string } = {}): DaemonSet {
  const { cpu, memory, ...rest } = spec;
  return {
    kind: 'DaemonSet',
    metadata: { name, namespace: 'kube-system' },
    spec: {
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [{ name, resources: { requests: { cpu: cpu ?? '100m', memory: memory ?? '128Mi' } } }],
          ...rest,
        },
      },
    },
  };
}

export function clusterNode(
  o: Partial<ClusterNode> & { name: string; instanceType?: string; zone?: string },
): ClusterNode {
  const it = fixtureInstanceTypes().find((t) => t.name === (o.instanceType ?? 'm5.xlarge')) as InstanceType;
  return {
    labels: {
      ...it.labels,
      'kubernetes.io/hostname': o.name,
      'topology.kubernetes.io/zone': o.zone ?? 'us-east-1a',
      'karpenter.sh/capacity-type': 'on-demand',
      ...(o.nodePool ? { 'karpenter.sh/nodepool': o.nodePool } : {}),
      ...(o.labels ?? {}),
    },
    taints: [],
    allocatable: { ...it.allocatable },
    pods: [],
    inflight: false,
    instanceType: it.name,
    ...o,
  };
}

/** An input with the fixture types for every NodePool (or the given types). */
export function input(o: Partial<SchedulingInput> & { types?: InstanceType[] }): SchedulingInput {
  const pools = o.nodePools ?? [nodePool()];
  const types = o.types ?? fixtureInstanceTypes();
  const { types: _t, ...rest } = o;
  return {
    pods: [],
    instanceTypes: new Map(pools.map((p) => [p.metadata.name, types])),
    ...rest,
    nodePools: pools,
  };
}
