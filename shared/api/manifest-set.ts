// Everything read from a set of manifests, sorted by kind. Arrays keep file order, so results are deterministic.
import type { ClusterObjects } from './cluster-objects';
import type { Deployment, Job, PriorityClass, ReplicaSet, RuntimeClass, StatefulSet } from './kube';

/** The cluster's objects, the workloads that expand into pods, and what loading them found. */
export interface ManifestSet extends ClusterObjects {
  deployments: Deployment[];
  replicaSets: ReplicaSet[];
  statefulSets: StatefulSet[];
  jobs: Job[];
  priorityClasses: PriorityClass[];
  runtimeClasses: RuntimeClass[];
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
