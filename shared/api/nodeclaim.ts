// The NodeClaim: the engine's record of one node it decided to launch, persisted in the NodeClaimStore. Its state
// machine lives here, in one place, so every adapter enforces the same transitions.
import type { NodeSelectorRequirementWithMinValues } from './karpenter';
import type { PodRef, Taint } from './kube';
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

export type DisruptionCause =
  | 'Empty'
  | 'Underutilized'
  | 'Drifted'
  | 'Expired'
  | 'Interrupted'
  | 'Unhealthy'
  | 'Deleted';

/** Where an in-flight disruption command stands: waiting for its 15 s re-check, or for its replacements. */
export type DisruptionPhase = 'Validating' | 'Launching';

export interface NodeClaim {
  name: string;
  /** Stable unique id; CreateFleet's ClientToken, so a replayed launch never makes a second instance. */
  uid: string;
  cluster: string;
  nodePool: string;
  nodeClass: string;
  state: NodeClaimState;
  /** Optimistic-lock counter: every write is conditional on the version it read. */
  version: number;
  /** The claim's scheduling requirements, instance types and zones included. */
  requirements: NodeSelectorRequirementWithMinValues[];
  /** Instance types it may launch as, cheapest first (at most 60). */
  instanceTypeOptions: string[];
  labels: Record<string, string>;
  taints: Taint[];
  startupTaints: Taint[];
  /** Sum of the nominated pods' requests plus DaemonSet overhead. */
  requests: ResourceList;
  nominatedPods: PodRef[];
  instanceId?: string;
  providerID?: string;
  nodeName?: string;
  instanceType?: string;
  zone?: string;
  capacityType?: 'spot' | 'on-demand';
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
  /** Fingerprint of the set of pod uids last seen on the claim's node (shared/controllers/pod-activity), so a sweep
   * without a watch stream notices pods leaving as well as arriving. */
  podSetHash?: string;
  /** ISO time the sweep first saw the current pod set (its granularity is the sweep period): consolidateAfter's
   * "last pod change". */
  podsChangedAt?: string;
  /** ISO time the provisioner last nominated pods to this claim: the disruption sweep spares it for 20 s. */
  lastNominatedAt?: string;
  /** For the termination state machine: when the drain began and how far it got. */
  drain?: { startedAt: string; deadline?: string; evicted?: number; step?: string };
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
}
