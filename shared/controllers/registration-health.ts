// The NodePool's NodeRegistrationHealthy condition, as Karpenter keeps it: over the pool's last 4 launch outcomes (a
// node registered, or a claim that failed before its node registered), half or more failures make it False with the
// latest failure's reason; otherwise one registration makes it True; with no outcome yet it is Unknown. Karpless
// derives it from the claims the store keeps (terminated ones for 2 days) rather than an in-memory buffer, so every
// invocation reads the same answer, and counts only claims launched from the pool's and class's current specs, as
// Karpenter starts over when either changes (docs/disruption.md, "Events").
import { claimHashes } from '../api/hash';
import type { EC2NodeClass, NodePool } from '../api/karpenter';
import type { NodeClaim } from '../api/nodeclaim';
import type { Condition } from '../api/status';

/** Karpenter's buffer of outcomes, and the share of failures in it that makes the pool unhealthy. */
export const REGISTRATION_OUTCOMES = 4;
const UNHEALTHY_SHARE = 0.5;

export type ConditionInput = Omit<Condition, 'lastTransitionTime' | 'observedGeneration'>;

interface Outcome {
  at: string;
  ok: boolean;
  reason: string;
  message: string;
}

/** A claim's launch outcome, when it has one: registered, or failed without ever registering. */
export function registrationOutcome(claim: NodeClaim): Outcome | undefined {
  const registered = claim.stateTimes.Registered;
  if (registered) return { at: registered, ok: true, reason: '', message: '' };
  const failedAt = claim.stateTimes.Failed;
  if (!failedAt || !claim.failure) return undefined;
  // A node that launched but never joined is Karpenter's RegistrationFailed; a launch that failed keeps its reason.
  return claim.stateTimes.Launched
    ? { at: failedAt, ok: false, reason: 'RegistrationFailed', message: 'Failed to register node' }
    : { at: failedAt, ok: false, reason: claim.failure.reason, message: claim.failure.message };
}

/** Whether the claim was launched from these specs: a claim with hashes of the current version that differ was not. */
function sameSpec(claim: NodeClaim, current: ReturnType<typeof claimHashes>): boolean {
  if (claim.hashVersion !== current.hashVersion) return true;
  if (current.nodePoolHash && claim.nodePoolHash && claim.nodePoolHash !== current.nodePoolHash) return false;
  return !(current.nodeClassHash && claim.nodeClassHash && claim.nodeClassHash !== current.nodeClassHash);
}

export function registrationHealthy(
  pool: NodePool,
  nodeClass: EC2NodeClass | undefined,
  claims: readonly NodeClaim[],
): ConditionInput {
  const current = claimHashes(pool, nodeClass);
  const outcomes = claims
    .filter((c) => c.nodePool === pool.metadata.name && sameSpec(c, current))
    .flatMap((c) => registrationOutcome(c) ?? [])
    .sort((a, b) => a.at.localeCompare(b.at))
    .slice(-REGISTRATION_OUTCOMES);
  const failures = outcomes.filter((o) => !o.ok);
  const latest = failures.at(-1);
  if (latest && failures.length / REGISTRATION_OUTCOMES >= UNHEALTHY_SHARE) {
    return { type: 'NodeRegistrationHealthy', status: 'False', reason: latest.reason, message: latest.message };
  }
  if (outcomes.some((o) => o.ok)) {
    return { type: 'NodeRegistrationHealthy', status: 'True', reason: 'NodeRegistrationHealthy', message: '' };
  }
  return {
    type: 'NodeRegistrationHealthy',
    status: 'Unknown',
    reason: 'AwaitingReconciliation',
    message: 'object is awaiting reconciliation',
  };
}
