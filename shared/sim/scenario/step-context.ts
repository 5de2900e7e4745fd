// What a scenario step reads and changes while it is applied (steps.ts): the simulated world, the workloads and the
// forwarder's batch it feeds, and the run's warnings and timeline.
import type { EC2NodeClass } from '../../api/karpenter';
import type { PodDisruptionBudget } from '../../api/kube';
import type { InstanceType } from '../../catalog/types';
import type { SimulationEngine } from '../simulation';
import type { SimWorld } from '../world';
import type { ForwarderBatch } from './forwarder-batch';
import type { Recorder } from './recorder';
import type { WorkloadController } from './workloads';

/** An instance an interruption warned of, reclaimed by EC2 when the warning runs out. */
export interface Reclaim {
  at: number;
  instanceId: string;
}

export interface StepContext {
  /** The scenario's file, which errors found while running name. */
  readonly scenarioFile: string;
  readonly clusterName: string;
  readonly world: SimWorld;
  readonly engine: Pick<SimulationEngine, 'defaultNodePool'>;
  readonly instanceTypesFor: (nodeClass: EC2NodeClass) => InstanceType[];
  readonly workloads: WorkloadController;
  readonly batch: ForwarderBatch;
  readonly recorder: Recorder;
  readonly warnings: string[];
  /** PodDisruptionBudgets change only when a step applies manifests; the observer reads them synchronously. */
  pdbs: PodDisruptionBudget[];
  /** Counts the steps applied: part of the signature the disruption driver re-plans on (disruption-driver.ts). */
  objectsVersion: number;
  /** Instances warned by an interrupt step, still to be reclaimed. */
  readonly reclaims: Reclaim[];
  /** Interruption events sent so far; each takes the next number as its event id. */
  interruptions: number;
}
