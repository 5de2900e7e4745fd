// The in-cluster forwarder of the local pipeline: the real change tracker, batch window and message builder of
// forwarder/, fed by the simulated cluster's changes instead of watch streams, and timed by the virtual clock
// instead of timers. Like kube-scheduler, it first marks every unbound pod Unschedulable (nothing else schedules in
// the simulator), since only such pods are news to the forwarder.
import { type BatchTiming, BatchWindow, DEFAULT_BATCH_TIMING } from '../forwarder/batch-window';
import type { ListWatchHandlers } from '../forwarder/list-watch';
import { buildMessages, type OutgoingMessage } from '../forwarder/messages';
import { type Slim, slimFor, type WatchedResource } from '../forwarder/slim';
import { ChangeTracker, type WatchEventType } from '../forwarder/tracker';
import type { Pod } from '../shared/api/kube';
import { isUnschedulable } from '../shared/api/pending';
import type { ClusterChange, SimCluster, VirtualClock } from '../shared/sim';
import type { MemoryQueue } from '../shared/sim/sqs';

/** Where the feed sends: the in-memory FIFO queue, or a buffer in front of a real one (local/aws-endpoint). */
export interface FeedQueue {
  send(message: { body: string; groupId: string; deduplicationId: string }): { accepted: boolean };
}

export interface ForwarderFeedOptions {
  cluster: string;
  sim: SimCluster;
  clock: VirtualClock;
  queue: FeedQueue | MemoryQueue;
  timing?: BatchTiming;
  /** Called with each message sent to the queue. */
  onSend?: (message: OutgoingMessage, accepted: boolean) => void;
}

export class ForwarderFeed {
  private readonly tracker = new ChangeTracker();
  private readonly window: BatchWindow;
  /** Virtual time each pod key was first seen pending by the forwarder (its "event" time). */
  readonly pendingSince = new Map<string, number>();

  constructor(private readonly options: ForwarderFeedOptions) {
    this.window = new BatchWindow(options.timing ?? DEFAULT_BATCH_TIMING);
    options.sim.onChange((change) => this.onChange(change));
  }

  /** The forwarder's start-up list of every watched resource, with every pending pod queued. */
  async start(): Promise<void> {
    const { sim } = this.options;
    const pods = sim.allPods();
    for (const pod of pods) this.markUnschedulable(pod);
    const now = this.options.clock.now();
    for (const pod of pods) if (!pod.spec.nodeName) this.pendingSince.set(key(pod), now);
    this.relist('pods', pods);
    this.relist('nodes', await sim.listNodes());
    this.relist('nodepools', await sim.listNodePools());
    this.relist('ec2nodeclasses', await sim.listNodeClasses());
    this.relist('nodeoverlays', await sim.listNodeOverlays());
    this.relist('nodeclaims', await sim.listNodeClaimObjects());
  }

  /** Handlers for a real list-watch (forwarder/list-watch.ts) against an API server outside the simulator: test/e2e
   * watches the NodeClaim objects the handlers mirror into the fake Kubernetes API. */
  watchHandlers(): ListWatchHandlers {
    return {
      onList: (resource, items, info) => this.tracked(this.tracker.onRelist(resource, items, info)),
      onEvent: (resource, type, slim) => this.tracked(this.tracker.onEvent(resource, type, slim)),
    };
  }

  /** References waiting for the batch window to close. */
  get waiting(): number {
    return this.tracker.outboxSize;
  }

  /** A pod added while the pipeline runs (a new workload, a scale-up). */
  addPod(pod: Pod): void {
    this.options.sim.addPod(pod);
    const stored = this.options.sim.getPod({ namespace: pod.metadata.namespace ?? 'default', name: pod.metadata.name });
    if (stored) this.podEvent('ADDED', stored);
  }

  /** An object created or changed through the API while the pipeline runs (`kubectl apply`, `kubectl scale
   * nodepool`): a NodePool, EC2NodeClass or NodeOverlay reaches the forwarder's watch, as it would in a cluster;
   * PodDisruptionBudgets are not watched, so the handlers read them on their next pass. */
  upsert(object: Parameters<SimCluster['upsert']>[0]): void {
    // The watch sees the object as stored (a NodePool with the UID the server stamped), not the caller's copy.
    const stored = this.options.sim.upsert(object);
    if (stored.kind === 'NodePool') this.event('nodepools', 'MODIFIED', stored);
    else if (stored.kind === 'EC2NodeClass') this.event('ec2nodeclasses', 'MODIFIED', stored);
    else if (stored.kind === 'NodeOverlay') this.event('nodeoverlays', 'MODIFIED', stored);
  }

  /** `kubectl delete nodepool` while the pipeline runs: the watch sees it go (or, `held` by another actor's finalizer,
   * change), and the forwarder sends NodePoolChanged. False when there is no NodePool of that name. */
  async deleteNodePool(name: string, options: { held?: boolean } = {}): Promise<boolean> {
    const { sim } = this.options;
    const pool = (await sim.listNodePools()).find((p) => p.metadata.name === name);
    if (!pool || !sim.deleteNodePool(name, options)) return false;
    const after = (await sim.listNodePools()).find((p) => p.metadata.name === name);
    this.event('nodepools', after ? 'MODIFIED' : 'DELETED', after ?? pool);
    return true;
  }

  /** When the batch is due (virtual time), if anything is waiting. */
  deadline(): number | undefined {
    return this.window.deadline();
  }

  /** Sends the batch if its window has closed; returns the messages sent. */
  flushIfDue(): OutgoingMessage[] {
    const due = this.window.deadline();
    if (due === undefined || due > this.options.clock.now()) return [];
    this.window.reset();
    const messages = buildMessages(this.options.cluster, this.tracker.takeOutbox(), this.options.clock.iso());
    for (const m of messages) {
      const { accepted } = this.options.queue.send({
        body: m.body,
        groupId: m.groupId,
        deduplicationId: m.deduplicationId,
      });
      this.options.onSend?.(m, accepted);
    }
    return messages;
  }

  private relist(resource: WatchedResource, items: unknown[]): void {
    const slims: Slim[] = items.map((i) => slimFor(resource, this.versioned(i)));
    this.tracked(this.tracker.onRelist(resource, slims, { resendAll: true }));
  }

  private onChange(change: ClusterChange): void {
    const { sim } = this.options;
    switch (change.type) {
      case 'pod-pending': {
        const pod = sim.getPod(change.pod);
        if (pod) this.podEvent('ADDED', pod);
        return;
      }
      case 'pod-bound': {
        const pod = sim.getPod(change.pod);
        if (pod) this.podEvent('MODIFIED', pod);
        this.pendingSince.delete(change.pod);
        return;
      }
      case 'pod-evicted':
      case 'pod-deleted': {
        const [namespace, name] = change.pod.split('/', 2);
        this.event('pods', 'DELETED', { kind: 'Pod', metadata: { namespace, name }, spec: {}, status: {} });
        this.pendingSince.delete(change.pod);
        return;
      }
      case 'node-registered':
      case 'node-ready':
      case 'node-updated': {
        // node-updated: another actor changed the Node (its conditions, labels, taints); the watch sees a MODIFIED.
        const node = sim.getNode(change.node);
        if (node) this.event('nodes', change.type === 'node-registered' ? 'ADDED' : 'MODIFIED', node);
        return;
      }
      case 'node-deleted':
        this.event('nodes', 'DELETED', { kind: 'Node', metadata: { name: change.node } });
        return;
      case 'nodeclaim-object-updated': {
        const o = sim.getNodeClaimObject(change.nodeClaim);
        if (o) this.event('nodeclaims', 'MODIFIED', o);
        else this.event('nodeclaims', 'DELETED', { kind: 'NodeClaim', metadata: { name: change.nodeClaim } });
        return;
      }
    }
  }

  private podEvent(type: WatchEventType, pod: Pod): void {
    if (!pod.spec.nodeName) {
      this.markUnschedulable(pod);
      if (!this.pendingSince.has(key(pod))) this.pendingSince.set(key(pod), this.options.clock.now());
    }
    this.event('pods', type, pod);
  }

  private event(resource: WatchedResource, type: WatchEventType, raw: unknown): void {
    this.tracked(this.tracker.onEvent(resource, type, slimFor(resource, this.versioned(raw))));
  }

  /** The batch window opens with the first reference waiting, as the forwarder's flusher does. */
  private tracked(added: boolean): void {
    if (added) this.window.touch(this.options.clock.now());
  }

  /** The API server stamps every write with a new resourceVersion; the simulator does not, and without one two
   * changes of a node would share a deduplication id and SQS would drop the second. */
  private versioned(raw: unknown): unknown {
    const o = raw as { metadata?: Record<string, unknown> };
    return { ...o, metadata: { ...o.metadata, resourceVersion: String(++this.resourceVersion) } };
  }

  private resourceVersion = 1000;

  /** kube-scheduler's verdict on a pod nothing can host yet. */
  private markUnschedulable(pod: Pod): void {
    if (pod.spec.nodeName || isUnschedulable(pod)) return;
    const others = (pod.status?.conditions ?? []).filter((c) => c.type !== 'PodScheduled');
    pod.status = {
      ...pod.status,
      phase: pod.status?.phase ?? 'Pending',
      conditions: [...others, { type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }],
    };
  }
}

const key = (pod: Pod): string => `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`;
