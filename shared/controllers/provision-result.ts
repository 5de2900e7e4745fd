// What a provisioning pass did, claim by claim, and how each launch's outcome counts in it.

import type { Pod } from '../api/kube';
import type { NodeClaim } from '../api/nodeclaim';
import type { LaunchOutcome } from './launch';

/** How a pass's results, nominations and decision records name a pod: namespace/name, as the API server lists it. */
export const keyOf = (p: Pod): string => `${p.metadata.namespace}/${p.metadata.name}`;

export interface ProvisionResult {
  /** Claims this pass wrote. */
  created: string[];
  /** Claims launched by this pass, including Pending claims left by a crashed pass. */
  launched: string[];
  relaunched: string[];
  /** Own claims withdrawn because a concurrent pass planned the same pods. */
  withdrawn: string[];
  /** Claims deleted after insufficient capacity or a not-ready EC2NodeClass; their pods re-plan. */
  dropped: string[];
  failed: string[];
  /** Pods newly nominated to existing nodes or in-flight claims. */
  nominated: number;
  unschedulable: { pod: string; reason: string }[];
  /** A launch hit a retryable error: the caller should let the message be redelivered. */
  retry: boolean;
  /** Pods the solve had no time for; a continuation message asks for the pass that plans them. */
  deferred: string[];
  decision?: string;
  /** Static NodePool claims terminated because the pool has more than its replicas. */
  scaledDown?: string[];
}

export function emptyProvisionResult(): ProvisionResult {
  return {
    created: [],
    launched: [],
    relaunched: [],
    withdrawn: [],
    dropped: [],
    failed: [],
    nominated: 0,
    unschedulable: [],
    retry: false,
    deferred: [],
  };
}

export function tally(result: ProvisionResult, claim: NodeClaim, outcome: LaunchOutcome, stale: boolean): void {
  switch (outcome.kind) {
    case 'launched':
      result.launched.push(claim.name);
      if (stale) result.relaunched.push(claim.name);
      break;
    case 'insufficient-capacity':
    case 'nodeclass-not-ready':
      result.dropped.push(claim.name);
      break;
    case 'failed':
      result.failed.push(claim.name);
      break;
    case 'retry':
      result.retry = true;
      break;
    case 'superseded':
      break;
  }
}
