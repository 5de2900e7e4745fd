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
  /** Where the price came from: `estimate` (derived by the catalog, docs/catalog.md "Spot prices are estimates"),
   * `overlay` (a NodeOverlay set or adjusted it) or `catalog` (as the catalog lists it). */
  priceSource: PriceSource;
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

export type PriceSource = 'estimate' | 'overlay' | 'catalog';

/** The source of the price of the offering the instance launched into. */
export function priceSourceOf(instance: CloudInstance, instanceType: InstanceType): PriceSource {
  const reservation = instance.capacityReservation?.id;
  const offering = instanceType.offerings.find(
    (o) =>
      o.zone === instance.zone &&
      o.capacityType === instance.capacityType &&
      (reservation === undefined || o.reservation?.id === reservation),
  );
  if (offering?.priceSource === 'estimate') return 'estimate';
  return offering?.overlay ? 'overlay' : 'catalog';
}

/** The instance's own fields, in report order. */
export function instanceFields(instance: CloudInstance, instanceType: InstanceType) {
  return {
    instanceType: instance.instanceType,
    capacityType: instance.capacityType,
    zone: instance.zone,
    arch: instanceType.info.arch,
    pricePerHour: instance.pricePerHour,
    priceSource: priceSourceOf(instance, instanceType),
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
