// Everything read from a set of manifests, sorted by kind. Arrays keep file order, so results are deterministic.
import type { CapacityReservationInput } from './capacity-reservation';
import type { NodeClaimObject } from './cluster-state';
import type { EC2NodeClass, NodePool } from './karpenter';
import type {
  CSINode,
  DaemonSet,
  Deployment,
  Job,
  Namespace,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  PodDisruptionBudget,
  PriorityClass,
  ReplicaSet,
  RuntimeClass,
  StatefulSet,
  StorageClass,
} from './kube';
import type { NodeOverlay } from './nodeoverlay';

export interface ManifestSet {
  nodePools: NodePool[];
  nodeClasses: EC2NodeClass[];
  nodeOverlays: NodeOverlay[];
  pods: Pod[];
  deployments: Deployment[];
  replicaSets: ReplicaSet[];
  statefulSets: StatefulSet[];
  jobs: Job[];
  daemonSets: DaemonSet[];
  pdbs: PodDisruptionBudget[];
  nodes: Node[];
  pvcs: PersistentVolumeClaim[];
  pvs: PersistentVolume[];
  storageClasses: StorageClass[];
  priorityClasses: PriorityClass[];
  namespaces: Namespace[];
  /** Cluster state from a dump (docs/simulate-dump.md): Karpenter's NodeClaims, CSINodes, RuntimeClasses. */
  nodeClaims: NodeClaimObject[];
  csiNodes: CSINode[];
  runtimeClasses: RuntimeClass[];
  /** The simulator's capacity reservations (CapacityReservation documents; docs/scenarios.md, Capacity reservations). */
  capacityReservations: CapacityReservationInput[];
  /** Unknown kinds skipped, conversions made, fields that changed meaning: print them. */
  warnings: string[];
}

export function emptyManifestSet(): ManifestSet {
  return {
    nodePools: [],
    nodeClasses: [],
    nodeOverlays: [],
    pods: [],
    deployments: [],
    replicaSets: [],
    statefulSets: [],
    jobs: [],
    daemonSets: [],
    pdbs: [],
    nodes: [],
    pvcs: [],
    pvs: [],
    storageClasses: [],
    priorityClasses: [],
    namespaces: [],
    nodeClaims: [],
    csiNodes: [],
    runtimeClasses: [],
    capacityReservations: [],
    warnings: [],
  };
}
