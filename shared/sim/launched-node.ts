// What a launched instance's Node carries when its kubelet registers it: the simulated cluster, the seeded nodes of
// a scenario and the joined cloud of `karpless dev --aws-endpoint` all build it here.
import type { Node, NodeStatus } from '../api/kube';
import {
  LabelCapacityType,
  LabelHostname,
  LabelInstanceType,
  LabelNodePool,
  LabelNodeRegistered,
  LabelZone,
} from '../api/labels';
import type { NodeClaim } from '../api/nodeclaim';
import { formatResourceList } from '../api/resources';
import type { InstanceType } from '../catalog/types';
import type { CloudInstance } from '../ports';
import type { SimLaunch } from './sim-cloud';

/** The Node's labels: its type's, its claim's, those `written` on it (a seeded Node's), then where and how the
 * instance runs, its pool, its hostname and the registered mark. */
export function launchedNodeLabels(
  name: string,
  claim: Pick<NodeClaim, 'labels' | 'nodePool'>,
  instance: Pick<CloudInstance, 'instanceType' | 'zone' | 'capacityType'>,
  type: InstanceType,
  written: Record<string, string> = {},
): Record<string, string> {
  return {
    ...type.labels,
    ...claim.labels,
    ...written,
    [LabelInstanceType]: instance.instanceType,
    [LabelZone]: instance.zone,
    [LabelCapacityType]: instance.capacityType,
    [LabelNodePool]: claim.nodePool,
    [LabelHostname]: name,
    [LabelNodeRegistered]: 'true',
  };
}

/** The capacity and allocatable the kubelet reports for a Node of the type. */
export function launchedNodeResources(type: InstanceType): Pick<NodeStatus, 'capacity' | 'allocatable'> {
  return { capacity: formatResourceList(type.capacity), allocatable: formatResourceList(type.allocatable) };
}

/** The Node a launched instance's kubelet registers, not Ready yet, carrying the claim's labels, taints and startup
 * taints. */
export function registeringNode(name: string, uid: string, at: string, launch: SimLaunch): Node {
  const { instance, claim, instanceType } = launch;
  return {
    kind: 'Node',
    metadata: { name, uid, creationTimestamp: at, labels: launchedNodeLabels(name, claim, instance, instanceType) },
    spec: { providerID: instance.providerID, taints: [...claim.taints, ...claim.startupTaints] },
    status: {
      ...launchedNodeResources(instanceType),
      conditions: [{ type: 'Ready', status: 'False', reason: 'KubeletNotReady', lastTransitionTime: at }],
    },
  };
}
