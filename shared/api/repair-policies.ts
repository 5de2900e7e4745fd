// The node conditions node repair acts on (docs/disruption.md, Node repair): the decision is in
// shared/disruption/repair.ts, and the forwarder fingerprints the same condition types, so the table lives below both
// (docs/architecture.md, "Layers").
import type { ConditionStatus } from './kube';

export interface RepairPolicy {
  conditionType: string;
  conditionStatus: ConditionStatus;
  /** How long the condition may hold before the node is repaired. */
  tolerationMs: number;
}

const MINUTE = 60_000;

/** Karpenter's AWS provider policies: the kubelet's Ready condition, and the conditions the EKS node monitoring
 * agent publishes (accelerated hardware, storage, networking, kernel, container runtime). */
export const AWS_REPAIR_POLICIES: readonly RepairPolicy[] = [
  { conditionType: 'Ready', conditionStatus: 'False', tolerationMs: 30 * MINUTE },
  { conditionType: 'Ready', conditionStatus: 'Unknown', tolerationMs: 30 * MINUTE },
  { conditionType: 'AcceleratedHardwareReady', conditionStatus: 'False', tolerationMs: 10 * MINUTE },
  { conditionType: 'StorageReady', conditionStatus: 'False', tolerationMs: 30 * MINUTE },
  { conditionType: 'NetworkingReady', conditionStatus: 'False', tolerationMs: 30 * MINUTE },
  { conditionType: 'KernelReady', conditionStatus: 'False', tolerationMs: 30 * MINUTE },
  { conditionType: 'ContainerRuntimeReady', conditionStatus: 'False', tolerationMs: 30 * MINUTE },
];

/** The condition types any policy watches: what the forwarder fingerprints (forwarder/slim.ts). */
export const REPAIR_CONDITION_TYPES: readonly string[] = [...new Set(AWS_REPAIR_POLICIES.map((p) => p.conditionType))];
