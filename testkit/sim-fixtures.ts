// Small hand-made instance types, NodePools and claims for the simulator's tests.
import type { EC2NodeClass, NodePool } from '../shared/api/karpenter';
import type { NodeClaim } from '../shared/api/nodeclaim';
import type { InstanceType, Offering } from '../shared/catalog/types';
import { ec2NodeClass, nodePool } from './builders';

export function fixtureType(name: string, vcpu: number, offerings: Partial<Offering>[]): InstanceType {
  const memoryMiB = vcpu * 4096;
  return {
    name,
    info: {
      name,
      family: name.split('.')[0] ?? name,
      category: name.charAt(0),
      generation: 5,
      size: name.split('.')[1] ?? '',
      vcpu,
      memoryMiB,
      arch: 'amd64',
      maxEnis: 3,
      ipv4PerEni: 10,
      hypervisor: 'nitro',
      bareMetal: false,
      currentGeneration: true,
      onDemandPrice: 0.1 * vcpu,
      spotPrice: {},
      zones: ['us-east-1a', 'us-east-1b'],
    },
    labels: { 'node.kubernetes.io/instance-type': name, 'kubernetes.io/arch': 'amd64' },
    capacity: { cpu: vcpu * 1000, memory: memoryMiB * 2 ** 20, pods: 29 },
    overhead: { kubeReserved: {}, systemReserved: {}, evictionThreshold: {} },
    allocatable: { cpu: vcpu * 1000 - 70, memory: (memoryMiB - 600) * 2 ** 20, pods: 29 },
    offerings: offerings.map((o) => ({
      zone: 'us-east-1a',
      capacityType: 'on-demand',
      price: 0.1 * vcpu,
      available: true,
      ...o,
    })),
  };
}

export const fixtureNodeClass: EC2NodeClass = ec2NodeClass(
  { role: undefined, tags: { team: 'platform' } },
  'default',
  'sim',
);

export const fixtureNodePool: NodePool = nodePool({ name: 'general' });

export function fixtureClaim(name: string, uid = `uid-${name}`): NodeClaim {
  return {
    name,
    uid,
    cluster: 'sim',
    nodePool: 'general',
    nodeClass: 'default',
    state: 'Pending',
    version: 1,
    requirements: [],
    instanceTypeOptions: [],
    labels: { team: 'web' },
    taints: [{ key: 'dedicated', value: 'web', effect: 'NoSchedule' }],
    startupTaints: [{ key: 'node.cilium.io/agent-not-ready', effect: 'NoExecute' }],
    requests: {},
    nominatedPods: [],
    createdAt: '2025-01-01T00:00:00.000Z',
    stateTimes: {},
  };
}
