// The solver's public contract. The provisioner, consolidation, the simulator and the benchmark all call `solve`
// with this input and read this result; nothing else about the solver is public.
import type { EC2NodeClass, NodePool, NodeSelectorRequirementWithMinValues } from '../api/karpenter';
import type {
  DaemonSet,
  Namespace,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  StorageClass,
  Taint,
} from '../api/kube';
import type { ResourceList } from '../api/resources';
import type { AppliedCapacityOverlay, AppliedPriceOverlay, CapacityType, InstanceType } from '../catalog/types';

/** A node the cluster already has, or an in-flight NodeClaim that will become one. Filled before new capacity. */
export interface ClusterNode {
  /** Node name, or the NodeClaim name while it has not registered. */
  name: string;
  nodeClaim?: string;
  nodePool?: string;
  /** Includes hostname, zone, instance type, capacity type and the NodePool's labels. */
  labels: Record<string, string>;
  taints: Taint[];
  /** Taints expected to disappear once the node initializes; ignored while `inflight`. */
  startupTaints?: Taint[];
  allocatable: ResourceList;
  /** Pods bound or nominated to it; they count for resources, host ports, topology and anti-affinity. */
  pods: Pod[];
  /** Launched or launching but not yet initialized. */
  inflight: boolean;
  /** Volume attach limits per CSI driver: the node's CSINode `drivers[].allocatable.count`, or, before its CSINode
   * exists, its instance type's (docs/simulate-dump.md, Volume attach limits). Absent: no limit. */
  volumeLimits?: Record<string, number>;
  /** Being disrupted: takes no new pods, but its pods still count for topology. */
  markedForDeletion?: boolean;
  pricePerHour?: number;
  instanceType?: string;
  capacityType?: CapacityType;
}

export type MinValuesPolicy = 'Strict' | 'BestEffort';
export type PreferencePolicy = 'Respect' | 'Ignore';

export interface SchedulingOptions {
  /** Cut each NodeClaim's instance-type options to this many cheapest types (minValues permitting). Default 60. */
  maxInstanceTypes?: number;
  /** The solve's time budget on the `now` clock: past it the solver stops and returns the plan so far, with the pods
   * it did not get to in `deferred` (docs/performance.md, A deadline that holds). */
  timeoutMs?: number;
  /** Names new NodeClaims; default `<nodepool>-<n>` with n counting from 1. */
  nameNodeClaim?: (nodePool: string, index: number) => string;
  /** Skip new capacity: only existing nodes may take pods (consolidation's "can these pods move?" question). */
  existingNodesOnly?: boolean;
  /** Clock for the timeout; injected so simulations stay deterministic. */
  now?: () => number;
  /** Wall-clock budget for packing small batches exactly (exact/repack.ts); 0 keeps the heuristic's plan. */
  exactPackingMs?: number;
  /** Karpenter's MinValuesPolicy: Strict (default) leaves a pod unplaced rather than break a NodePool's minValues;
   * BestEffort plans the claim anyway and lowers each unmet minValues to what its instance types offer. */
  minValuesPolicy?: MinValuesPolicy;
  /** Karpenter's PreferencePolicy: Respect (default) treats preferences as requirements until relaxed; Ignore drops
   * preferred node and pod (anti-)affinity and ScheduleAnyway spreads before planning. */
  preferencePolicy?: PreferencePolicy;
}

export interface SchedulingInput {
  pods: Pod[];
  nodePools: NodePool[];
  nodeClasses?: EC2NodeClass[];
  /** The instance types each NodePool may use, keyed by NodePool name, already resolved through its EC2NodeClass. */
  instanceTypes: Map<string, InstanceType[]>;
  existingNodes?: ClusterNode[];
  daemonSets?: DaemonSet[];
  pvcs?: PersistentVolumeClaim[];
  pvs?: PersistentVolume[];
  storageClasses?: StorageClass[];
  namespaces?: Namespace[];
  /** Resources already in use per NodePool, for `limits`; derived from existingNodes when absent. */
  nodePoolUsage?: Map<string, ResourceList>;
  options?: SchedulingOptions;
}

export interface PlannedOffering {
  instanceType: string;
  zone: string;
  capacityType: CapacityType;
  price: number;
  /** The NodeOverlay that set this price, when one did (shared/catalog/overlay.ts). */
  overlay?: AppliedPriceOverlay;
  /** Extended resources NodeOverlays added to this type. */
  capacityOverlays?: Record<string, AppliedCapacityOverlay>;
}

export interface PlannedNodeClaim {
  name: string;
  nodePool: string;
  nodeClass: string;
  /** The NodeClaim's final requirements: the NodePool's, narrowed by its pods, with minValues kept. */
  requirements: NodeSelectorRequirementWithMinValues[];
  /** Whether a minValues was lowered to what the options offer (MinValuesPolicy BestEffort). */
  minValuesRelaxed: boolean;
  /** Instance types that fit all its pods, cheapest first, at most `maxInstanceTypes`. */
  instanceTypeOptions: InstanceType[];
  labels: Record<string, string>;
  taints: Taint[];
  startupTaints: Taint[];
  pods: Pod[];
  /** Pods' requests plus DaemonSet overhead. */
  requests: ResourceList;
  daemonSetOverhead: ResourceList;
  /** What CreateFleet with lowest-price would pick among the options and allowed offerings. */
  cheapest: PlannedOffering;
  /** The next cheapest options' cheapest offerings (at most ALTERNATIVES_IN_PLAN in shared/scheduling/nodeclaim.ts),
   * so a decision record can say what the chosen type beat and which NodeOverlays priced them. */
  alternatives?: PlannedOffering[];
}

export interface UnschedulablePod {
  pod: Pod;
  /** Names the NodePools tried and, for each, the first constraint that failed. */
  reason: string;
}

export interface SchedulingResult {
  nodeClaims: PlannedNodeClaim[];
  existingNodes: { name: string; pods: Pod[] }[];
  unschedulable: UnschedulablePod[];
  /** Pods not tried (or not retried) before the time budget ran out; they may well fit, so the next pass plans them.
   * Absent from results built without a budget. */
  deferred?: Pod[];
  warnings: string[];
  stats: {
    pods: number;
    durationMs: number;
    relaxations: number;
    /** The time budget ran out with pods deferred. */
    timedOut: boolean;
    /** How the new capacity was packed; absent when no new claim's pods could be packed exactly. */
    packing?: PackingStats;
  };
}

/** What the exact packing proved about the new NodeClaims (exact/repack.ts). */
export interface PackingStats {
  /** Pods on new NodeClaims. */
  newPods: number;
  /** Of those, pods whose packing the integer program judged; the rest (topology, host ports) kept the heuristic's. */
  exactPods: number;
  /** Every new NodeClaim's packing is proven optimal. */
  provenOptimal: boolean;
  /** Cost of the exactly judged claims, and a lower bound on any packing of their pods ($/h). */
  costPerHour: number;
  boundPerHour: number;
}
