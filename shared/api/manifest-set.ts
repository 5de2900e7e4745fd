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
  /** Objects a later input replaced by name, in the order met (docs/simulate-dump.md, "Layered inputs"). */
  replaced: Replacement[];
}

/** An object of an earlier input that a later input's object of the same kind and name replaced. */
export interface Replacement {
  kind: string;
  name: string;
  /** Where the replaced object and its replacement were read, as `file#document`. */
  replaced: string;
  by: string;
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
    replaced: [],
  };
}
