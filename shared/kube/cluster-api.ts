// The Kubernetes side of the ClusterApi port, on @kubernetes/client-node's KubeConfig. Reads are paginated and
// trimmed to the engine's shapes; writes use the subresources and patch types the API server expects, and every
// failure is classified into ClusterApiError.
import type { KubeConfig } from '@kubernetes/client-node';
import type { EC2NodeClass, NodePool } from '../api/karpenter';
import type * as kube from '../api/kube';
import { FinalizerTermination } from '../api/labels';
import { lacksFinalizer, type NodeClaimObject } from '../api/nodeclaim-object';
import type { NodeOverlay } from '../api/nodeoverlay';
import { isProvisionable, PENDING_POD_FIELD_SELECTOR } from '../api/pending';
import type { StatusUpdate } from '../api/status';
import { ClusterApiError } from '../errors';
import type { BindOutcome, Clock, ClusterApi, ClusterEvent, EvictionOutcome, NodeSync } from '../ports';
import { systemClock } from '../ports';
import { classifyKubeError, type KubeAction, statusOf } from './errors';
import { EventThrottle } from './event-recorder';
import { AppsV1Api, CoreV1Api, CustomObjectsApi, PolicyV1Api, StorageV1Api } from './lean-api';
import { type NodeSnapshot, nodeTaintPatch, removeFinalizerPatch, syncNodePatch } from './node-patches';
import { listAllPages, type RawPage } from './paginate';
import { type CallOptions, callOptions, PATCH } from './request-options';
import { KubeRest } from './rest';
import {
  trimCSINode,
  trimDaemonSet,
  trimMeta,
  trimNamespace,
  trimNode,
  trimPersistentVolume,
  trimPersistentVolumeClaim,
  trimPod,
  trimPodDisruptionBudget,
  trimStorageClass,
} from './trim';

export const DISRUPTED_TAINT: kube.Taint = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' };
const TERMINAL_PHASES = 'status.phase!=Succeeded,status.phase!=Failed';
/** Cluster-scoped objects have no namespace; their events live in `default`, as kubectl describe expects. */
const CLUSTER_EVENT_NAMESPACE = 'default';
const CONFLICT_RETRIES = 3;
/** Where each kind's status subresource lives. */
const STATUS_TARGET = {
  NodePool: { group: 'karpenter.sh', version: 'v1', plural: 'nodepools' },
  EC2NodeClass: { group: 'karpenter.k8s.aws', version: 'v1', plural: 'ec2nodeclasses' },
} as const;
const LIST_RESTARTS = 3;
const NODECLAIMS = { group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' } as const;

export interface KubeClusterApiOptions {
  pageSize?: number;
  /** Per-request timeout. */
  timeoutMs?: number;
  clock?: Clock;
  /** Reported as the event source and field manager. */
  component?: string;
  events?: { dedupeWindowMs?: number; burst?: number; perSecond?: number };
  onEventError?: (event: ClusterEvent, error: Error) => void;
}

export class KubeClusterApi implements ClusterApi {
  private readonly core: CoreV1Api;
  private readonly apps: AppsV1Api;
  private readonly policy: PolicyV1Api;
  private readonly storage: StorageV1Api;
  private readonly custom: CustomObjectsApi;
  private readonly pageSize: number;
  private readonly timeoutMs: number;
  private readonly clock: Clock;
  private readonly component: string;
  private readonly throttle: EventThrottle;
  private readonly onEventError: (event: ClusterEvent, error: Error) => void;

  constructor(kc: KubeConfig, options: KubeClusterApiOptions = {}) {
    // Plain REST calls with client-node's KubeConfig for endpoint, CA and auth (lean-api.ts says why).
    const rest = new KubeRest(kc);
    this.core = new CoreV1Api(rest);
    this.apps = new AppsV1Api(rest);
    this.policy = new PolicyV1Api(rest);
    this.storage = new StorageV1Api(rest);
    this.custom = new CustomObjectsApi(rest);
    this.pageSize = options.pageSize ?? 500;
    this.timeoutMs = options.timeoutMs ?? 20_000;
    this.clock = options.clock ?? systemClock;
    this.component = options.component ?? 'karpless';
    this.throttle = new EventThrottle({ ...options.events, clock: this.clock });
    this.onEventError =
      options.onEventError ??
      ((event, error) =>
        console.warn(
          JSON.stringify({ level: 'WARN', message: 'event not recorded', reason: event.reason, error: error.message }),
        ));
  }

  listPendingPods(): Promise<kube.Pod[]> {
    return this.list(
      { verb: 'list', resource: 'pods' },
      (o, _continue) =>
        this.core.listPodForAllNamespaces(
          { fieldSelector: PENDING_POD_FIELD_SELECTOR, limit: this.pageSize, _continue },
          o,
        ),
      trimPod,
      isProvisionable,
    );
  }

  listPods(filter?: { nodeName?: string }): Promise<kube.Pod[]> {
    const node = filter?.nodeName !== undefined ? `spec.nodeName=${filter.nodeName}` : 'spec.nodeName!=';
    const fieldSelector = `${node},${TERMINAL_PHASES}`;
    return this.list(
      { verb: 'list', resource: 'pods' },
      (o, _continue) => this.core.listPodForAllNamespaces({ fieldSelector, limit: this.pageSize, _continue }, o),
      trimPod,
    );
  }

  listNodes(): Promise<kube.Node[]> {
    return this.list(
      { verb: 'list', resource: 'nodes' },
      (o, _continue) => this.core.listNode({ limit: this.pageSize, _continue }, o),
      trimNode,
    );
  }

  listDaemonSets(): Promise<kube.DaemonSet[]> {
    return this.list(
      { verb: 'list', resource: 'daemonsets', group: 'apps' },
      (o, _continue) => this.apps.listDaemonSetForAllNamespaces({ limit: this.pageSize, _continue }, o),
      trimDaemonSet,
    );
  }

  listPodDisruptionBudgets(): Promise<kube.PodDisruptionBudget[]> {
    return this.list(
      { verb: 'list', resource: 'poddisruptionbudgets', group: 'policy' },
      (o, _continue) => this.policy.listPodDisruptionBudgetForAllNamespaces({ limit: this.pageSize, _continue }, o),
      trimPodDisruptionBudget,
    );
  }

  listPersistentVolumeClaims(): Promise<kube.PersistentVolumeClaim[]> {
    return this.list(
      { verb: 'list', resource: 'persistentvolumeclaims' },
      (o, _continue) => this.core.listPersistentVolumeClaimForAllNamespaces({ limit: this.pageSize, _continue }, o),
      trimPersistentVolumeClaim,
    );
  }

  listPersistentVolumes(): Promise<kube.PersistentVolume[]> {
    return this.list(
      { verb: 'list', resource: 'persistentvolumes' },
      (o, _continue) => this.core.listPersistentVolume({ limit: this.pageSize, _continue }, o),
      trimPersistentVolume,
    );
  }

  listStorageClasses(): Promise<kube.StorageClass[]> {
    return this.list(
      { verb: 'list', resource: 'storageclasses', group: 'storage.k8s.io' },
      (o, _continue) => this.storage.listStorageClass({ limit: this.pageSize, _continue }, o),
      trimStorageClass,
    );
  }

  /** Each node's CSI attach limits (docs/simulate-dump.md, Volume attach limits). */
  listCSINodes(): Promise<kube.CSINode[]> {
    return this.list(
      { verb: 'list', resource: 'csinodes', group: 'storage.k8s.io' },
      (o, _continue) => this.storage.listCSINode({ limit: this.pageSize, _continue }, o),
      trimCSINode,
    );
  }

  listNamespaces(): Promise<kube.Namespace[]> {
    return this.list(
      { verb: 'list', resource: 'namespaces' },
      (o, _continue) => this.core.listNamespace({ limit: this.pageSize, _continue }, o),
      trimNamespace,
    );
  }

  listNodePools(): Promise<NodePool[]> {
    return this.listCustom<NodePool>('karpenter.sh', 'v1', 'nodepools');
  }

  listNodeClasses(): Promise<EC2NodeClass[]> {
    return this.listCustom<EC2NodeClass>('karpenter.k8s.aws', 'v1', 'ec2nodeclasses');
  }

  async listNodeOverlays(): Promise<NodeOverlay[]> {
    try {
      return await this.listCustom<NodeOverlay>('karpenter.sh', 'v1alpha1', 'nodeoverlays');
    } catch (err) {
      // The NodeOverlay CRD is optional (Karpenter's is alpha): a cluster without it has no overlays.
      if (err instanceof ClusterApiError && err.status === 404) return [];
      throw err;
    }
  }

  listNodeClaimObjects(): Promise<NodeClaimObject[]> {
    // With their finalizers and deletion time: the mirror terminates the node of an object someone deleted.
    return this.listCustom<NodeClaimObject>(NODECLAIMS.group, NODECLAIMS.version, NODECLAIMS.plural, true);
  }

  async writeNodeClaimObject(desired: NodeClaimObject, current: NodeClaimObject | undefined): Promise<void> {
    const { group, version, plural } = NODECLAIMS;
    const name = desired.metadata.name;
    const { status, ...object } = desired;
    if (!current) {
      await this.call({ verb: 'create', resource: plural, group, name }, () =>
        this.custom.createClusterCustomObject(
          { group, version, plural, body: object, fieldManager: this.component },
          this.options(),
        ),
      );
    } else {
      // JSON patch `add` replaces each member whole, so a label or requirement the claim dropped goes too.
      const body = [
        { op: 'add', path: '/metadata/labels', value: desired.metadata.labels ?? {} },
        { op: 'add', path: '/metadata/annotations', value: desired.metadata.annotations ?? {} },
        // Replaced whole as well: the mirror is the objects' only writer, and a claim adopted by its NodePool's UID
        // (docs/disruption.md, Deleting a NodePool) gains its owner reference here.
        { op: 'add', path: '/metadata/ownerReferences', value: desired.metadata.ownerReferences ?? [] },
        { op: 'add', path: '/spec', value: desired.spec },
        // Appended, so another actor's finalizers stay; never onto an object being deleted (the API server refuses).
        ...(lacksFinalizer(current)
          ? [
              current.metadata.finalizers
                ? { op: 'add', path: '/metadata/finalizers/-', value: FinalizerTermination }
                : { op: 'add', path: '/metadata/finalizers', value: [FinalizerTermination] },
            ]
          : []),
      ];
      await this.call({ verb: 'patch', resource: plural, group, name }, () =>
        this.custom.patchClusterCustomObject(
          { group, version, plural, name, body, fieldManager: this.component },
          this.options(PATCH.json),
        ),
      );
    }
    // The status subresource: the API server ignores status on create and on a patch of the object itself.
    const body = [{ op: 'add', path: '/status', value: status ?? {} }];
    await this.call({ verb: 'patch', resource: `${plural}/status`, group, name }, () =>
      this.custom.patchClusterCustomObjectStatus(
        { group, version, plural, name, body, fieldManager: this.component },
        this.options(PATCH.json),
      ),
    );
  }

  async deleteNodeClaimObject(name: string): Promise<void> {
    const { group, version, plural } = NODECLAIMS;
    // Karpless's finalizer first (read with `list`, the one read verb the functions hold on nodeclaims): a deletion
    // someone started is waiting on it, and an object nobody deleted goes at once.
    const [object] = await this.list(
      { verb: 'list', resource: plural, group },
      (o) => this.custom.listClusterCustomObject({ group, version, plural, fieldSelector: `metadata.name=${name}` }, o),
      (item) => item as NodeClaimObject,
    );
    const index = object?.metadata.finalizers?.indexOf(FinalizerTermination) ?? -1;
    if (object && index >= 0) {
      // Guarded by the finalizer read, so another actor's finalizer written meanwhile is never the one removed.
      const body = [
        { op: 'test', path: `/metadata/finalizers/${index}`, value: FinalizerTermination },
        { op: 'remove', path: `/metadata/finalizers/${index}` },
      ];
      try {
        await this.custom.patchClusterCustomObject(
          { group, version, plural, name, body, fieldManager: this.component },
          this.options(PATCH.json),
        );
      } catch (err) {
        if (statusOf(err) === 404) return;
        throw classifyKubeError(err, { verb: 'patch', resource: plural, group, name });
      }
    }
    try {
      await this.custom.deleteClusterCustomObject({ group, version, plural, name }, this.options());
    } catch (err) {
      if (statusOf(err) === 404) return;
      throw classifyKubeError(err, { verb: 'delete', resource: plural, group, name });
    }
  }

  async replaceStatus(update: StatusUpdate): Promise<'replaced' | 'gone'> {
    const { group, version, plural } = STATUS_TARGET[update.kind];
    // A JSON patch `add` on /status replaces the whole member (and creates it on an object that has none). A merge
    // patch would keep map keys the new status lacks, such as status.resources entries another controller wrote.
    const body = [{ op: 'add', path: '/status', value: update.status }];
    try {
      await this.custom.patchClusterCustomObjectStatus(
        { group, version, plural, name: update.name, body, fieldManager: this.component },
        this.options(PATCH.json),
      );
      return 'replaced';
    } catch (err) {
      if (statusOf(err) === 404) return 'gone';
      throw classifyKubeError(err, { verb: 'patch', resource: `${plural}/status`, group, name: update.name });
    }
  }

  async bindPod(pod: kube.PodRef, nodeName: string): Promise<BindOutcome> {
    const body = {
      apiVersion: 'v1',
      kind: 'Binding',
      // The uid makes the bind conditional on this exact pod, not a same-named successor.
      metadata: { name: pod.name, namespace: pod.namespace, ...(pod.uid ? { uid: pod.uid } : {}) },
      target: { apiVersion: 'v1', kind: 'Node', name: nodeName },
    };
    try {
      await this.core.createNamespacedPodBinding({ name: pod.name, namespace: pod.namespace, body }, this.options());
      return 'bound';
    } catch (err) {
      const status = statusOf(err);
      if (status === 409) return 'conflict';
      if (status === 404) return 'gone';
      throw classifyKubeError(err, { verb: 'create', resource: 'pods/binding', name: `${pod.namespace}/${pod.name}` });
    }
  }

  async cordon(nodeName: string): Promise<void> {
    // Setting one scalar needs no concurrency guard: a strategic merge patch only touches spec.unschedulable.
    await this.call({ verb: 'patch', resource: 'nodes', name: nodeName }, () =>
      this.core.patchNode(
        { name: nodeName, body: { spec: { unschedulable: true } }, fieldManager: this.component },
        this.options(PATCH.strategicMerge),
      ),
    );
  }

  async setDisruptedTaint(nodeName: string, present: boolean): Promise<void> {
    await this.patchNodeGuarded(nodeName, (node) => nodeTaintPatch(node, DISRUPTED_TAINT, present));
  }

  async syncNode(nodeName: string, desired: NodeSync): Promise<void> {
    await this.patchNodeGuarded(nodeName, (node) => syncNodePatch(node, desired));
  }

  async deleteNode(nodeName: string): Promise<void> {
    try {
      // Karpless's finalizer first: a node someone deleted is waiting on it, and one that is not goes at once.
      await this.patchNodeGuarded(nodeName, (node) => removeFinalizerPatch(node, FinalizerTermination));
    } catch (err) {
      if (err instanceof ClusterApiError && err.status === 404) return;
      throw err;
    }
    try {
      await this.core.deleteNode({ name: nodeName }, this.options());
    } catch (err) {
      if (statusOf(err) === 404) return;
      throw classifyKubeError(err, { verb: 'delete', resource: 'nodes', name: nodeName });
    }
  }

  async evict(pod: kube.PodRef): Promise<EvictionOutcome> {
    const body = {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: pod.name, namespace: pod.namespace },
      ...(pod.uid ? { deleteOptions: { preconditions: { uid: pod.uid } } } : {}),
    };
    try {
      await this.core.createNamespacedPodEviction({ name: pod.name, namespace: pod.namespace, body }, this.options());
      return 'evicted';
    } catch (err) {
      const status = statusOf(err);
      // 429: a PodDisruptionBudget says "not yet". Retry on a later pass, never an error.
      if (status === 429) return 'blocked';
      if (status === 404) return 'gone';
      // A uid precondition failure means the pod we meant was replaced by a same-named one: ours is gone.
      if (status === 409 && pod.uid) return 'gone';
      throw classifyKubeError(err, { verb: 'create', resource: 'pods/eviction', name: `${pod.namespace}/${pod.name}` });
    }
  }

  async recordEvent(event: ClusterEvent): Promise<void> {
    if (!this.throttle.admit(event)) return;
    const o = event.involved;
    const namespace = o.kind === 'Pod' ? (o.namespace ?? 'default') : CLUSTER_EVENT_NAMESPACE;
    const now = new Date(this.clock.now());
    const body = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { generateName: `${o.name}.`, namespace },
      involvedObject: {
        apiVersion: INVOLVED_API_VERSION[o.kind],
        kind: o.kind,
        name: o.name,
        ...(o.kind === 'Pod' ? { namespace } : {}),
        ...(o.uid ? { uid: o.uid } : {}),
      },
      type: event.type,
      reason: event.reason,
      message: event.message,
      source: { component: this.component },
      reportingComponent: this.component,
      reportingInstance: this.component,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    };
    try {
      await this.core.createNamespacedEvent({ namespace, body }, this.options());
    } catch (err) {
      this.onEventError(event, classifyKubeError(err, { verb: 'create', resource: 'events' }));
    }
  }

  private options(contentType?: string): CallOptions {
    return callOptions(this.timeoutMs, contentType);
  }

  private async call<T>(action: KubeAction, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw classifyKubeError(err, action);
    }
  }

  private list<T>(
    action: KubeAction,
    fetch: (options: CallOptions, continueToken: string | undefined) => Promise<unknown>,
    trim: (item: unknown) => T,
    keep?: (item: T) => boolean,
  ): Promise<T[]> {
    return this.call(action, async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await listAllPages((token) => fetch(this.options(), token) as Promise<RawPage>, trim, keep);
        } catch (err) {
          // 410 Gone: the continue token outlived etcd compaction mid-list. The only remedy is a fresh list.
          if (statusOf(err) !== 410 || attempt >= LIST_RESTARTS) throw err;
        }
      }
    });
  }

  private listCustom<T>(group: string, version: string, plural: string, lifecycle = false): Promise<T[]> {
    return this.list(
      { verb: 'list', resource: plural, group },
      (o, _continue) =>
        this.custom.listClusterCustomObject({ group, version, plural, limit: this.pageSize, _continue }, o),
      (item) => {
        const raw = item as {
          apiVersion?: string;
          kind?: string;
          metadata?: Record<string, unknown>;
          spec?: unknown;
          status?: unknown;
        };
        const meta = trimMeta(raw.metadata);
        // Karpenter objects are small and read whole, minus server bookkeeping. The generation and the status as
        // last published stay: the status writer echoes observedGeneration, keeps transition times and skips no-ops.
        const hasStatus = raw.status !== null && typeof raw.status === 'object';
        return {
          apiVersion: raw.apiVersion,
          kind: raw.kind,
          metadata: {
            name: meta.name,
            uid: meta.uid,
            ...(typeof meta.generation === 'number' && { generation: meta.generation }),
            labels: meta.labels,
            annotations: meta.annotations,
            ...(lifecycle && Array.isArray(raw.metadata?.finalizers) && { finalizers: raw.metadata.finalizers }),
            ...(lifecycle && meta.deletionTimestamp && { deletionTimestamp: meta.deletionTimestamp }),
            ...(lifecycle && meta.ownerReferences && { ownerReferences: meta.ownerReferences }),
          },
          spec: raw.spec,
          ...(hasStatus && { status: raw.status }),
        } as T;
      },
    );
  }

  /** Reads the node, builds a JSON patch guarded by its resourceVersion, and retries when someone wrote first. */
  private async patchNodeGuarded(nodeName: string, build: (node: NodeSnapshot) => object[] | undefined): Promise<void> {
    const action: KubeAction = { verb: 'patch', resource: 'nodes', name: nodeName };
    for (let attempt = 1; ; attempt++) {
      const raw = await this.call({ verb: 'get', resource: 'nodes', name: nodeName }, () =>
        this.core.readNode({ name: nodeName }, this.options()),
      );
      const node = trimNode(raw);
      const ops = build({
        resourceVersion: node.metadata.resourceVersion ?? '',
        labels: node.metadata.labels,
        annotations: node.metadata.annotations,
        taints: node.spec.taints,
        ...(node.metadata.finalizers ? { finalizers: node.metadata.finalizers } : {}),
      });
      if (!ops) return;
      try {
        await this.core.patchNode(
          { name: nodeName, body: ops, fieldManager: this.component },
          this.options(PATCH.json),
        );
        return;
      } catch (err) {
        const status = statusOf(err);
        // A failed `test` on resourceVersion is 422 (Invalid) or 409 (Conflict): re-read and rebuild the patch.
        if ((status === 409 || status === 422) && attempt < CONFLICT_RETRIES) continue;
        throw classifyKubeError(err, action);
      }
    }
  }
}

const INVOLVED_API_VERSION: Record<ClusterEvent['involved']['kind'], string> = {
  Pod: 'v1',
  Node: 'v1',
  NodeClaim: 'karpenter.sh/v1',
  NodePool: 'karpenter.sh/v1',
};
