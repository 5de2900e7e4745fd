// Turns Node objects given as input into the solver's ClusterNodes, with the pods already bound to them.

import type { Node, Pod } from '../api/kube';
import { LabelCapacityType, LabelInstanceType, LabelNodePool, LabelZone } from '../api/labels';
import { parseResourceList } from '../api/resources';
import type { CapacityType, InstanceType } from '../catalog/types';
import type { ClusterNode } from '../scheduling/types';

export function toClusterNodes(nodes: Node[], boundPods: Pod[], typesByName: Map<string, InstanceType>): ClusterNode[] {
  const podsByNode = new Map<string, Pod[]>();
  for (const pod of boundPods) {
    const name = pod.spec.nodeName as string;
    const list = podsByNode.get(name);
    if (list) list.push(pod);
    else podsByNode.set(name, [pod]);
  }
  return nodes.map((node) => {
    const labels: Record<string, string> = { 'kubernetes.io/hostname': node.metadata.name, ...node.metadata.labels };
    const typeName = labels[LabelInstanceType];
    const type = typeName ? typesByName.get(typeName) : undefined;
    const capacityType = labels[LabelCapacityType] as CapacityType | undefined;
    const offering = type?.offerings.find(
      (o) => o.zone === labels[LabelZone] && o.capacityType === (capacityType ?? 'on-demand'),
    );
    const allocatable = node.status?.allocatable
      ? parseResourceList(node.status.allocatable)
      : { ...(type?.allocatable ?? {}) };
    const cluster: ClusterNode = {
      name: node.metadata.name,
      labels,
      taints: [...(node.spec?.taints ?? [])],
      allocatable,
      pods: podsByNode.get(node.metadata.name) ?? [],
      inflight: false,
      markedForDeletion: node.spec?.unschedulable === true,
    };
    const nodePool = labels[LabelNodePool];
    if (nodePool) cluster.nodePool = nodePool;
    if (typeName) cluster.instanceType = typeName;
    if (capacityType) cluster.capacityType = capacityType;
    if (offering) cluster.pricePerHour = offering.price;
    return cluster;
  });
}
