// The simulated API server's plain objects, one list per kind in the order they were written: what the engine only
// lists (DaemonSets, PDBs, volumes, storage classes, namespaces, CSINodes) and the Karpenter objects a simulation
// writes with `kubectl apply` and `kubectl delete`. Pods and Nodes, which the simulated kubelet and kube-scheduler
// act on, stay with SimCluster.
import type { EC2NodeClass, NodePool } from '../api/karpenter';
import type * as kube from '../api/kube';
import type { NodeOverlay } from '../api/nodeoverlay';
import { staticTransitionError } from '../api/static-nodepool';
import type { StatusUpdate } from '../api/status';
import { ValidationError } from '../errors';
import { serverUids } from './server-uid';

/** Each kind the store holds, by its `kind`. */
export interface StoredKinds {
  DaemonSet: kube.DaemonSet;
  PodDisruptionBudget: kube.PodDisruptionBudget;
  PersistentVolumeClaim: kube.PersistentVolumeClaim;
  PersistentVolume: kube.PersistentVolume;
  StorageClass: kube.StorageClass;
  Namespace: kube.Namespace;
  CSINode: kube.CSINode;
  NodePool: NodePool;
  EC2NodeClass: EC2NodeClass;
  NodeOverlay: NodeOverlay;
}

export type StoredKind = keyof StoredKinds;

/** The objects `kubectl apply` writes while a simulation runs. */
export type ClusterObject = NodePool | EC2NodeClass | NodeOverlay | kube.PodDisruptionBudget;

type Named = { metadata: { name: string; namespace?: string } };

export class SimObjects {
  private readonly lists: { [K in StoredKind]: StoredKinds[K][] } = {
    DaemonSet: [],
    PodDisruptionBudget: [],
    PersistentVolumeClaim: [],
    PersistentVolume: [],
    StorageClass: [],
    Namespace: [],
    CSINode: [],
    NodePool: [],
    EC2NodeClass: [],
    NodeOverlay: [],
  };
  private readonly nodePoolUid = serverUids('nodepool');

  /** Adds a loaded object of a kind the store holds (a NodePool with the UID the server stamps); false for any
   * other kind. */
  add(object: { kind?: string }): boolean {
    const kind = object.kind;
    if (!kind || !Object.hasOwn(this.lists, kind)) return false;
    if (kind === 'NodePool') this.lists.NodePool.push(this.nodePoolUid(object as NodePool));
    else (this.lists[kind as StoredKind] as unknown[]).push(object);
    return true;
  }

  /** A copy of the kind's list, in the order written. */
  list<K extends StoredKind>(kind: K): StoredKinds[K][] {
    const list: StoredKinds[K][] = this.lists[kind];
    return [...list];
  }

  /** Replaces a NodePool, EC2NodeClass, NodeOverlay or PodDisruptionBudget of the same name (an update through the
   * API), or adds it; returns it as stored (a NodePool with the UID the server stamped). */
  upsert(object: ClusterObject): ClusterObject {
    if (object.kind === 'NodePool') {
      // The API server refuses what Karpenter's CRD refuses on an update (shared/api/crds/nodepool.ts).
      const before = this.lists.NodePool.find((p) => p.metadata.name === object.metadata.name);
      const refused = before && staticTransitionError(before, object);
      if (refused) throw new ValidationError([refused]);
      return put(this.lists.NodePool, this.nodePoolUid(object, before));
    }
    if (object.kind === 'NodeOverlay') return put(this.lists.NodeOverlay, object);
    if (object.kind === 'PodDisruptionBudget') return put(this.lists.PodDisruptionBudget, object);
    return put(this.lists.EC2NodeClass, object);
  }

  /** Deletes the object of the kind and name at once; false when there is none. */
  remove(kind: 'NodeOverlay' | 'EC2NodeClass' | 'NodePool', name: string): boolean {
    const list: Named[] = this.lists[kind];
    const i = list.findIndex((o) => o.metadata.name === name);
    if (i >= 0) list.splice(i, 1);
    return i >= 0;
  }

  /** Marks a NodePool deleted at `at` (another actor's finalizer holds it); false when there is none. */
  markNodePoolDeleted(name: string, at: string): boolean {
    const pools = this.lists.NodePool;
    const i = pools.findIndex((p) => p.metadata.name === name);
    const pool = pools[i];
    if (!pool) return false;
    // Replaced, not mutated: hashes are cached per object.
    const deletionTimestamp = pool.metadata.deletionTimestamp ?? at;
    pools.splice(i, 1, { ...pool, metadata: { ...pool.metadata, deletionTimestamp } });
    return true;
  }

  replaceStatus(update: StatusUpdate): 'replaced' | 'gone' {
    // Replaced, not mutated, as the API server's objects are: readers keep the object they listed.
    const list: (NodePool | EC2NodeClass)[] = this.lists[update.kind];
    const i = list.findIndex((o) => o.metadata.name === update.name);
    const current = list[i];
    if (!current) return 'gone';
    list.splice(i, 1, { ...current, status: update.status } as NodePool | EC2NodeClass);
    return 'replaced';
  }
}

/** Puts `o` in place of the object of its name (and namespace) in `list`, or adds it; returns `o`. */
function put<T extends Named>(list: T[], o: T): T {
  const ns = o.metadata.namespace ?? 'default';
  const i = list.findIndex((x) => x.metadata.name === o.metadata.name && (x.metadata.namespace ?? 'default') === ns);
  if (i >= 0) list.splice(i, 1, o);
  else list.push(o);
  return o;
}
