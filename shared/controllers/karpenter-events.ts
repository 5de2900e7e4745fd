// Karpenter's events for disruption, draining and launching, with its reasons, types and message wording, so a
// `kubectl get events` reads the same under Karpless (docs/disruption.md, "Events"). Pure builders: the use-cases
// emit them through emitEvent, which never lets a failed write fail the decision.
import type { Pod } from '../api/kube';
import type { DisruptionCause } from '../api/nodeclaim';
import type { ClusterEvent } from '../ports';

/** A replacement NodeClaim launched for a disruption command. */
export function disruptionLaunching(nodeClaim: string, cause: string): ClusterEvent {
  return {
    involved: { kind: 'NodeClaim', name: nodeClaim },
    type: 'Normal',
    reason: 'DisruptionLaunching',
    message: `Launching NodeClaim: ${cause}`,
  };
}

/** A disruption command waits for this replacement to initialize before its candidates go. */
export function disruptionWaitingReadiness(nodeClaim: string): ClusterEvent {
  return {
    involved: { kind: 'NodeClaim', name: nodeClaim },
    type: 'Normal',
    reason: 'DisruptionWaitingReadiness',
    message: 'Waiting on readiness to continue disruption',
  };
}

/** A disruption command's candidate starts terminating: one event on its Node (when it has one), one on its claim. */
export function disruptionTerminating(node: string | undefined, nodeClaim: string, cause: string): ClusterEvent[] {
  const events: ClusterEvent[] = [];
  if (node) {
    events.push({
      involved: { kind: 'Node', name: node },
      type: 'Normal',
      reason: 'DisruptionTerminating',
      message: `Disrupting Node: ${cause}`,
    });
  }
  events.push({
    involved: { kind: 'NodeClaim', name: nodeClaim },
    type: 'Normal',
    reason: 'DisruptionTerminating',
    message: `Disrupting NodeClaim: ${cause}`,
  });
  return events;
}

/** The drain's reason for an eviction, as Karpenter words it: the disruption method that chose the node, else a
 * forceful termination (a delete, an interruption, an expiry, a repair). */
export function evictionReason(cause: DisruptionCause | undefined): string {
  return cause === 'Empty' || cause === 'Underutilized' || cause === 'Drifted' ? cause : 'Forceful Termination';
}

/** The drain evicted this pod. */
export function podEvicted(pod: Pod, reason: string): ClusterEvent {
  return {
    involved: { kind: 'Pod', name: pod.metadata.name, namespace: pod.metadata.namespace ?? 'default' },
    type: 'Normal',
    reason: 'Evicted',
    message: `Evicted pod: ${reason}`,
  };
}

/** The drain could not evict this pod: its PodDisruptionBudget allows no disruption now. */
export function failedDraining(node: string, pod: Pod): ClusterEvent {
  const ref = `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`;
  return {
    involved: { kind: 'Node', name: node },
    type: 'Warning',
    reason: 'FailedDraining',
    message: `Failed to drain node, evicting pod violates a PDB (Pod=${ref})`,
  };
}

/** The drain stops waiting at this time: every pod left is deleted then (the terminationGracePeriod). */
export function terminationGracePeriodExpiring(involved: ClusterEvent['involved'], at: string): ClusterEvent {
  return {
    involved,
    type: 'Warning',
    reason: 'TerminationGracePeriodExpiring',
    message: `All pods will be deleted by ${at}`,
  };
}

/** Every offering the claim asked for was refused for capacity. */
export function insufficientCapacityError(nodeClaim: string, detail: string): ClusterEvent {
  return {
    involved: { kind: 'NodeClaim', name: nodeClaim },
    type: 'Warning',
    reason: 'InsufficientCapacityError',
    message: `NodeClaim ${nodeClaim} event: ${detail}`,
  };
}
