// The status Karpless publishes on NodePools and EC2NodeClasses, in Karpenter v1's shape, so `kubectl get nodepools`
// and `kubectl get ec2nodeclasses` read as they do under Karpenter (and Karpenter's own CRDs accept it).

/** A status condition as Kubernetes API conventions (and Karpenter's CRD schema) require: every field present, the
 * reason CamelCase. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export interface NodePoolStatus {
  /** Capacity of the pool's nodes, summed, plus `nodes`: their count (kubectl's NODES column reads it). */
  resources: Record<string, string>;
  /** The count of the pool's nodes (Karpenter's status.nodes): the NODES column, and the scale subresource's
   * statusReplicasPath, which `kubectl scale nodepool` reads for a static pool. Always published; absent only from a
   * status an older Karpless wrote. */
  nodes?: number;
  /** ValidationSucceeded, NodeClassReady, Ready. */
  conditions: Condition[];
  nodeClassObservedGeneration?: number;
}

export interface NodeClassRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  values?: string[];
}

export interface EC2NodeClassStatus {
  subnets: { id: string; zone: string; zoneID?: string }[];
  securityGroups: { id: string; name?: string }[];
  amis: { id: string; name?: string; requirements: NodeClassRequirement[] }[];
  instanceProfile?: string;
  /** The reservations the class's capacityReservationSelectorTerms select; absent when it has none. */
  capacityReservations?: CapacityReservationStatus[];
  /** SubnetsReady, SecurityGroupsReady, AMIsReady, InstanceProfileReady, CapacityReservationsReady, Ready. */
  conditions: Condition[];
}

/** A status to write: the whole status subresource of one object. */
export type StatusUpdate =
  | { kind: 'NodePool'; name: string; status: NodePoolStatus }
  | { kind: 'EC2NodeClass'; name: string; status: EC2NodeClassStatus };

/** One capacity reservation an EC2NodeClass selects, as Karpenter's status.capacityReservations lists it. `state` is
 * `expiring` once a capacity block is within 40 minutes of its end (docs/aws.md, Capacity reservations). */
export interface CapacityReservationStatus {
  id: string;
  instanceType: string;
  availabilityZone: string;
  ownerID: string;
  reservationType: 'default' | 'capacity-block';
  instanceMatchCriteria: 'open' | 'targeted';
  state: 'active' | 'expiring';
  endTime?: string;
  /** An interruptible capacity reservation (Karpenter v1.10): EC2 may reclaim its instances with a two-minute
   * warning. Published always, `false` for the others, as Karpenter's status does. */
  interruptible?: boolean;
}
