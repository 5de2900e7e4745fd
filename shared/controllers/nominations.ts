// Nominations: the pods a provisioning pass placed on existing nodes, in-flight claims or its own launched claims,
// recorded where the next pass and the lifecycle read them and announced with Nominated events.

import type { PodRef } from '../api/kube';
import type { NodeClaim } from '../api/nodeclaim';
import { podRef, refKey } from '../api/pods';
import { ConflictError } from '../errors';
import type { ClusterNode, SchedulingResult } from '../scheduling';
import type { ClusterView } from './cluster-nodes';
import type { ControlPlaneDeps } from './deps';
import { emitEvent } from './events';
import { keyOf } from './provision-result';

/** Pods the solver placed on existing nodes or in-flight claims are nominated there: recorded on the claim so the
 * next pass counts them, and announced with a Nominated event. */
export async function nominateToExisting(
  deps: ControlPlaneDeps,
  view: ClusterView,
  solved: SchedulingResult,
): Promise<number> {
  const before = new Map<string, Set<string>>(
    view.existing.map((n: ClusterNode) => [n.name, new Set(n.pods.map(keyOf))]),
  );
  let count = 0;
  for (const placement of solved.existingNodes) {
    const known = before.get(placement.name) ?? new Set<string>();
    const added = placement.pods.filter((p) => !known.has(keyOf(p)));
    if (added.length === 0) continue;
    count += added.length;
    // Recorded on the claim so the next pass counts the pod there and the lifecycle binds it (kube-scheduler may
    // bind it first on a running node; that 409 is fine). Nodes without a claim only get the event.
    const claim = view.claimOf.get(placement.name);
    if (claim) {
      const existingRefs = claim.nominatedPods.filter((r) => view.held.get(refKey(r))?.name === claim.name);
      try {
        // lastNominatedAt: the disruption sweep spares a node for 20 s after pods are nominated to it.
        await deps.store.update(claim, {
          nominatedPods: [...existingRefs, ...added.map(podRef)],
          lastNominatedAt: new Date(deps.clock.now()).toISOString(),
        });
      } catch (err) {
        if (!(err instanceof ConflictError)) throw err;
        // The claim moved on; the next pass will place these pods again.
        continue;
      }
    }
    for (const pod of added) {
      await emitEvent(deps, {
        involved: { kind: 'Pod', name: pod.metadata.name, namespace: pod.metadata.namespace },
        type: 'Normal',
        reason: 'Nominated',
        message: claim
          ? `Pod should schedule on: nodeclaim/${claim.name}`
          : `Pod should schedule on: node/${placement.name}`,
      });
    }
  }
  return count;
}

export async function announceNominations(deps: ControlPlaneDeps, claim: NodeClaim, pods: PodRef[]): Promise<void> {
  for (const ref of pods) {
    await emitEvent(deps, {
      involved: { kind: 'Pod', name: ref.name, namespace: ref.namespace, ...(ref.uid ? { uid: ref.uid } : {}) },
      type: 'Normal',
      reason: 'Nominated',
      message: `Pod should schedule on: nodeclaim/${claim.name}`,
    });
  }
}
