// Karpenter v1 objects (karpenter.sh/v1 NodePool, karpenter.k8s.aws/v1 EC2NodeClass), field for field, so a
// Karpenter user's YAML parses unchanged. Durations stay strings ("720h", "Never") as the user wrote them; the
// parser validates them and `parseDuration` turns them into milliseconds where the engine needs numbers.

import type { NodeSelectorOperator, Taint } from './kube';
import type { EC2NodeClassStatus, NodePoolStatus } from './status';

export interface NodeSelectorRequirementWithMinValues {
  key: string;
  operator: NodeSelectorOperator;
  values?: string[];
  minValues?: number;
}

export type DisruptionReason = 'Empty' | 'Underutilized' | 'Drifted';

export interface Budget {
  /** A count ("5") or a percentage ("10%") of the NodePool's nodes. */
  nodes: string;
  schedule?: string;
  duration?: string;
  reasons?: DisruptionReason[];
}

export interface NodePoolSpec {
  template: {
    metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
    spec: {
      nodeClassRef: { group: string; kind: string; name: string };
      requirements: NodeSelectorRequirementWithMinValues[];
      taints?: Taint[];
      startupTaints?: Taint[];
      expireAfter: string;
      terminationGracePeriod?: string;
    };
  };
  disruption: {
    consolidationPolicy: 'WhenEmpty' | 'WhenEmptyOrUnderutilized' | 'Balanced';
    consolidateAfter: string;
    budgets: Budget[];
  };
  limits?: Record<string, string | number>;
  weight: number;
  /** A static NodePool keeps exactly this many nodes whatever the pods need (docs/disruption.md, "Static
   * NodePools"); absent for a dynamic one. */
  replicas?: number;
}

/** What Karpless keeps of a Karpenter object's metadata; `generation` is echoed in status conditions. */
export interface KarpenterObjectMeta {
  name: string;
  uid?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** Set by the API server while finalizers hold an object being deleted. */
  deletionTimestamp?: string;
}

export interface NodePool {
  apiVersion: 'karpenter.sh/v1';
  kind: 'NodePool';
  metadata: KarpenterObjectMeta;
  spec: NodePoolSpec;
  /** As last published (shared/controllers/status.ts); read back to keep transition times and skip no-op writes. */
  status?: NodePoolStatus;
}

export interface SelectorTerm {
  tags?: Record<string, string>;
  id?: string;
  name?: string;
}

export interface CapacityReservationSelectorTerm {
  tags?: Record<string, string>;
  id?: string;
  ownerID?: string;
  /** Selects reservations that accept any matching launch (open) or only launches that target them (targeted). */
  instanceMatchCriteria?: 'open' | 'targeted';
}

export interface AmiSelectorTerm {
  alias?: string;
  tags?: Record<string, string>;
  id?: string;
  name?: string;
  owner?: string;
  ssmParameter?: string;
}

export interface KubeletConfiguration {
  maxPods?: number;
  podsPerCore?: number;
  systemReserved?: Record<string, string>;
  kubeReserved?: Record<string, string>;
  evictionHard?: Record<string, string>;
  evictionSoft?: Record<string, string>;
  evictionSoftGracePeriod?: Record<string, string>;
  evictionMaxPodGracePeriod?: number;
  imageGCHighThresholdPercent?: number;
  imageGCLowThresholdPercent?: number;
  cpuCFSQuota?: boolean;
  clusterDNS?: string[];
}

export interface BlockDeviceMapping {
  deviceName: string;
  rootVolume?: boolean;
  ebs?: {
    volumeSize?: string;
    volumeType?: string;
    iops?: number;
    throughput?: number;
    encrypted?: boolean;
    kmsKeyID?: string;
    deleteOnTermination?: boolean;
    snapshotID?: string;
  };
}

export interface EC2NodeClassSpec {
  amiFamily?: 'AL2' | 'AL2023' | 'Bottlerocket' | 'Windows2019' | 'Windows2022' | 'Windows2025' | 'Custom';
  amiSelectorTerms: AmiSelectorTerm[];
  subnetSelectorTerms: SelectorTerm[];
  securityGroupSelectorTerms: SelectorTerm[];
  role?: string;
  instanceProfile?: string;
  kubelet?: KubeletConfiguration;
  userData?: string;
  tags?: Record<string, string>;
  blockDeviceMappings?: BlockDeviceMapping[];
  metadataOptions?: {
    httpEndpoint?: 'enabled' | 'disabled';
    httpProtocolIPv6?: 'enabled' | 'disabled';
    httpPutResponseHopLimit?: number;
    httpTokens?: 'required' | 'optional';
  };
  associatePublicIPAddress?: boolean;
  detailedMonitoring?: boolean;
  instanceStorePolicy?: 'RAID0';
  context?: string;
  /** Karpenter's capacity reservations (on-demand and capacity blocks) this class may launch into, ORed
   * (docs/aws.md, Capacity reservations). */
  capacityReservationSelectorTerms?: CapacityReservationSelectorTerm[];
}

export interface EC2NodeClass {
  apiVersion: 'karpenter.k8s.aws/v1';
  kind: 'EC2NodeClass';
  metadata: KarpenterObjectMeta;
  spec: EC2NodeClassSpec;
  /** As last published (shared/controllers/status.ts). */
  status?: EC2NodeClassStatus;
}
