// Well-known label keys, with the same spelling as Karpenter and Kubernetes so workloads written for Karpenter match.

export const LabelNodePool = 'karpenter.sh/nodepool';
export const LabelCapacityType = 'karpenter.sh/capacity-type';
export const LabelNodeInitialized = 'karpenter.sh/initialized';
export const LabelNodeRegistered = 'karpenter.sh/registered';
export const LabelInstanceType = 'node.kubernetes.io/instance-type';
export const LabelZone = 'topology.kubernetes.io/zone';
export const LabelRegion = 'topology.kubernetes.io/region';
export const LabelZoneId = 'topology.k8s.aws/zone-id';
export const LabelArch = 'kubernetes.io/arch';
export const LabelOS = 'kubernetes.io/os';
export const LabelHostname = 'kubernetes.io/hostname';
export const LabelWindowsBuild = 'node.kubernetes.io/windows-build';
/** Karpless's own: the NodeClaim behind a node, so `kubectl get nodes -L karpless.dev/nodeclaim` shows it without a
 * NodeClaim object in the API server (they live in DynamoDB), and `karpless explain` takes it directly. */
export const LabelNodeClaim = 'karpless.dev/nodeclaim';

export const LabelInstanceCategory = 'karpenter.k8s.aws/instance-category';
export const LabelInstanceFamily = 'karpenter.k8s.aws/instance-family';
export const LabelInstanceGeneration = 'karpenter.k8s.aws/instance-generation';
export const LabelInstanceSize = 'karpenter.k8s.aws/instance-size';
export const LabelInstanceCPU = 'karpenter.k8s.aws/instance-cpu';
export const LabelInstanceCPUManufacturer = 'karpenter.k8s.aws/instance-cpu-manufacturer';
export const LabelInstanceCPUSustainedClockSpeedMhz = 'karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz';
export const LabelInstanceMemory = 'karpenter.k8s.aws/instance-memory';
export const LabelInstanceEBSBandwidth = 'karpenter.k8s.aws/instance-ebs-bandwidth';
export const LabelInstanceNetworkBandwidth = 'karpenter.k8s.aws/instance-network-bandwidth';
export const LabelInstanceHypervisor = 'karpenter.k8s.aws/instance-hypervisor';
export const LabelInstanceEncryptionInTransitSupported = 'karpenter.k8s.aws/instance-encryption-in-transit-supported';
export const LabelInstanceLocalNVME = 'karpenter.k8s.aws/instance-local-nvme';
export const LabelInstanceGPUName = 'karpenter.k8s.aws/instance-gpu-name';
export const LabelInstanceGPUManufacturer = 'karpenter.k8s.aws/instance-gpu-manufacturer';
export const LabelInstanceGPUCount = 'karpenter.k8s.aws/instance-gpu-count';
export const LabelInstanceGPUMemory = 'karpenter.k8s.aws/instance-gpu-memory';
export const LabelInstanceAcceleratorName = 'karpenter.k8s.aws/instance-accelerator-name';
export const LabelInstanceAcceleratorManufacturer = 'karpenter.k8s.aws/instance-accelerator-manufacturer';
export const LabelInstanceAcceleratorCount = 'karpenter.k8s.aws/instance-accelerator-count';
export const LabelInstanceCapacityFlex = 'karpenter.k8s.aws/instance-capability-flex';
export const LabelEC2NodeClass = 'karpenter.k8s.aws/ec2nodeclass';
/** The capacity reservation a `reserved` node launched into, and its type (`default` or `capacity-block`). */
export const LabelCapacityReservationId = 'karpenter.k8s.aws/capacity-reservation-id';
export const LabelCapacityReservationType = 'karpenter.k8s.aws/capacity-reservation-type';
/** "true" on a node in an interruptible capacity reservation, "false" in any other reservation (Karpenter v1.10). */
export const LabelCapacityReservationInterruptible = 'karpenter.k8s.aws/capacity-reservation-interruptible';
/** The labels only a `reserved` node carries; they go when its instance leaves the reservation (docs/aws.md). */
export const ReservationLabels: readonly string[] = [
  LabelCapacityReservationId,
  LabelCapacityReservationType,
  LabelCapacityReservationInterruptible,
];

export const AnnotationDoNotDisrupt = 'karpenter.sh/do-not-disrupt';
/** "true" when the scheduler lowered a requirement's minValues to launch the claim (MinValuesPolicy BestEffort). */
export const AnnotationMinValuesRelaxed = 'karpenter.sh/nodeclaim-min-values-relaxed';
export const TaintDisrupted = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' as const };
/** Karpenter's finalizer on its NodeClaims and Nodes: a deletion waits until the node is drained and its instance
 * terminated. Karpless puts it on the NodeClaim objects it mirrors and on the Nodes it registers
 * (docs/kubernetes.md, NodeClaim objects). */
export const FinalizerTermination = 'karpenter.sh/termination';
export const TaintUnregistered = { key: 'karpenter.sh/unregistered', effect: 'NoExecute' as const };

/** Labels the engine itself computes for every node; a NodePool may constrain them but never set them. */
export const WellKnownLabels: ReadonlySet<string> = new Set([
  LabelNodePool,
  LabelCapacityType,
  LabelInstanceType,
  LabelZone,
  LabelRegion,
  LabelZoneId,
  LabelArch,
  LabelOS,
  LabelWindowsBuild,
  LabelInstanceCategory,
  LabelInstanceFamily,
  LabelInstanceGeneration,
  LabelInstanceSize,
  LabelInstanceCPU,
  LabelInstanceCPUManufacturer,
  LabelInstanceCPUSustainedClockSpeedMhz,
  LabelInstanceMemory,
  LabelInstanceEBSBandwidth,
  LabelInstanceNetworkBandwidth,
  LabelInstanceHypervisor,
  LabelInstanceEncryptionInTransitSupported,
  LabelInstanceLocalNVME,
  LabelInstanceGPUName,
  LabelInstanceGPUManufacturer,
  LabelInstanceGPUCount,
  LabelInstanceGPUMemory,
  LabelInstanceAcceleratorName,
  LabelInstanceAcceleratorManufacturer,
  LabelInstanceAcceleratorCount,
  LabelInstanceCapacityFlex,
  LabelEC2NodeClass,
  LabelCapacityReservationId,
  LabelCapacityReservationType,
  LabelCapacityReservationInterruptible,
]);

/**
 * Label domains a pod may not select on (Karpenter rejects them: they are set by the kubelet or would let a pod
 * claim control-plane identity).
 */
export const RestrictedLabelDomains: readonly string[] = [
  'kubernetes.io',
  'k8s.io',
  'karpenter.sh',
  'karpenter.k8s.aws',
];
/** Exceptions inside the restricted domains that users may set on NodePools. */
export const LabelDomainExceptions: readonly string[] = [
  'kops.k8s.io',
  'node.kubernetes.io',
  'node-restriction.kubernetes.io',
];
