// Karpenter objects and instance types for the shared/aws tests.
import type { EC2NodeClass, NodePool } from '../../shared/api/karpenter';
import type { ClusterInfo } from '../../shared/aws/ec2/nodeclass';
import type { Arch, InstanceType, Offering } from '../../shared/catalog/types';
import { nodePool } from '../builders';

export const testCluster: ClusterInfo = {
  name: 'test-cluster',
  region: 'us-east-1',
  endpoint: 'https://ABCDEF.gr7.us-east-1.eks.amazonaws.com',
  caData: 'Q0EK',
  serviceCidr: '10.100.0.0/16',
  kubernetesVersion: '1.31',
};

export function makeNodeClass(spec: Partial<EC2NodeClass['spec']> = {}, name = 'default'): EC2NodeClass {
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name },
    spec: {
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'test-cluster' } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'test-cluster' } }],
      role: 'KarpenterNodeRole-test-cluster',
      ...spec,
    },
  };
}

export function makeNodePool(name = 'default'): NodePool {
  return nodePool({ name });
}

export function makeInstanceType(
  name: string,
  o: { arch?: Arch; onDemand?: number; spot?: Record<string, number>; zones?: string[]; pods?: number } = {},
): InstanceType {
  const zones = o.zones ?? ['us-east-1a', 'us-east-1b'];
  const onDemand = o.onDemand ?? 0.1;
  const offerings: Offering[] = [
    ...Object.entries(o.spot ?? {}).map(([zone, price]) => ({
      zone,
      capacityType: 'spot' as const,
      price,
      available: true,
    })),
    ...zones.map((zone) => ({ zone, capacityType: 'on-demand' as const, price: onDemand, available: true })),
  ];
  const [family = name, size = 'large'] = name.split('.');
  const capacity = { cpu: 2000, memory: 8192 * 2 ** 20, pods: o.pods ?? 29 };
  return {
    name,
    info: {
      name,
      family,
      category: family.replace(/\d.*$/, ''),
      generation: 5,
      size,
      vcpu: 2,
      memoryMiB: 8192,
      arch: o.arch ?? 'amd64',
      maxEnis: 3,
      ipv4PerEni: 10,
      hypervisor: 'nitro',
      bareMetal: false,
      currentGeneration: true,
      onDemandPrice: onDemand,
      spotPrice: o.spot ?? {},
      zones,
    },
    labels: { 'node.kubernetes.io/instance-type': name },
    capacity,
    overhead: { kubeReserved: {}, systemReserved: {}, evictionThreshold: {} },
    allocatable: capacity,
    offerings,
  };
}
