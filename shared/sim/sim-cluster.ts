// A simulated Kubernetes cluster held in memory: the ClusterApi the engine talks to in simulations and tests.
// Launched instances register as Nodes after a delay and turn Ready later, on the virtual clock; evictions honour
// PodDisruptionBudgets the way the Eviction API does (a 429 becomes 'blocked'). kube-scheduler's part, binding
// nominated pods once their node can take them, is played by SimScheduler unless turned off.

import type { EC2NodeClass, NodePool } from '../api/karpenter';
import type {
  CSINode,
  DaemonSet,
  Namespace,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  PodDisruptionBudget,
  PodRef,
  StorageClass,
  Taint,
} from '../api/kube';
import { podKey } from '../api/kube';
import { FinalizerTermination, TaintDisrupted } from '../api/labels';
import { lacksFinalizer, type NodeClaimObject } from '../api/nodeclaim-object';
import type { NodeOverlay } from '../api/nodeoverlay';
import { staticTransitionError } from '../api/static-nodepool';
import type { StatusUpdate } from '../api/status';
import { computedDisruptionsAllowed, selects } from '../disruption/pdb';
import { ValidationError } from '../errors';
import type { BindOutcome, ClusterApi, ClusterEvent, EvictionOutcome, NodeSync } from '../ports';
import { launchedNodeLabels, launchedNodeResources } from './launched-node';
import { createRng, type Rng } from './rng';
import { serverUids } from './server-uid';
import type { SimLaunch } from './sim-cloud';
import { nominationTarget, SimScheduler } from './sim-scheduler';
import type { VirtualClock } from './virtual-clock';

export interface SimClusterOptions {
  clock: VirtualClock;
  seed?: number;
  /** From launch to the Node object appearing. */
  registrationDelayMs?: number;
  /** From registration to the Ready condition turning True. */
  readyDelayMs?: number;
  /** Evicted or orphaned pods owned by a controller come back pending, as their controller would recreate them. */
  replaceEvictedPods?: boolean;
  /** Play kube-scheduler: bind nominated pods to their node once it can take them (default on, as every cluster
   * runs one). Off, only `bindPod` callers bind: tests of Karpless's own opt-in binding, or of nobody binding. */
  kubeScheduler?: boolean;
}

export type ClusterChange =
  | { type: 'node-registered' | 'node-ready' | 'node-deleted'; node: string }
  | { type: 'pod-bound'; pod: string; node: string }
  | { type: 'pod-evicted' | 'pod-deleted' | 'pod-pending'; pod: string }
  /** Someone else changed an object through the API (a scenario step); `node` is the pod's node, if bound. */
  | { type: 'node-updated'; node: string }
  | { type: 'pod-updated'; pod: string; node?: string }
  /** A NodeClaim object got its deletion mark (`kubectl delete nodeclaim`) or went away; the mirror's own writes are
   * not reported (the forwarder's watch ignores them). */
  | { type: 'nodeclaim-object-updated'; nodeClaim: string };

export interface RecordedEvent extends ClusterEvent {
  at: string;
}

type Kinded = { kind?: string };

/** The objects `kubectl apply` writes while a simulation runs. */
export type ClusterObject = NodePool | EC2NodeClass | NodeOverlay | PodDisruptionBudget;

/** Puts `o` in place of the object of its name (and namespace) in `list`, or adds it; returns `o`. */
function put<T extends { metadata: { name: string; namespace?: string } }>(list: T[], o: T): T {
  const ns = o.metadata.namespace ?? 'default';
  const i = list.findIndex((x) => x.metadata.name === o.metadata.name && (x.metadata.namespace ?? 'default') === ns);
  if (i >= 0) list.splice(i, 1, o);
  else list.push(o);
  return o;
}

export class SimCluster implements ClusterApi {
  readonly events: RecordedEvent[] = [];
  private readonly pods = new Map<string, Pod>();
  private readonly nodes = new Map<string, Node>();
  private readonly daemonSets: DaemonSet[] = [];
  private readonly pdbs: PodDisruptionBudget[] = [];
  private readonly pvcs: PersistentVolumeClaim[] = [];
  private readonly pvs: PersistentVolume[] = [];
  private readonly storageClasses: StorageClass[] = [];
  private readonly namespaces: Namespace[] = [];
  private readonly nodePools: NodePool[] = [];
  private readonly nodePoolUid = serverUids('nodepool');
  private readonly nodeClasses: EC2NodeClass[] = [];
  private readonly nodeOverlays: NodeOverlay[] = [];
  /** The karpenter.sh/v1 NodeClaim objects the mirror writes (shared/controllers/nodeclaim-mirror.ts), by name. */
  private readonly nodeClaimObjects = new Map<string, NodeClaimObject>();
  private nodeClaimVersion = 0;
  private readonly csiNodes: CSINode[] = [];
  private readonly listeners: ((change: ClusterChange) => void)[] = [];
  private readonly rng: Rng;
  private readonly clock: VirtualClock;
  private readonly scheduler: SimScheduler | undefined;

  constructor(private readonly options: SimClusterOptions) {
    this.clock = options.clock;
    this.rng = createRng(options.seed ?? 1);
    this.scheduler =
      options.kubeScheduler === false
        ? undefined
        : new SimScheduler({
            node: (name) => this.nodes.get(name),
            nodes: () => this.nodes.values(),
            pod: (key) => this.pods.get(key),
            pods: () => this.pods.values(),
            bind: (key, nodeName) => {
              const pod = this.pods.get(key);
              if (pod) this.bindNow(pod, nodeName);
            },
          });
  }

  /** Adds parsed objects by kind; unknown kinds are ignored (workloads are expanded into pods beforehand). */
  load(objects: Iterable<Kinded>): this {
    for (const o of objects) {
      switch (o.kind) {
        case 'Pod':
          this.addPod(o as Pod);
          break;
        case 'Node':
          this.addNode(o as Node);
          break;
        case 'DaemonSet':
          this.daemonSets.push(o as DaemonSet);
          break;
        case 'PodDisruptionBudget':
          this.pdbs.push(o as PodDisruptionBudget);
          break;
        case 'PersistentVolumeClaim':
          this.pvcs.push(o as PersistentVolumeClaim);
          break;
        case 'PersistentVolume':
          this.pvs.push(o as PersistentVolume);
          break;
        case 'StorageClass':
          this.storageClasses.push(o as StorageClass);
          break;
        case 'Namespace':
          this.namespaces.push(o as Namespace);
          break;
        case 'NodePool':
          this.nodePools.push(this.nodePoolUid(o as NodePool));
          break;
        case 'EC2NodeClass':
          this.nodeClasses.push(o as EC2NodeClass);
          break;
        case 'NodeOverlay':
          this.nodeOverlays.push(o as NodeOverlay);
          break;
        case 'CSINode':
          this.csiNodes.push(o as CSINode);
          break;
      }
    }
    return this;
  }

  addPod(pod: Pod): void {
    const stored: Pod = {
      ...pod,
      metadata: { ...pod.metadata, uid: pod.metadata.uid ?? this.newUid() },
      status: { ...pod.status, phase: pod.status?.phase ?? (pod.spec.nodeName ? 'Running' : 'Pending') },
    };
    this.pods.set(podKey(stored), stored);
    this.scheduler?.forget(podKey(stored));
    if (stored.spec.nodeName) this.scheduler?.invalidate(stored.spec.nodeName);
    // A pod added already bound (a seeded one) is a pod arriving on its node, for whoever watches.
    if (stored.spec.nodeName) this.emit({ type: 'pod-bound', pod: podKey(stored), node: stored.spec.nodeName });
  }

  addNode(node: Node): void {
    this.nodes.set(node.metadata.name, node);
    this.scheduler?.nodeChanged(node.metadata.name);
  }

  /** Changes a Node as another actor would through the API (labels, annotations, taints, conditions). */
  updateNode(name: string, change: (node: Node) => Node): void {
    const node = this.nodes.get(name);
    if (!node) return;
    this.nodes.set(name, change(node));
    this.emit({ type: 'node-updated', node: name });
    this.scheduler?.nodeChanged(name);
  }

  /** Changes a pod as another actor would (labels, annotations, its phase when it completes). */
  updatePod(key: string, change: (pod: Pod) => Pod): void {
    const pod = this.pods.get(key);
    if (!pod) return;
    const changed = change(pod);
    this.pods.set(key, changed);
    this.emit({ type: 'pod-updated', pod: key, ...(changed.spec.nodeName ? { node: changed.spec.nodeName } : {}) });
    // A pod that completed frees its requests on the node.
    if (changed.spec.nodeName) this.scheduler?.nodeChanged(changed.spec.nodeName);
  }

  /** Deletes a pod for good (a scale-down or a deleted workload): unlike an eviction, nothing recreates it. */
  deletePod(ref: PodRef | string): boolean {
    const pod = this.getPod(ref);
    if (!pod) return false;
    const k = podKey(pod);
    this.pods.delete(k);
    this.scheduler?.forget(k);
    this.emit({ type: 'pod-deleted', pod: k });
    if (pod.spec.nodeName) this.scheduler?.nodeChanged(pod.spec.nodeName);
    return true;
  }

  /** Replaces a NodePool, EC2NodeClass, NodeOverlay or PodDisruptionBudget of the same name (an update through the
   * API), or adds it; returns it as stored (a NodePool with the UID the server stamped). */
  upsert(object: ClusterObject): ClusterObject {
    if (object.kind === 'NodePool') {
      // The API server refuses what Karpenter's CRD refuses on an update (shared/api/crds/nodepool.ts).
      const before = this.nodePools.find((p) => p.metadata.name === object.metadata.name);
      const refused = before && staticTransitionError(before, object);
      if (refused) throw new ValidationError([refused]);
      return put(this.nodePools, this.nodePoolUid(object, before));
    }
    if (object.kind === 'NodeOverlay') return put(this.nodeOverlays, object);
    if (object.kind === 'PodDisruptionBudget') return put(this.pdbs, object);
    return put(this.nodeClasses, object);
  }

  /** `kubectl delete nodeoverlay|nodepool|ec2nodeclass`: gone at once (Karpless puts no finalizer on them), or, a
   * NodePool `held`, only marked as when another actor's finalizer holds it. False when there is none of that name. */
  deleteNodeOverlay = (name: string): boolean => this.remove(this.nodeOverlays, name);
  deleteNodeClass = (name: string): boolean => this.remove(this.nodeClasses, name);
  deleteNodePool(name: string, options: { held?: boolean } = {}): boolean {
    const i = this.nodePools.findIndex((p) => p.metadata.name === name);
    const pool = this.nodePools[i];
    if (!pool || !options.held) return this.remove(this.nodePools, name);
    // Replaced, not mutated: hashes are cached per object.
    const deletionTimestamp = pool.metadata.deletionTimestamp ?? this.clock.iso();
    this.nodePools.splice(i, 1, { ...pool, metadata: { ...pool.metadata, deletionTimestamp } });
    return true;
  }

  private remove<T extends { metadata: { name: string } }>(list: T[], name: string): boolean {
    const i = list.findIndex((o) => o.metadata.name === name);
    if (i >= 0) list.splice(i, 1);
    return i >= 0;
  }

  /** Every pod, bound or pending, in insertion order. */
  allPods(): Pod[] {
    return [...this.pods.values()];
  }

  getPod(ref: PodRef | string): Pod | undefined {
    return this.pods.get(typeof ref === 'string' ? ref : `${ref.namespace}/${ref.name}`);
  }

  getNode(name: string): Node | undefined {
    return this.nodes.get(name);
  }

  onChange(listener: (change: ClusterChange) => void): void {
    this.listeners.push(listener);
  }

  /** A launched instance joins: the Node appears after the registration delay and turns Ready after the ready
   * delay, carrying the claim's labels, taints and startup taints. */
  registerLaunch(launch: SimLaunch): void {
    const { instance, claim, instanceType } = launch;
    const name = `ip-10-${this.rng.int(256)}-${this.rng.int(256)}-${1 + this.rng.int(254)}.ec2.internal`;
    this.clock.setTimer(this.options.registrationDelayMs ?? 30_000, () => {
      const node: Node = {
        kind: 'Node',
        metadata: {
          name,
          uid: this.newUid(),
          creationTimestamp: this.clock.iso(),
          labels: launchedNodeLabels(name, claim, instance, instanceType),
        },
        spec: { providerID: instance.providerID, taints: [...claim.taints, ...claim.startupTaints] },
        status: {
          ...launchedNodeResources(instanceType),
          conditions: [
            { type: 'Ready', status: 'False', reason: 'KubeletNotReady', lastTransitionTime: this.clock.iso() },
          ],
        },
      };
      this.nodes.set(name, node);
      this.emit({ type: 'node-registered', node: name });
      this.scheduler?.nodeChanged(name);
      this.clock.setTimer(this.options.readyDelayMs ?? 15_000, () => {
        // The Node may have been edited since (labels, taints: a new object), but it is the same Node while its uid
        // is; a Ready condition someone else set (a scenario's step) is theirs to keep.
        const current = this.nodes.get(name);
        if (!current?.status || current.metadata.uid !== node.metadata.uid) return;
        const conditions = current.status.conditions ?? [];
        const ready = conditions.find((c) => c.type === 'Ready');
        if (ready && ready.reason !== 'KubeletNotReady') return;
        current.status.conditions = [
          ...conditions.filter((c) => c.type !== 'Ready'),
          { type: 'Ready', status: 'True', reason: 'KubeletReady', lastTransitionTime: this.clock.iso() },
        ];
        this.emit({ type: 'node-ready', node: name });
        this.scheduler?.nodeChanged(name);
      });
    });
  }

  /** The Node for a provider id, once registered. */
  nodeForProviderId(providerID: string): Node | undefined {
    for (const node of this.nodes.values()) if (node.spec.providerID === providerID) return node;
    return undefined;
  }

  async listPendingPods(): Promise<Pod[]> {
    return [...this.pods.values()].filter(
      (p) => !p.spec.nodeName && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed',
    );
  }

  async listPods(filter?: { nodeName?: string }): Promise<Pod[]> {
    const bound = [...this.pods.values()].filter((p) => !!p.spec.nodeName);
    return filter?.nodeName ? bound.filter((p) => p.spec.nodeName === filter.nodeName) : bound;
  }

  async listNodes(): Promise<Node[]> {
    return [...this.nodes.values()];
  }

  async listDaemonSets(): Promise<DaemonSet[]> {
    return [...this.daemonSets];
  }

  async listPodDisruptionBudgets(): Promise<PodDisruptionBudget[]> {
    return this.pdbs.map((pdb) => ({
      ...pdb,
      status: { ...pdb.status, disruptionsAllowed: computedDisruptionsAllowed(pdb, this.pods.values()) },
    }));
  }

  async listPersistentVolumeClaims(): Promise<PersistentVolumeClaim[]> {
    return [...this.pvcs];
  }

  async listPersistentVolumes(): Promise<PersistentVolume[]> {
    return [...this.pvs];
  }

  async listStorageClasses(): Promise<StorageClass[]> {
    return [...this.storageClasses];
  }

  async listNamespaces(): Promise<Namespace[]> {
    return [...this.namespaces];
  }

  async listNodePools(): Promise<NodePool[]> {
    return [...this.nodePools];
  }

  async listNodeClasses(): Promise<EC2NodeClass[]> {
    return [...this.nodeClasses];
  }

  async listNodeOverlays(): Promise<NodeOverlay[]> {
    return [...this.nodeOverlays];
  }

  async listNodeClaimObjects(): Promise<NodeClaimObject[]> {
    return [...this.nodeClaimObjects.values()].map((o) => structuredClone(o));
  }

  /** As the API server does: a create of an existing name conflicts; the server keeps uid and creationTimestamp and
   * bumps resourceVersion. */
  async writeNodeClaimObject(desired: NodeClaimObject, current: NodeClaimObject | undefined): Promise<void> {
    const name = desired.metadata.name;
    const existing = this.nodeClaimObjects.get(name);
    if (!current && existing) throw new Error(`nodeclaims.karpenter.sh "${name}" already exists`);
    if (current && !existing) throw new Error(`nodeclaims.karpenter.sh "${name}" not found`);
    const resourceVersion = String(++this.nodeClaimVersion);
    // The server keeps the object's finalizers and deletion mark; ours is added unless the object is being deleted.
    const finalizers = existing
      ? [...(existing.metadata.finalizers ?? []), ...(lacksFinalizer(existing) ? [FinalizerTermination] : [])]
      : (desired.metadata.finalizers ?? []);
    this.nodeClaimObjects.set(name, {
      ...structuredClone(desired),
      metadata: {
        ...structuredClone(desired.metadata),
        ...(finalizers.length ? { finalizers } : {}),
        ...(existing?.metadata.deletionTimestamp ? { deletionTimestamp: existing.metadata.deletionTimestamp } : {}),
        uid: existing?.metadata.uid ?? `nodeclaim-${resourceVersion}`,
        creationTimestamp: existing?.metadata.creationTimestamp ?? new Date(this.clock.now()).toISOString(),
        resourceVersion,
      },
    });
  }

  async deleteNodeClaimObject(name: string): Promise<void> {
    if (this.nodeClaimObjects.delete(name)) this.emit({ type: 'nodeclaim-object-updated', nodeClaim: name });
  }

  /** One NodeClaim object as stored, for the watch that reports it (local/forwarder-feed.ts). */
  getNodeClaimObject(name: string): NodeClaimObject | undefined {
    const o = this.nodeClaimObjects.get(name);
    return o ? structuredClone(o) : undefined;
  }

  /** `kubectl delete nodeclaim`: an object with finalizers is only marked until they are removed (deleteNodeClaimObject
   * takes Karpless's off); one without goes at once. False when there is no such object. */
  requestNodeClaimObjectDeletion(name: string): boolean {
    const o = this.nodeClaimObjects.get(name);
    if (!o) return false;
    if (!o.metadata.finalizers?.length) this.nodeClaimObjects.delete(name);
    else if (!o.metadata.deletionTimestamp) {
      o.metadata = { ...o.metadata, deletionTimestamp: this.clock.iso() };
    } else return true;
    this.emit({ type: 'nodeclaim-object-updated', nodeClaim: name });
    return true;
  }

  /** `kubectl delete node`: a node with finalizers is only marked until they are removed (deleteNode takes
   * Karpless's off), and the watch sees it change; one without goes at once. False when there is no such node. */
  requestNodeDeletion(name: string): boolean {
    const node = this.nodes.get(name);
    if (!node) return false;
    if (!node.metadata.finalizers?.length) {
      this.removeNode(name);
      return true;
    }
    if (!node.metadata.deletionTimestamp) {
      this.nodes.set(name, { ...node, metadata: { ...node.metadata, deletionTimestamp: this.clock.iso() } });
      this.emit({ type: 'node-updated', node: name });
      this.scheduler?.nodeChanged(name);
    }
    return true;
  }

  async listCSINodes(): Promise<CSINode[]> {
    return [...this.csiNodes];
  }

  async replaceStatus(update: StatusUpdate): Promise<'replaced' | 'gone'> {
    // Replaced, not mutated, as the API server's objects are: readers keep the object they listed.
    const list: (NodePool | EC2NodeClass)[] = update.kind === 'NodePool' ? this.nodePools : this.nodeClasses;
    const i = list.findIndex((o) => o.metadata.name === update.name);
    const current = list[i];
    if (!current) return 'gone';
    list.splice(i, 1, { ...current, status: update.status } as NodePool | EC2NodeClass);
    return 'replaced';
  }

  async bindPod(ref: PodRef, nodeName: string): Promise<BindOutcome> {
    const pod = this.getPod(ref);
    if (!pod || (ref.uid && pod.metadata.uid !== ref.uid)) return 'gone';
    if (pod.spec.nodeName) return pod.spec.nodeName === nodeName ? 'bound' : 'conflict';
    if (!this.nodes.has(nodeName)) return 'conflict';
    this.scheduler?.invalidate(nodeName);
    this.bindNow(pod, nodeName);
    return 'bound';
  }

  private bindNow(pod: Pod, nodeName: string): void {
    pod.spec = { ...pod.spec, nodeName };
    pod.status = { ...pod.status, phase: 'Running', startTime: new Date(this.clock.now()).toISOString() };
    this.scheduler?.forget(podKey(pod));
    this.emit({ type: 'pod-bound', pod: podKey(pod), node: nodeName });
  }

  async cordon(nodeName: string): Promise<void> {
    const node = this.nodes.get(nodeName);
    if (node) node.spec = { ...node.spec, unschedulable: true };
  }

  async setDisruptedTaint(nodeName: string, present: boolean): Promise<void> {
    const node = this.nodes.get(nodeName);
    if (!node) return;
    const others = (node.spec.taints ?? []).filter((t) => t.key !== TaintDisrupted.key);
    node.spec = { ...node.spec, taints: present ? [...others, { ...TaintDisrupted }] : others };
    if (!present) this.scheduler?.nodeChanged(nodeName);
  }

  /** As the real adapter: labels merged less `removeLabels`, missing taints added, only `removeTaints` taken off. */
  async syncNode(nodeName: string, desired: NodeSync): Promise<void> {
    const node = this.nodes.get(nodeName);
    if (!node) return;
    const same = (a: Taint, b: Taint) => a.key === b.key && a.effect === b.effect;
    const removed = desired.removeTaints ?? [];
    const kept = (node.spec.taints ?? []).filter((t) => !removed.some((r) => same(t, r)));
    const missing = desired.taints.filter((t) => !kept.some((k) => same(k, t)));
    const finalizers = node.metadata.finalizers ?? [];
    const addFinalizers = (desired.finalizers ?? []).filter((f) => !finalizers.includes(f));
    node.metadata = {
      ...node.metadata,
      labels: withoutKeys({ ...node.metadata.labels, ...desired.labels }, desired.removeLabels, desired.labels),
      ...(desired.annotations ? { annotations: { ...node.metadata.annotations, ...desired.annotations } } : {}),
      ...(addFinalizers.length ? { finalizers: [...finalizers, ...addFinalizers] } : {}),
    };
    node.spec = { ...node.spec, taints: [...kept, ...missing] };
    // Registration labels the node with its claim and takes the unregistered taint off: nominated pods may go.
    this.scheduler?.nodeChanged(nodeName);
  }

  /** As the real adapter: Karpless's finalizer off, then the node goes (whatever other finalizers it has: the
   * simulator models only Karpless's). */
  async deleteNode(nodeName: string): Promise<void> {
    this.removeNode(nodeName);
  }

  private removeNode(nodeName: string): void {
    if (!this.nodes.delete(nodeName)) return;
    for (const pod of [...this.pods.values()]) if (pod.spec.nodeName === nodeName) this.removePod(pod, 'pod-deleted');
    this.emit({ type: 'node-deleted', node: nodeName });
  }

  async evict(ref: PodRef): Promise<EvictionOutcome> {
    const pod = this.getPod(ref);
    if (!pod || (ref.uid && pod.metadata.uid !== ref.uid)) return 'gone';
    const blocking = this.pdbs.find(
      (pdb) => selects(pdb, pod) && computedDisruptionsAllowed(pdb, this.pods.values()) < 1,
    );
    if (blocking) {
      await this.recordEvent({
        involved: { kind: 'Pod', name: pod.metadata.name, namespace: pod.metadata.namespace },
        type: 'Warning',
        reason: 'EvictionBlocked',
        message: `Cannot evict pod as it would violate the pod's disruption budget ${blocking.metadata.name}`,
      });
      return 'blocked';
    }
    this.removePod(pod, 'pod-evicted');
    return 'evicted';
  }

  async recordEvent(event: ClusterEvent): Promise<void> {
    this.events.push({ ...event, at: this.clock.iso() });
    const { involved } = event;
    if (event.reason !== 'Nominated' || involved.kind !== 'Pod' || !involved.namespace) return;
    const target = nominationTarget(event.message);
    if (target) this.scheduler?.nominate(`${involved.namespace}/${involved.name}`, target);
  }

  /** Removes a pod; one with a controller comes back pending under a new uid when replaceEvictedPods is on. */
  private removePod(pod: Pod, change: 'pod-evicted' | 'pod-deleted'): void {
    const k = podKey(pod);
    this.pods.delete(k);
    this.scheduler?.forget(k);
    this.emit({ type: change, pod: k });
    const controlled = pod.metadata.ownerReferences?.some((o) => o.controller);
    if ((this.options.replaceEvictedPods ?? true) && controlled) {
      const { nodeName: _dropped, ...spec } = pod.spec;
      this.pods.set(k, {
        ...pod,
        metadata: { ...pod.metadata, uid: this.newUid(), creationTimestamp: this.clock.iso() },
        spec,
        status: { phase: 'Pending' },
      });
      this.emit({ type: 'pod-pending', pod: k });
    }
    if (pod.spec.nodeName) this.scheduler?.nodeChanged(pod.spec.nodeName);
  }

  private newUid(): string {
    const h = this.rng.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  private emit(change: ClusterChange): void {
    for (const listener of this.listeners) listener(change);
  }
}

/** The labels without the keys to remove, except those the sync sets. */
function withoutKeys(
  labels: Record<string, string>,
  remove: readonly string[] | undefined,
  keep: Record<string, string>,
): Record<string, string> {
  for (const k of remove ?? []) if (!(k in keep)) delete labels[k];
  return labels;
}
