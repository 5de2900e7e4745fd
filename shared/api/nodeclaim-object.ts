// The karpenter.sh/v1 NodeClaim object the control plane mirrors into the cluster for each stored claim
// (docs/kubernetes.md, NodeClaim objects): DynamoDB stays the source of truth, and this is what `kubectl get
// nodeclaims`, k9s and eks-node-viewer read. Pure: the claim and a few facts the sweep knows in, the object out.
import type { NodeSelectorRequirementWithMinValues } from './karpenter';
import type { ConditionStatus, ObjectMeta, OwnerReference, Taint } from './kube';
import { FinalizerTermination, LabelCapacityType, LabelInstanceType, LabelNodePool, LabelZone } from './labels';
import type { NodeClaim } from './nodeclaim';
import { formatResourceList } from './resources';

/** Marks the objects Karpless owns: the mirror never changes or deletes a NodeClaim without it (Karpenter's own, in a
 * cluster being migrated). */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY_KARPLESS = 'karpless';

export interface NodeClaimObjectCondition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  lastTransitionTime: string;
}

export interface NodeClaimObject {
  apiVersion: 'karpenter.sh/v1';
  kind: 'NodeClaim';
  /** `finalizers` holds Karpless's termination finalizer (and any another actor added): a `kubectl delete nodeclaim`
   * waits on it. `deletionTimestamp` is set by the API server when someone deletes the object: the mirror then
   * terminates the claim's node. */
  metadata: Pick<
    ObjectMeta,
    | 'name'
    | 'uid'
    | 'resourceVersion'
    | 'creationTimestamp'
    | 'labels'
    | 'annotations'
    | 'finalizers'
    | 'deletionTimestamp'
  > & {
    /** The NodePool the claim was written for, by UID, as Karpenter sets it: Kubernetes' garbage collector then
     * deletes the object once that pool is gone, even when another pool now has its name. */
    ownerReferences?: NodeClaimOwnerReference[];
  };
  spec: {
    nodeClassRef: { group: string; kind: string; name: string };
    requirements: NodeSelectorRequirementWithMinValues[];
    taints?: Taint[];
    startupTaints?: Taint[];
    expireAfter?: string;
    terminationGracePeriod?: string;
    resources: { requests: Record<string, string> };
  };
  status?: {
    providerID?: string;
    nodeName?: string;
    imageID?: string;
    capacity?: Record<string, string>;
    allocatable?: Record<string, string>;
    conditions?: NodeClaimObjectCondition[];
  };
}

/** An owner reference as Karpenter writes it on a NodeClaim: always with the owner's UID, never `controller`. */
export type NodeClaimOwnerReference = Required<Omit<OwnerReference, 'controller'>>;

/** What the planning sweep knows of a claim beyond the store: why it drifted, whether it may be consolidated, and its
 * Node's capacity and allocatable. */
export interface NodeClaimFacts {
  drifted?: string;
  consolidatable?: boolean;
  capacity?: Record<string, string>;
  allocatable?: Record<string, string>;
}

const CONDITION_ORDER = [
  'Launched',
  'Registered',
  'Initialized',
  'Ready',
  'Drifted',
  'Consolidatable',
  'Disrupting',
  'DisruptionReason',
];
/** The causes Karpenter's disruption controller records in the DisruptionReason condition. */
const DISRUPTION_REASONS = new Set<string>(['Empty', 'Underutilized', 'Drifted']);
const REACHED: Record<string, readonly NodeClaim['state'][]> = {
  Launched: ['Launched', 'Registered', 'Initialized', 'Draining', 'Terminated'],
  Registered: ['Registered', 'Initialized', 'Draining', 'Terminated'],
  Initialized: ['Initialized', 'Draining', 'Terminated'],
};

/** The object for a claim; `previous` (the one in the cluster) keeps each unchanged condition's transition time, so a
 * claim that did not change yields an equal object and no write. */
export function nodeClaimObject(
  claim: NodeClaim,
  facts: NodeClaimFacts,
  previous: NodeClaimObject | undefined,
  now: string,
): NodeClaimObject {
  const labels: Record<string, string> = {
    ...claim.labels,
    [LabelNodePool]: claim.nodePool,
    ...(claim.instanceType ? { [LabelInstanceType]: claim.instanceType } : {}),
    ...(claim.zone ? { [LabelZone]: claim.zone } : {}),
    ...(claim.capacityType ? { [LabelCapacityType]: claim.capacityType } : {}),
    [MANAGED_BY_LABEL]: MANAGED_BY_KARPLESS,
  };
  const before = new Map((previous?.status?.conditions ?? []).map((c) => [c.type, c]));
  const condition = (type: string, status: ConditionStatus, reason: string, message = '', at?: string) => {
    const old = before.get(type);
    const lastTransitionTime = old && old.status === status ? old.lastTransitionTime : (at ?? now);
    return { type, status, reason, message, lastTransitionTime };
  };
  const conditions: NodeClaimObjectCondition[] = [];
  for (const type of ['Launched', 'Registered', 'Initialized'] as const) {
    const reached = REACHED[type]?.includes(claim.state) ?? false;
    if (reached) conditions.push(condition(type, 'True', type, '', claim.stateTimes[type]));
    else if (claim.state === 'Failed' && !claim.stateTimes[type])
      conditions.push(condition(type, 'False', claim.failure?.reason ?? 'Failed', claim.failure?.message ?? ''));
    else conditions.push(condition(type, 'Unknown', 'AwaitingReconciliation', `object is awaiting reconciliation`));
  }
  // The root condition as Karpenter's status library computes it: False if a dependent is False, Unknown while one is
  // Unknown, True once all are True (so `kubectl get nodeclaims` shows READY Unknown during a launch, as there).
  const ready: ConditionStatus = conditions.some((c) => c.status === 'False')
    ? 'False'
    : conditions.some((c) => c.status === 'Unknown')
      ? 'Unknown'
      : 'True';
  conditions.push(
    condition('Ready', ready, ready === 'True' ? 'Ready' : ready === 'False' ? 'NotReady' : 'UnhealthyDependents'),
  );
  if (facts.drifted) conditions.push(condition('Drifted', 'True', 'Drifted', facts.drifted));
  if (facts.consolidatable) conditions.push(condition('Consolidatable', 'True', 'Consolidatable'));
  const d = claim.disruption;
  if (claim.state === 'Draining' || d?.phase) {
    conditions.push(condition('Disrupting', 'True', d?.cause ?? 'Deleted', d?.detail ?? ''));
    // Karpenter's own condition, set only by its disruption controller's commands (emptiness, consolidation,
    // drift), with the reason as both reason and message; expiration, repair and interruption delete the NodeClaim
    // without it.
    if (d && DISRUPTION_REASONS.has(d.cause)) conditions.push(condition('DisruptionReason', 'True', d.cause, d.cause));
  }
  conditions.sort((a, b) => CONDITION_ORDER.indexOf(a.type) - CONDITION_ORDER.indexOf(b.type));
  const status = {
    ...(claim.providerID ? { providerID: claim.providerID } : {}),
    ...(claim.nodeName ? { nodeName: claim.nodeName } : {}),
    ...(claim.imageId ? { imageID: claim.imageId } : {}),
    ...(facts.capacity ? { capacity: facts.capacity } : {}),
    ...(facts.allocatable ? { allocatable: facts.allocatable } : {}),
    conditions,
  };
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name: claim.name,
      labels,
      finalizers: [FinalizerTermination],
      ...(claim.annotations && Object.keys(claim.annotations).length ? { annotations: claim.annotations } : {}),
      ...(claim.nodePoolUid ? { ownerReferences: [nodePoolOwner(claim.nodePool, claim.nodePoolUid)] } : {}),
    },
    spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: claim.nodeClass },
      requirements: claim.requirements,
      ...(claim.taints.length ? { taints: claim.taints } : {}),
      ...(claim.startupTaints.length ? { startupTaints: claim.startupTaints } : {}),
      ...(claim.expireAfter ? { expireAfter: claim.expireAfter } : {}),
      ...(claim.terminationGracePeriod ? { terminationGracePeriod: claim.terminationGracePeriod } : {}),
      resources: { requests: formatResourceList(claim.requests) },
    },
    status,
  };
}

const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, value) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : value,
  );

/** Karpenter's owner reference, without `blockOwnerDeletion`: setting that needs `update` on `nodepools/finalizers`
 * where the OwnerReferencesPermissionEnforcement admission plugin runs, and it would only make a foreground deletion
 * of the NodePool wait for the objects, which Karpless's own cascade already drains (docs/kubernetes.md, NodeClaim
 * objects). */
export function nodePoolOwner(name: string, uid: string): NodeClaimOwnerReference {
  return { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', name, uid };
}

/** Whether the object in the cluster needs rewriting: its labels, annotations, owners, spec or status differ. */
export function nodeClaimObjectStale(desired: NodeClaimObject, current: NodeClaimObject): boolean {
  return (
    canonical(desired.metadata.labels ?? {}) !== canonical(current.metadata.labels ?? {}) ||
    canonical(desired.metadata.annotations ?? {}) !== canonical(current.metadata.annotations ?? {}) ||
    canonical(desired.metadata.ownerReferences ?? []) !== canonical(current.metadata.ownerReferences ?? []) ||
    canonical(desired.spec) !== canonical(current.spec) ||
    canonical(desired.status ?? {}) !== canonical(current.status ?? {}) ||
    lacksFinalizer(current)
  );
}

/** An object that should carry Karpless's termination finalizer and does not: one mirrored before it was added, or
 * someone took it off. An object being deleted cannot take a new finalizer, so it never lacks one. */
export const lacksFinalizer = (o: Pick<NodeClaimObject, 'metadata'>): boolean =>
  !o.metadata.deletionTimestamp && !(o.metadata.finalizers ?? []).includes(FinalizerTermination);

export const isManagedByKarpless = (o: Pick<NodeClaimObject, 'metadata'>): boolean =>
  o.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY_KARPLESS;
