// A time-stepped scenario (apiVersion karpless.dev/v1alpha1, kind Scenario), parsed and validated: durations in ms,
// manifests already read, so a run never fails on a typo halfway through.

import type { ManifestSet } from '../../api/manifest-set';
import type { CapacityType } from '../../catalog/types';
import type { DisruptionSettings } from '../../disruption';
import type { CloudStepAction } from './cloud-steps';
import type { ObjectStepAction } from './object-steps';
import type { ReservationStepAction } from './reservation-step';
import type { SeedAction } from './seed';

export const SCENARIO_API_VERSION = 'karpless.dev/v1alpha1';

export const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'ReplicaSet', 'Job'] as const;
export type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

export const DELETABLE_KINDS = [...WORKLOAD_KINDS, 'Pod', 'NodeOverlay', 'NodeClaim', 'NodePool'] as const;
/** Deletable kinds that live outside any namespace. */
export const CLUSTER_SCOPED_DELETABLE: readonly DeletableKind[] = ['NodeOverlay', 'NodeClaim', 'NodePool'];
export type DeletableKind = (typeof DELETABLE_KINDS)[number];

export const PATCHABLE_KINDS = ['NodePool', 'EC2NodeClass'] as const;
export type PatchableKind = (typeof PATCHABLE_KINDS)[number];

export interface ObjectTarget<K extends string = string> {
  kind: K;
  namespace: string;
  name: string;
}

export type StepAction =
  | { type: 'apply'; set: ManifestSet; sources: string[] }
  | { type: 'scale'; target: ObjectTarget<WorkloadKind>; replicas: number }
  /** `kubectl scale nodepool`: a static NodePool's spec.replicas (shared/sim/scenario/nodepool-scale.ts). */
  | { type: 'scaleNodePool'; name: string; replicas: number }
  | { type: 'delete'; targets: ObjectTarget<DeletableKind>[] }
  | { type: 'patch'; target: ObjectTarget<PatchableKind>; mergePatch: Record<string, unknown> }
  | ObjectStepAction
  | CloudStepAction
  | ReservationStepAction
  | SeedAction
  | {
      type: 'interrupt';
      nodeClaim?: string;
      instanceType?: string;
      zone?: string;
      capacityType?: CapacityType;
    };

export interface ScenarioStep {
  /** Offset from the start, ms. */
  at: number;
  /** Repeat every this many ms until the scenario ends (an extension for diurnal workloads). */
  every?: number;
  /** Where the step is written: `spec.steps[3]`, for errors found while running. */
  path: string;
  action: StepAction;
}

export interface Scenario {
  file: string;
  name: string;
  nodeReadyAfter: number;
  sweepEvery: number;
  until: number;
  /** The cluster's disruption settings (`spec.settings`); defaults when absent. */
  settings?: DisruptionSettings;
  steps: ScenarioStep[];
  /** Warnings from reading manifests (skipped kinds, conversions). */
  warnings: string[];
}
