// The narrow interfaces the engine needs from the outside world. AWS, Kubernetes and the simulator each implement
// them; handlers wire an implementation to an engine use-case and nothing else.
import type { EC2NodeClass, NodePool } from './api/karpenter';
import type * as kube from './api/kube';
import type { DecisionRecord, LaunchedReservation, NodeClaim, NodeClaimState } from './api/nodeclaim';
import type { NodeClaimObject } from './api/nodeclaim-object';
import type { NodeOverlay } from './api/nodeoverlay';
import type { EC2NodeClassStatus, StatusUpdate } from './api/status';
import type { SweepCursor } from './api/sweep-cursor';
import type { CapacityType, InstanceType, UnavailableOffering } from './catalog/types';

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export type InstanceState = 'pending' | 'running' | 'stopping' | 'stopped' | 'shutting-down' | 'terminated';
/** Every EC2 instance state, in lifecycle order: what the EC2 adapter and the event readers accept. */
export const INSTANCE_STATES: readonly InstanceState[] = [
  'pending',
  'running',
  'stopping',
  'stopped',
  'shutting-down',
  'terminated',
];

export interface CloudInstance {
  instanceId: string;
  providerID: string;
  instanceType: string;
  zone: string;
  capacityType: CapacityType;
  /** Set when the instance runs in a capacity reservation (`reserved`). */
  capacityReservation?: LaunchedReservation;
  pricePerHour: number;
  state: InstanceState;
  launchedAt: string;
  imageId?: string;
  subnetId?: string;
  securityGroupIds?: string[];
  tags: Record<string, string>;
  /** Evidence, beyond tags that anyone holding ec2:CreateTags can set, that Karpless launched the instance (the
   * launch template of this cluster it was launched from). Set by list() when the provider can tell; GC terminates no
   * orphan without it or a claim record. */
  launchProof?: string;
}

export interface LaunchRequest {
  claim: NodeClaim;
  nodePool: NodePool;
  nodeClass: EC2NodeClass;
  /** The claim's instance-type options, cheapest first, with offerings already filtered by the claim. */
  instanceTypes: InstanceType[];
}

/** The cluster's existing instances: all that termination, GC and node lifecycle ask of the cloud. The functions
 * that run only those are wired with this alone, so they carry no launch path (AMI and instance-profile resolution,
 * user data, the solver). */
export interface InstanceProvider {
  /** Terminates; an instance that is already gone is not an error. */
  delete(instanceId: string): Promise<void>;
  get(instanceId: string): Promise<CloudInstance | undefined>;
  /** This cluster's instances, found by tag. */
  list(): Promise<CloudInstance[]>;
}

/** Optional capability of an InstanceProvider: delete launch templates no NodeClass configuration uses any more. GC
 * asks for it when the provider offers it. */
export interface LaunchTemplateCollector {
  deleteStaleLaunchTemplates(): Promise<number | undefined>;
}

export interface CloudProvider extends InstanceProvider {
  /** Launches exactly one instance for the claim; replaying the same claim uid returns the same instance. Throws
   * InsufficientCapacityError or LaunchError. */
  create(request: LaunchRequest): Promise<CloudInstance>;
  /** Instance types as seen through the EC2NodeClass (allocatable depends on its kubelet settings). */
  getInstanceTypes(nodeClass: EC2NodeClass): Promise<InstanceType[]>;
  /** Why the claim's instance no longer matches its EC2NodeClass (AMI, subnet, security groups), if it does not. */
  isDrifted(claim: NodeClaim, nodeClass: EC2NodeClass): Promise<string | undefined>;
  /** What the EC2NodeClass resolves to now, for its status. A cloud that resolves nothing (the simulator) leaves it
   * out, and no EC2NodeClass status is published. */
  describeNodeClass?(nodeClass: EC2NodeClass): Promise<NodeClassResolution>;
}

/** An EC2NodeClass's status without its conditions, and whether it can launch (the reason when it cannot). */
export interface NodeClassResolution extends Omit<EC2NodeClassStatus, 'conditions'> {
  ready: { status: 'True' | 'False'; reason: string; message: string };
}

export interface ClusterEvent {
  involved: { kind: 'Pod' | 'Node' | 'NodeClaim' | 'NodePool'; name: string; namespace?: string; uid?: string };
  type: 'Normal' | 'Warning';
  /** Karpenter's reasons: Nominated, FailedScheduling, DisruptionBlocked, Disrupting, ... */
  reason: string;
  message: string;
}

export type EvictionOutcome = 'evicted' | 'blocked' | 'gone';
export type BindOutcome = 'bound' | 'conflict' | 'gone';

export interface ClusterApi {
  listPendingPods(): Promise<kube.Pod[]>;
  /** Bound pods, all or on one node. */
  listPods(filter?: { nodeName?: string }): Promise<kube.Pod[]>;
  listNodes(): Promise<kube.Node[]>;
  listDaemonSets(): Promise<kube.DaemonSet[]>;
  listPodDisruptionBudgets(): Promise<kube.PodDisruptionBudget[]>;
  listPersistentVolumeClaims(): Promise<kube.PersistentVolumeClaim[]>;
  listPersistentVolumes(): Promise<kube.PersistentVolume[]>;
  listStorageClasses(): Promise<kube.StorageClass[]>;
  listNamespaces(): Promise<kube.Namespace[]>;
  listNodePools(): Promise<NodePool[]>;
  listNodeClasses(): Promise<EC2NodeClass[]>;
  /** NodeOverlays (karpenter.sh/v1alpha1); empty when the CRD is not installed. Optional: a ClusterApi without
   * it has none. */
  listNodeOverlays?(): Promise<NodeOverlay[]>;
  /** CSINodes (storage.k8s.io/v1): each node's per-driver volume attach limits. Optional: a ClusterApi without it
   * has none, and existing nodes then have no CSINode limits (docs/simulate-dump.md, Volume attach limits). */
  listCSINodes?(): Promise<kube.CSINode[]>;
  /** The karpenter.sh/v1 NodeClaim objects in the cluster, Karpless's mirror of its store (docs/kubernetes.md,
   * NodeClaim objects). The three NodeClaim methods are optional: a ClusterApi without them gets no mirror. */
  listNodeClaimObjects?(): Promise<NodeClaimObject[]>;
  /** Creates the object (`current` undefined) or rewrites its labels, annotations and spec, and adds Karpless's
   * termination finalizer when `current` lacks it and is not being deleted; then replaces its status. */
  writeNodeClaimObject?(desired: NodeClaimObject, current: NodeClaimObject | undefined): Promise<void>;
  /** Deletes it for good: takes Karpless's termination finalizer off (which ends a deletion someone started) and
   * deletes it. An object already gone is not an error. */
  deleteNodeClaimObject?(name: string): Promise<void>;
  bindPod(pod: kube.PodRef, nodeName: string): Promise<BindOutcome>;
  cordon(nodeName: string): Promise<void>;
  setDisruptedTaint(nodeName: string, present: boolean): Promise<void>;
  /** Makes the node carry `labels` (values overwritten) and `taints` (added when missing, matched by key and
   * effect); removes only the taints named in `removeTaints`. Never removes a taint another actor owns. */
  syncNode(nodeName: string, desired: NodeSync): Promise<void>;
  /** Deletes the node for good: takes Karpless's termination finalizer off (which ends a `kubectl delete node` the
   * termination waited on) and deletes it. A node already gone is not an error. */
  deleteNode(nodeName: string): Promise<void>;
  evict(pod: kube.PodRef): Promise<EvictionOutcome>;
  recordEvent(event: ClusterEvent): Promise<void>;
  /** Replaces the status subresource of a NodePool or EC2NodeClass; 'gone' when the object no longer exists. */
  replaceStatus(update: StatusUpdate): Promise<'replaced' | 'gone'>;
}

/** What syncNode makes true of a node. */
export interface NodeSync {
  labels: Record<string, string>;
  /** Label keys to take off, such as a capacity reservation's once the instance has left it (docs/aws.md, Capacity
   * reservations); a key also in `labels` stays. */
  removeLabels?: readonly string[];
  /** Merged into the node's annotations (values overwritten), as Karpenter's registration copies the NodeClaim's. */
  annotations?: Record<string, string>;
  taints: kube.Taint[];
  /** Taints to take off (matched by key and effect), such as karpenter.sh/unregistered at registration. */
  removeTaints?: kube.Taint[];
  /** Finalizers the node must carry (added when missing), such as karpenter.sh/termination at registration. */
  finalizers?: string[];
}

export interface ClaimFilter {
  states?: readonly NodeClaimState[];
  nodePool?: string;
}

export interface NodeClaimStore {
  /** Writes a new claim; throws ConflictError if the name exists. */
  create(claim: NodeClaim): Promise<NodeClaim>;
  /** A claim as stored, Terminated ones included until the store deletes them (get does not apply the retention). */
  get(name: string): Promise<NodeClaim | undefined>;
  /** Claims matching the filter, without Terminated claims past their retention (`claimExpiresAt` in
   * shared/api/nodeclaim.ts, TERMINATED_CLAIM_RETENTION_MS after termination, at the store's clock). */
  list(filter?: ClaimFilter): Promise<NodeClaim[]>;
  getByInstanceId(instanceId: string): Promise<NodeClaim | undefined>;
  /** Moves the claim to `to`, applying `patch`, conditional on the version the caller read. Throws
   * IllegalTransitionError for a transition the state machine forbids and ConflictError on a lost race. */
  transition(claim: NodeClaim, to: NodeClaimState, patch?: Partial<NodeClaim>): Promise<NodeClaim>;
  /** Patches fields without changing state, conditional on version. */
  update(claim: NodeClaim, patch: Partial<NodeClaim>): Promise<NodeClaim>;
  /** Deletes, conditional on version (an ICE-failed claim is deleted so its pods re-plan). */
  delete(claim: NodeClaim): Promise<void>;
  markUnavailable(offering: UnavailableOffering): Promise<void>;
  /** Offerings whose expiry is still in the future at `now` (filtering is done in the read). */
  listUnavailable(now: number): Promise<UnavailableOffering[]>;
  putDecision(record: DecisionRecord): Promise<void>;
  listDecisions(nodeClaim: string): Promise<DecisionRecord[]>;
  /** Where the last disruption sweep stopped on its deadline (one per cluster); undefined when it finished. A store
   * without these (a test double) makes every sweep start from the beginning. */
  getSweepCursor?(): Promise<SweepCursor | undefined>;
  /** Keeps the cursor, or clears it (undefined) once a sweep finishes. Unconditional: the cluster queue's one
   * consumer is the only writer. */
  putSweepCursor?(cursor: SweepCursor | undefined): Promise<void>;
}

export interface QueueMessage {
  body: string;
  groupId?: string;
  deduplicationId?: string;
  delaySeconds?: number;
}

/** Where a function re-queues follow-up work (the termination state machine, the sweep). */
export interface WorkQueue {
  send(message: QueueMessage): Promise<void>;
}

/** What a queue keeps of a message: a FIFO queue takes the group and deduplication id but no per-message delay; a
 * standard queue the reverse. Both WorkQueue adapters (shared/aws/sqs/work-queue.ts and its in-memory twin
 * shared/sim/sqs/work-queue.ts) send exactly this. */
export function deliveredMessage(message: QueueMessage, fifo: boolean): QueueMessage {
  if (fifo) {
    return {
      body: message.body,
      ...(message.groupId !== undefined ? { groupId: message.groupId } : {}),
      ...(message.deduplicationId ? { deduplicationId: message.deduplicationId } : {}),
    };
  }
  return { body: message.body, ...(message.delaySeconds ? { delaySeconds: message.delaySeconds } : {}) };
}
