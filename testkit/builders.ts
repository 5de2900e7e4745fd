// Small builders for tests: pods, NodePools, EC2NodeClasses, nodes and DaemonSets with Karpenter's defaults, so a
// test states only what it is about.
import type { EC2NodeClass, NodePool, NodeSelectorRequirementWithMinValues } from '../shared/api/karpenter';
import type { Container, DaemonSet, Pod, PodSpec, Taint } from '../shared/api/kube';
import type { InstanceType } from '../shared/catalog/types';
import type { ClusterNode, SchedulingInput } from '../shared/scheduling/types';
import { fixtureInstanceTypes } from './instance-types';

let podCounter = 0;

export interface PodOptions extends Partial<Omit<PodSpec, 'containers'>> {
  name?: string;
  namespace?: string;
  labels?: Record<string, string>;
  cpu?: string;
  memory?: string;
  requests?: Record<string, string | number>;
  containers?: Container[];
}

export function pod(o: PodOptions = {}): Pod {
  const { name, namespace, labels, cpu, memory, requests, containers, ...spec } = o;
  const req: Record<string, string | number> = { ...(requests ?? {}) };
  if (cpu) req.cpu = cpu;
  if (memory) req.memory = memory;
  podCounter++;
  return {
    metadata: { name: name ?? `pod-${podCounter}`, namespace: namespace ?? 'default', labels: labels ?? {} },
    spec: { containers: containers ?? [{ name: 'app', resources: { requests: req } }], ...spec },
  };
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
}

export function nodePool(o: NodePoolOptions = {}): NodePool {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: o.name ?? 'default' },
    spec: {
      template: {
        ...(o.labels ? { metadata: { labels: o.labels } } : {}),
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: o.nodeClass ?? 'default' },
          requirements: o.requirements ?? [],
          ...(o.taints ? { taints: o.taints } : {}),
          ...(o.startupTaints ? { startupTaints: o.startupTaints } : {}),
          ...(o.terminationGracePeriod ? { terminationGracePeriod: o.terminationGracePeriod } : {}),
          expireAfter: '720h',
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
