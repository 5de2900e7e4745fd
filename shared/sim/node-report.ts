// What a report says about a launched node, shared by `karpless simulate` and scenario reports so both describe an
// instance the same way: quantities as Kubernetes strings, labels as the node would carry them, keys sorted.
import type { Taint } from '../api/kube';
import { LabelArch, LabelCapacityType, LabelInstanceType, LabelNodePool, LabelZone } from '../api/labels';
import { formatResourceList } from '../api/resources';
import type { InstanceType } from '../catalog/types';
import type { CloudInstance } from '../ports';

/** The fields both reports give a launched NodeClaim, in report order (each report adds its own). */
export interface ReportedNodeClaim {
  name: string;
  nodePool: string;
  nodeClass: string;
  instanceType: string;
  capacityType: string;
  zone: string;
  arch: string;
  pricePerHour: number;
  capacity: Record<string, string>;
  allocatable: Record<string, string>;
  requests: Record<string, string>;
  instanceTypeOptions: string[];
  labels: Record<string, string>;
  taints: Taint[];
  startupTaints: Taint[];
  instanceId: string;
  providerID: string;
  pods: string[];
}

export function sortKeys(o: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The instance's own fields, in report order. */
export function instanceFields(instance: CloudInstance, instanceType: InstanceType) {
  return {
    instanceType: instance.instanceType,
    capacityType: instance.capacityType,
    zone: instance.zone,
    arch: instanceType.info.arch,
    pricePerHour: instance.pricePerHour,
    capacity: formatResourceList(instanceType.capacity),
    allocatable: formatResourceList(instanceType.allocatable),
  };
}

/** The node's labels: the type's well-known labels, the claim's labels, then what the launch decided. */
export function nodeLabels(
  instance: CloudInstance,
  instanceType: InstanceType,
  nodePool: string,
  claimLabels: Record<string, string>,
): Record<string, string> {
  return sortKeys({
    ...instanceType.labels,
    ...claimLabels,
    [LabelNodePool]: nodePool,
    [LabelInstanceType]: instance.instanceType,
    [LabelZone]: instance.zone,
    [LabelCapacityType]: instance.capacityType,
    [LabelArch]: instanceType.info.arch,
  });
}
