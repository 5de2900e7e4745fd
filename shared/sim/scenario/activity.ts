// What the cluster's watch stream tells the disruption sweep and the observer, tracked from SimCluster changes and
// events: when each node last gained or lost a pod, when pods were last nominated to it, which node each bound pod
// is on (so a removed pod can be traced to the node it left), and removals for the observer.
import type { Pod } from '../../api/kube';
import type { SimCluster } from '../sim-cluster';

export interface PodRemoval {
  pod: Pod;
  node: string;
  /** Evicted through the Eviction API, or deleted with its node (or by a scale-down). */
  how: 'evicted' | 'deleted';
}

const NOMINATED_NODE = /node\/(\S+)$/;

export class ClusterActivity {
  readonly lastPodEventAt = new Map<string, number>();
  readonly nominatedAt = new Map<string, number>();
  private readonly boundPods = new Map<string, { pod: Pod; node: string }>();
  private readonly removalListeners: ((r: PodRemoval) => void)[] = [];
  private eventsSeen = 0;
  evictions = 0;
  /** Every change seen; the sweep skips re-deciding an unchanged cluster. */
  changes = 0;
  nodeChanged = false;
  podsPending = 0;

  constructor(
    private readonly cluster: SimCluster,
    private readonly clock: { now(): number },
  ) {
    cluster.onChange((change) => {
      const now = clock.now();
      this.changes++;
      switch (change.type) {
        case 'pod-bound': {
          const pod = cluster.getPod(change.pod);
          if (pod) this.boundPods.set(change.pod, { pod: structuredClone(pod), node: change.node });
          this.lastPodEventAt.set(change.node, now);
          break;
        }
        case 'pod-evicted':
        case 'pod-deleted': {
          const bound = this.boundPods.get(change.pod);
          if (change.type === 'pod-evicted') this.evictions++;
          if (!bound) break;
          this.boundPods.delete(change.pod);
          this.lastPodEventAt.set(bound.node, now);
          const removal: PodRemoval = {
            pod: bound.pod,
            node: bound.node,
            how: change.type === 'pod-evicted' ? 'evicted' : 'deleted',
          };
          for (const l of this.removalListeners) l(removal);
          break;
        }
        case 'pod-pending':
          this.podsPending++;
          break;
        case 'pod-updated':
          // A pod that completes is a pod event on its node, as Karpenter's pod-events controller counts it.
          if (change.node) this.lastPodEventAt.set(change.node, now);
          break;
        case 'node-updated':
          break;
        case 'node-registered':
        case 'node-ready':
        case 'node-deleted':
          this.nodeChanged = true;
          break;
      }
    });
  }

  onRemoval(listener: (r: PodRemoval) => void): void {
    this.removalListeners.push(listener);
  }

  /** Cluster events recorded since the last call (Nominated, FailedScheduling, ...). Nominations to running nodes
   * are noted for the sweep's nomination protection. */
  newEvents(): SimCluster['events'] {
    const fresh = this.cluster.events.slice(this.eventsSeen);
    this.eventsSeen = this.cluster.events.length;
    const now = this.clock.now();
    for (const e of fresh) {
      const node = e.reason === 'Nominated' ? NOMINATED_NODE.exec(e.message)?.[1] : undefined;
      if (node) this.nominatedAt.set(node, now);
    }
    return fresh;
  }

  /** Resets the pending counter and says whether pods turned pending since the last call. */
  takePending(): number {
    const n = this.podsPending;
    this.podsPending = 0;
    return n;
  }

  takeNodeChanged(): boolean {
    const changed = this.nodeChanged;
    this.nodeChanged = false;
    return changed;
  }
}
