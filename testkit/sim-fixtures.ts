// Small hand-made instance types, NodePools and claims for the simulator's tests.
import type { EC2NodeClass, NodePool } from '../shared/api/karpenter';
import type { NodeClaim } from '../shared/api/nodeclaim';
import type { InstanceType, Offering } from '../shared/catalog/types';
import { ec2NodeClass, nodeClaim, nodePool } from './builders';
import { instanceType } from './instance-types';

/** A type with `vcpu` cores, 4 GiB each, 29 pods and the given offerings (on-demand in us-east-1a at 0.1 $/vCPU
 * unless an offering says otherwise). */
export function fixtureType(name: string, vcpu: number, offerings: Partial<Offering>[]): InstanceType {
  const memoryMiB = vcpu * 4096;
  return instanceType({
    name,
    vcpu,
    memoryMiB,
    info: { category: name.charAt(0), onDemandPrice: 0.1 * vcpu, spotPrice: {}, zones: ['us-east-1a', 'us-east-1b'] },
    labels: { 'node.kubernetes.io/instance-type': name, 'kubernetes.io/arch': 'amd64' },
    capacity: { cpu: vcpu * 1000, memory: memoryMiB * 2 ** 20, pods: 29 },
    allocatable: { cpu: vcpu * 1000 - 70, memory: (memoryMiB - 600) * 2 ** 20, pods: 29 },
    offerings: offerings.map((o) => ({
      zone: 'us-east-1a',
      capacityType: 'on-demand',
      price: 0.1 * vcpu,
      available: true,
      ...o,
    })),
  });
}

export const fixtureNodeClass: EC2NodeClass = ec2NodeClass(
  { role: undefined, tags: { team: 'platform' } },
  'default',
  'sim',
);

export const fixtureNodePool: NodePool = nodePool({ name: 'general' });

/** A Pending claim of the `general` pool with a taint and a startup taint, as the simulator's tests launch. */
export function fixtureClaim(name: string, uid = `uid-${name}`): NodeClaim {
  return nodeClaim({
    name,
    uid,
    cluster: 'sim',
    nodePool: 'general',
    instanceTypeOptions: [],
    labels: { team: 'web' },
    taints: [{ key: 'dedicated', value: 'web', effect: 'NoSchedule' }],
    startupTaints: [{ key: 'node.cilium.io/agent-not-ready', effect: 'NoExecute' }],
    requests: {},
    nominatedPods: [],
    createdAt: '2025-01-01T00:00:00.000Z',
  });
}
