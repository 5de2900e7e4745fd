// A simulated Kubernetes cluster held in memory: the ClusterApi the engine talks to in simulations and tests.
// Launched instances register as Nodes after a delay and turn Ready later, on the virtual clock; evictions honour
// PodDisruptionBudgets the way the Eviction API does (a 429 becomes 'blocked'). kube-scheduler's part, binding
// nominated pods once their node can take them, is played by SimScheduler unless turned off.

import { type Node, type Pod, type PodDisruptionBudget, type PodRef, podKey } from '../api/kube';
import { TaintDisrupted } from '../api/labels';
import type { NodeClaimObject } from '../api/nodeclaim-object';
import type { StatusUpdate } from '../api/status';
import { computedDisruptionsAllowed, selects } from '../disruption';
import type { BindOutcome, ClusterApi, ClusterEvent, EvictionOutcome, NodeSync } from '../ports';
import { registeringNode } from './launched-node';
import { syncedNode } from './node-sync';
import { createRng, type Rng } from './rng';
import type { SimLaunch } from './sim-cloud';
import { SimNodeClaimObjects } from './sim-nodeclaim-objects';
import { type ClusterObject, SimObjects } from './sim-objects';
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

export class SimCluster implements ClusterApi {
  readonly events: RecordedEvent[] = [];
  private readonly pods = new Map<string, Pod>();
  private readonly nodes = new Map<string, Node>();
  private readonly objects = new SimObjects();
  private readonly nodeClaimObjects = new SimNodeClaimObjects(
    () => this.clock.iso(),
    (name) => this.emit({ type: 'nodeclaim-object-updated', nodeClaim: name }),
  );
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
      if (o.kind === 'Pod') this.addPod(o as Pod);
      else if (o.kind === 'Node') this.addNode(o as Node);
      else this.objects.add(o);
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
    return this.objects.upsert(object);
  }

  /** `kubectl delete nodeoverlay|nodepool|ec2nodeclass`: gone at once (Karpless puts no finalizer on them), or, a
   * NodePool `held`, only marked as when another actor's finalizer holds it. False when there is none of that name. */
  deleteNodeOverlay = (name: string): boolean => this.objects.remove('NodeOverlay', name);
  deleteNodeClass = (name: string): boolean => this.objects.remove('EC2NodeClass', name);
  deleteNodePool(name: string, options: { held?: boolean } = {}): boolean {
    return options.held
      ? this.objects.markNodePoolDeleted(name, this.clock.iso())
      : this.objects.remove('NodePool', name);
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
    const name = `ip-10-${this.rng.int(256)}-${this.rng.int(256)}-${1 + this.rng.int(254)}.ec2.internal`;
    this.clock.setTimer(this.options.registrationDelayMs ?? 30_000, () => {
      const node = registeringNode(name, this.newUid(), this.clock.iso(), launch);
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

  listDaemonSets = async () => this.objects.list('DaemonSet');
  listPersistentVolumeClaims = async () => this.objects.list('PersistentVolumeClaim');
  listPersistentVolumes = async () => this.objects.list('PersistentVolume');
  listStorageClasses = async () => this.objects.list('StorageClass');
  listNamespaces = async () => this.objects.list('Namespace');
  listNodePools = async () => this.objects.list('NodePool');
  listNodeClasses = async () => this.objects.list('EC2NodeClass');
  listNodeOverlays = async () => this.objects.list('NodeOverlay');
  listCSINodes = async () => this.objects.list('CSINode');

  /** With the allowance the disruption controller would have written into each one's status. */
  async listPodDisruptionBudgets(): Promise<PodDisruptionBudget[]> {
    return this.objects.list('PodDisruptionBudget').map((pdb) => ({
      ...pdb,
      status: { ...pdb.status, disruptionsAllowed: computedDisruptionsAllowed(pdb, this.pods.values()) },
    }));
  }

  async listNodeClaimObjects(): Promise<NodeClaimObject[]> {
    return this.nodeClaimObjects.list();
  }

  async writeNodeClaimObject(desired: NodeClaimObject, current: NodeClaimObject | undefined): Promise<void> {
    this.nodeClaimObjects.write(desired, current);
  }

  async deleteNodeClaimObject(name: string): Promise<void> {
    this.nodeClaimObjects.delete(name);
  }

  /** One NodeClaim object as stored, for the watch that reports it (local/forwarder-feed.ts). */
  getNodeClaimObject(name: string): NodeClaimObject | undefined {
    return this.nodeClaimObjects.get(name);
  }

  /** `kubectl delete nodeclaim`: an object with finalizers is only marked until they are removed (deleteNodeClaimObject
   * takes Karpless's off); one without goes at once. False when there is no such object. */
  requestNodeClaimObjectDeletion(name: string): boolean {
    return this.nodeClaimObjects.requestDeletion(name);
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

  async replaceStatus(update: StatusUpdate): Promise<'replaced' | 'gone'> {
    return this.objects.replaceStatus(update);
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
    const synced = syncedNode(node, desired);
    node.metadata = synced.metadata;
    node.spec = synced.spec;
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
    const blocking = this.objects
      .list('PodDisruptionBudget')
      .find((pdb) => selects(pdb, pod) && computedDisruptionsAllowed(pdb, this.pods.values()) < 1);
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
