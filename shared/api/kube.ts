// The subset of Kubernetes object shapes the engine reads. Field names match the Kubernetes API exactly, so objects
// from @kubernetes/client-node or parsed YAML pass through without translation.

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  /** Kept on Nodes only (shared/kube/trim.ts): the lifecycle checks Karpless's termination finalizer. */
  finalizers?: string[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid?: string;
  controller?: boolean;
}

export type QuantityMap = Record<string, string | number>;

export interface ResourceRequirements {
  requests?: QuantityMap;
  limits?: QuantityMap;
}

export interface ContainerPort {
  containerPort: number;
  hostPort?: number;
  hostIP?: string;
  protocol?: 'TCP' | 'UDP' | 'SCTP';
  name?: string;
}

export interface Container {
  name: string;
  image?: string;
  resources?: ResourceRequirements;
  ports?: ContainerPort[];
  /** `Always` on an init container makes it a restartable sidecar. */
  restartPolicy?: 'Always';
}

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export type NodeSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt' | 'Gte' | 'Lte';

export interface NodeSelectorRequirement {
  key: string;
  operator: NodeSelectorOperator;
  values?: string[];
}

export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

export interface PreferredSchedulingTerm {
  weight: number;
  preference: NodeSelectorTerm;
}

export interface NodeAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms: NodeSelectorTerm[] };
  preferredDuringSchedulingIgnoredDuringExecution?: PreferredSchedulingTerm[];
}

export interface PodAffinityTerm {
  labelSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  namespaces?: string[];
  topologyKey: string;
  matchLabelKeys?: string[];
  mismatchLabelKeys?: string[];
}

export interface WeightedPodAffinityTerm {
  weight: number;
  podAffinityTerm: PodAffinityTerm;
}

export interface PodAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[];
  preferredDuringSchedulingIgnoredDuringExecution?: WeightedPodAffinityTerm[];
}

export interface Affinity {
  nodeAffinity?: NodeAffinity;
  podAffinity?: PodAffinity;
  podAntiAffinity?: PodAffinity;
}

export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';

export interface Taint {
  key: string;
  value?: string;
  effect: TaintEffect;
}

export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: TaintEffect;
  tolerationSeconds?: number;
}

export interface TopologySpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
  labelSelector?: LabelSelector;
  minDomains?: number;
  matchLabelKeys?: string[];
  nodeAffinityPolicy?: 'Honor' | 'Ignore';
  nodeTaintsPolicy?: 'Honor' | 'Ignore';
}

export interface Volume {
  name: string;
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  ephemeral?: { volumeClaimTemplate?: { metadata?: Partial<ObjectMeta>; spec: PersistentVolumeClaimSpec } };
  emptyDir?: { sizeLimit?: string; medium?: string };
  [other: string]: unknown;
}

export interface PodSpec {
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  affinity?: Affinity;
  tolerations?: Toleration[];
  containers: Container[];
  initContainers?: Container[];
  overhead?: QuantityMap;
  /** The RuntimeClass whose `overhead.podFixed` admission copies into `overhead` (shared/api/runtime-class.ts). */
  runtimeClassName?: string;
  topologySpreadConstraints?: TopologySpreadConstraint[];
  priority?: number;
  priorityClassName?: string;
  volumes?: Volume[];
  schedulerName?: string;
  terminationGracePeriodSeconds?: number;
  hostNetwork?: boolean;
}

export interface PodCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface PodStatus {
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  conditions?: PodCondition[];
  nominatedNodeName?: string;
  /** When the kubelet started the pod (RFC 3339); a duration-valued karpenter.sh/do-not-disrupt counts from it. */
  startTime?: string;
}

export interface Pod {
  apiVersion?: 'v1';
  kind?: 'Pod';
  metadata: ObjectMeta & { namespace: string };
  spec: PodSpec;
  status?: PodStatus;
}

export interface PodTemplateSpec {
  metadata?: Partial<ObjectMeta>;
  spec: PodSpec;
}

export interface WorkloadSpec {
  replicas?: number;
  selector?: LabelSelector;
  template: PodTemplateSpec;
}

export interface Deployment {
  kind: 'Deployment';
  metadata: ObjectMeta;
  spec: WorkloadSpec;
}

export interface ReplicaSet {
  kind: 'ReplicaSet';
  metadata: ObjectMeta;
  spec: WorkloadSpec;
}

export interface StatefulSet {
  kind: 'StatefulSet';
  metadata: ObjectMeta;
  spec: WorkloadSpec & { serviceName?: string; volumeClaimTemplates?: PersistentVolumeClaim[] };
}

export interface Job {
  kind: 'Job';
  metadata: ObjectMeta;
  spec: { parallelism?: number; completions?: number; template: PodTemplateSpec };
}

export interface DaemonSet {
  kind: 'DaemonSet';
  metadata: ObjectMeta;
  spec: { selector?: LabelSelector; template: PodTemplateSpec };
}

export interface PodDisruptionBudget {
  kind: 'PodDisruptionBudget';
  metadata: ObjectMeta;
  spec: { minAvailable?: number | string; maxUnavailable?: number | string; selector?: LabelSelector };
  status?: { disruptionsAllowed?: number; currentHealthy?: number; desiredHealthy?: number; expectedPods?: number };
}

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface NodeCondition {
  type: string;
  status: ConditionStatus;
  reason?: string;
  /** When the status last changed (RFC 3339); node repair measures an unhealthy condition's age from it. */
  lastTransitionTime?: string;
}

export interface NodeStatus {
  capacity?: QuantityMap;
  allocatable?: QuantityMap;
  conditions?: NodeCondition[];
  nodeInfo?: { kubeletVersion?: string };
}

export interface Node {
  kind?: 'Node';
  metadata: ObjectMeta;
  spec: { providerID?: string; taints?: Taint[]; unschedulable?: boolean };
  status?: NodeStatus;
}

export interface PersistentVolumeClaimSpec {
  storageClassName?: string;
  volumeName?: string;
  accessModes?: string[];
  resources?: { requests?: QuantityMap };
}

export interface PersistentVolumeClaim {
  kind?: 'PersistentVolumeClaim';
  metadata: ObjectMeta;
  spec: PersistentVolumeClaimSpec;
  status?: { phase?: 'Pending' | 'Bound' | 'Lost' };
}

export interface PersistentVolume {
  kind: 'PersistentVolume';
  metadata: ObjectMeta;
  spec: {
    storageClassName?: string;
    claimRef?: { namespace?: string; name?: string };
    nodeAffinity?: { required?: { nodeSelectorTerms: NodeSelectorTerm[] } };
    capacity?: QuantityMap;
    csi?: { driver: string; volumeHandle?: string };
    /** An in-tree EBS volume: CSI migration serves it through ebs.csi.aws.com, so it counts against that limit. */
    awsElasticBlockStore?: { volumeID: string };
  };
}

export interface StorageClass {
  kind: 'StorageClass';
  metadata: ObjectMeta;
  provisioner: string;
  volumeBindingMode?: 'Immediate' | 'WaitForFirstConsumer';
  allowedTopologies?: { matchLabelExpressions?: { key: string; values: string[] }[] }[];
  parameters?: Record<string, string>;
}

/** A node's CSI drivers and how many volumes each may attach there (`allocatable.count`; absent: no limit). */
export interface CSINode {
  kind: 'CSINode';
  metadata: ObjectMeta;
  spec: { drivers?: { name: string; nodeID?: string; allocatable?: { count?: number } }[] };
}

/** What a pod's `runtimeClassName` brings: fixed per-pod overhead and scheduling constraints. */
export interface RuntimeClass {
  kind: 'RuntimeClass';
  metadata: ObjectMeta;
  handler: string;
  overhead?: { podFixed?: QuantityMap };
  scheduling?: { nodeSelector?: Record<string, string>; tolerations?: Toleration[] };
}

export interface PriorityClass {
  kind: 'PriorityClass';
  metadata: ObjectMeta;
  value: number;
  globalDefault?: boolean;
  preemptionPolicy?: string;
}

export interface Namespace {
  kind: 'Namespace';
  metadata: ObjectMeta;
}

/** A reference to a pod that survives serialization into DynamoDB and SQS messages. */
export interface PodRef {
  namespace: string;
  name: string;
  uid?: string;
}

export const podKey = (p: { metadata: { namespace?: string; name: string } }): string =>
  `${p.metadata.namespace ?? 'default'}/${p.metadata.name}`;
