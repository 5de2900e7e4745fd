// The cluster's objects by kind, under the names every reader gives them: a set of manifests (manifest-set.ts), the
// snapshot a provisioning pass reads (shared/controllers/snapshot.ts) and the objects a simulation starts from
// (shared/sim/simulation.ts) are each made of these lists.
import type { CapacityReservationInput } from './capacity-reservation';
import type { NodeClaimObject } from './cluster-state';
import type { EC2NodeClass, NodePool } from './karpenter';
import type * as kube from './kube';
import type { NodeOverlay } from './nodeoverlay';

export interface ClusterObjects {
  nodePools: NodePool[];
  nodeClasses: EC2NodeClass[];
  /** Applied to every NodePool's instance types before a solve (docs/api.md, "NodeOverlay"). */
  nodeOverlays: NodeOverlay[];
  pods: kube.Pod[];
  daemonSets: kube.DaemonSet[];
  pdbs: kube.PodDisruptionBudget[];
  nodes: kube.Node[];
  pvcs: kube.PersistentVolumeClaim[];
  pvs: kube.PersistentVolume[];
  storageClasses: kube.StorageClass[];
  namespaces: kube.Namespace[];
  /** Karpenter's NodeClaims from a cluster dump: launched ones are in-flight capacity (docs/simulate-dump.md). */
  nodeClaims: NodeClaimObject[];
  /** Per-node CSI attach limits (CSINodes). */
  csiNodes: kube.CSINode[];
  /** The simulator's capacity reservations (CapacityReservation documents; docs/scenarios.md, Capacity reservations). */
  capacityReservations: CapacityReservationInput[];
}
