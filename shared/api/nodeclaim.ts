// The NodeClaim: the engine's record of one node it decided to launch, persisted in the NodeClaimStore. Its state
// machine lives here, in one place, so every adapter enforces the same transitions.
import type { NodeSelectorRequirementWithMinValues } from './karpenter';
import type { PodRef, Taint } from './kube';
import {
  LabelCapacityReservationId,
  LabelCapacityReservationInterruptible,
  LabelCapacityReservationType,
} from './labels';
import type { ResourceList } from './resources';

export type NodeClaimState =
  | 'Pending'
  | 'Launched'
  | 'Registered'
  | 'Initialized'
  | 'Draining'
  | 'Terminated'
  | 'Failed';

export const NODECLAIM_TRANSITIONS: Readonly<Record<NodeClaimState, readonly NodeClaimState[]>> = {
  // Draining is reachable from every live state: interruption or a timeout can end a claim at any point.
  Pending: ['Launched', 'Failed', 'Draining'],
  Launched: ['Registered', 'Failed', 'Draining'],
  Registered: ['Initialized', 'Failed', 'Draining'],
  Initialized: ['Draining'],
  Draining: ['Terminated'],
  // A failed claim may still own an instance (a launch that timed out); termination cleans it up.
  Failed: ['Terminated'],
  Terminated: [],
};

export class IllegalTransitionError extends Error {
  constructor(
    readonly claim: string,
    readonly from: NodeClaimState,
    readonly to: NodeClaimState,
  ) {
    super(
      `NodeClaim ${claim}: illegal transition ${from} → ${to} (allowed: ${NODECLAIM_TRANSITIONS[from].join(', ') || 'none'})`,
    );
  }
}

export function assertTransition(claim: string, from: NodeClaimState, to: NodeClaimState): void {
  if (!NODECLAIM_TRANSITIONS[from].includes(to)) throw new IllegalTransitionError(claim, from, to);
}

export const LIVE_STATES: readonly NodeClaimState[] = ['Pending', 'Launched', 'Registered', 'Initialized', 'Draining'];

/** How long a Terminated claim stays in the NodeClaimStore: 2 days after it entered Terminated, then `list` omits it
 * and the DynamoDB table's TTL deletes it. Safe because nothing needs a terminated claim that long:
 * - the disruption history (shared/controllers/disruption-history.ts historyFrom) looks back 24 h from the claim's
 *   `disruption.at`, which is never after its termination, so a claim leaves that window a day before it expires;
 * - `karpless explain` reads decision records, separate items kept 30 days (DECISION_TTL_MS), not the claim;
 * - termination, interruption, lifecycle and GC treat a missing claim as they treat a Terminated one (done, ignored,
 *   or an orphan instance), and replayed launches key on the random uid, never on a dead claim's name.
 * The spare day is for people reading recent terminations in the table. Every `list` reads every claim item until
 * DynamoDB deletes it (typically within 2 more days), so a cluster churning 200 nodes a day reads ~800 of them. */
export const TERMINATED_CLAIM_RETENTION_MS = 2 * 24 * 60 * 60 * 1000;

/** When a claim expires (epoch ms), or undefined while it is not Terminated. Rounded up to the whole second, the
 * precision of DynamoDB TTL, so both stores expire it at the same instant. Counted from the Terminated state time the
 * store stamped (createdAt only if an item lacks it, so even a hand-edited claim expires). */
export function claimExpiresAt(claim: Pick<NodeClaim, 'state' | 'stateTimes' | 'createdAt'>): number | undefined {
  if (claim.state !== 'Terminated') return undefined;
  let terminatedAt = Date.parse(claim.stateTimes.Terminated ?? '');
  if (Number.isNaN(terminatedAt)) terminatedAt = Date.parse(claim.createdAt);
  if (Number.isNaN(terminatedAt)) return undefined;
  return Math.ceil((terminatedAt + TERMINATED_CLAIM_RETENTION_MS) / 1000) * 1000;
}

export type DisruptionCause =
  | 'Empty'
  | 'Underutilized'
  | 'Drifted'
  | 'Expired'
  | 'Interrupted'
  | 'Unhealthy'
  /** Garbage collection ended an initialized claim whose instance is gone (docs/disruption.md). */
  | 'GarbageCollected'
  /** The claim's NodePool was deleted (docs/disruption.md, Deleting a NodePool). */
  | 'NodePoolDeleted'
  | 'Deleted';

/** Where an in-flight disruption command stands: waiting for its 15 s re-check, or for its replacements. */
export type DisruptionPhase = 'Validating' | 'Launching';

/** The reservation an instance launched into: its id, type, and a capacity block's end. */
export interface LaunchedReservation {
  id: string;
  type: 'default' | 'capacity-block';
  endTime?: string;
  /** Launched into an interruptible capacity reservation (EC2's `interruptible-capacity-reservation` lifecycle). */
  interruptible?: boolean;
}

export interface NodeClaim {
  name: string;
  /** Stable unique id; CreateFleet's ClientToken, so a replayed launch never makes a second instance. */
  uid: string;
  cluster: string;
  nodePool: string;
  /** The UID of the NodePool the claim was written for, as Karpenter's NodeClaim names it in its owner reference: a
   * NodePool deleted and created again under the same name is another pool, and this claim's nodes end with the old
   * one (docs/disruption.md, Deleting a NodePool). Absent on claims written before it was stamped: the deletion
   * cascade adopts those by name once, stamping the live pool's UID. */
  nodePoolUid?: string;
  nodeClass: string;
  state: NodeClaimState;
  /** Optimistic-lock counter: every write is conditional on the version it read. */
  version: number;
  /** The claim's scheduling requirements, instance types and zones included. */
  requirements: NodeSelectorRequirementWithMinValues[];
  /** Instance types it may launch as, cheapest first (at most 60). */
  instanceTypeOptions: string[];
  labels: Record<string, string>;
  /** The NodePool template's annotations at launch (shared/api/claim-template.ts); registration copies them to the
   * Node, so a template's karpenter.sh/do-not-disrupt protects its nodes. */
  annotations?: Record<string, string>;
  taints: Taint[];
  startupTaints: Taint[];
  /** The NodePool's `expireAfter` and `terminationGracePeriod` at launch: the node lives by these, not by later
   * NodePool values (a change there drifts it). Absent on claims written before they were stamped. */
  expireAfter?: string;
  terminationGracePeriod?: string;
  /** Sum of the nominated pods' requests plus DaemonSet overhead. */
  requests: ResourceList;
  /** What the node will offer, when known before it registers (Karpenter's NodeClaim status.allocatable, read from a
   * cluster dump); the cluster view prefers it to the instance type's. */
  allocatable?: ResourceList;
  nominatedPods: PodRef[];
  instanceId?: string;
  providerID?: string;
  nodeName?: string;
  instanceType?: string;
  zone?: string;
  capacityType?: 'spot' | 'on-demand' | 'reserved';
  /** The capacity reservation a `reserved` node launched into; a capacity block drains before its end
   * (docs/aws.md, Capacity reservations). */
  capacityReservation?: LaunchedReservation;
  pricePerHour?: number;
  imageId?: string;
  /** ISO-8601 time each state was entered, keyed by state, plus createdAt. */
  createdAt: string;
  stateTimes: Partial<Record<NodeClaimState, string>>;
  disruption?: {
    cause: DisruptionCause;
    at: string;
    replacements?: string[];
    detail?: string;
    /** A disruption command in flight across sweeps (shared/controllers/disruption): set on every candidate from the
     * decision until termination starts (the claim then turns Draining) or the command is dropped (cleared). */
    phase?: DisruptionPhase;
    commandId?: string;
    /** Validating: the first sweep at or after this ISO time re-checks the command. */
    validateAfter?: string;
    /** Launching: the command is abandoned if its replacements are not initialized by this ISO time. */
    deadline?: string;
    /** The decided command, JSON-encoded (the engine's DisruptionCommand without its record's detail). */
    command?: string;
  };
  failure?: { reason: string; message: string };
  /** Hash of the NodePool template and EC2NodeClass spec at launch, for drift detection. */
  nodePoolHash?: string;
  nodeClassHash?: string;
  /** How the two hashes were computed (CLAIM_HASH_VERSION in shared/api/hash.ts); absent on claims written before
   * versioning. Drift compares hashes of the current version only; the planning sweep re-stamps older ones. */
  hashVersion?: number;
  /** Fingerprint of the set of pod uids last seen on the claim's node (shared/controllers/pod-activity), so a sweep
   * without a watch stream notices pods leaving as well as arriving. */
  podSetHash?: string;
  /** ISO time the sweep first saw the current pod set (its granularity is the sweep period): consolidateAfter's
   * "last pod change". */
  podsChangedAt?: string;
  /** ISO time the provisioner last nominated pods to this claim: the disruption sweep spares it for 20 s. */
  lastNominatedAt?: string;
  /** For the termination state machine: when the drain began, how far it got, and when a step last moved it on
   * (`steppedAt`: the heartbeat the stalled-termination redrive reads, shared/controllers/termination-redrive.ts). */
  drain?: { startedAt: string; deadline?: string; evicted?: number; step?: string; steppedAt?: string };
  /** A termination whose step messages stopped (dead-lettered after an outage) and was queued again: how many times,
   * and when last (docs/disruption.md, Drains that outlive an outage). */
  redrive?: { count: number; at: string };
}

/** A decision record: why a node was launched, kept or removed. */
export interface DecisionRecord {
  id: string;
  cluster: string;
  at: string;
  kind: 'Provision' | 'Disrupt' | 'Interrupt' | 'Terminate' | 'Keep';
  nodeClaims: string[];
  summary: string;
  /** Free-form, JSON-serializable evidence: inputs, options, chosen option and price, rejected options with reasons. */
  detail: Record<string, unknown>;
  /** Set when the record was cut to fit the store (shared/api/decision-size.ts): each cut list's or string's path
   * (`detail.claims[0].pods`) and how many elements or characters it lost. */
  truncated?: Record<string, number>;
}

/** Karpenter's labels on a node in a capacity reservation: its id, its type (`default` or `capacity-block`) and
 * whether it is interruptible (`true` or `false`). */
export function reservationLabels(claim: Pick<NodeClaim, 'capacityReservation'>): Record<string, string> {
  const r = claim.capacityReservation;
  if (!r) return {};
  return {
    [LabelCapacityReservationId]: r.id,
    [LabelCapacityReservationType]: r.type,
    [LabelCapacityReservationInterruptible]: String(r.interruptible === true),
  };
}
