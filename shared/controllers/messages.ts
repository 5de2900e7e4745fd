// Follow-up work the use-cases queue for themselves: a re-plan hint on the cluster FIFO queue, and the next step of
// a NodeClaim's termination. Both are hints; the receiver re-reads state.
import type { PodRef } from '../api/kube';
import type { ClusterMessage, TerminationMessage } from '../messages';
import type { ControlPlaneDeps } from './deps';
import { newId } from './ids';

/** Asks for another provisioning pass. The deduplication id is unique per request: FIFO deduplication would
 * otherwise swallow a second re-plan of the same pods within five minutes. */
export async function requestReplan(deps: ControlPlaneDeps, reason: string, pods: PodRef[] = []): Promise<void> {
  const message: ClusterMessage = {
    v: 1,
    cluster: deps.cluster,
    kind: 'PodsPending',
    at: new Date(deps.clock.now()).toISOString(),
    refs: pods.map((p) => ({ namespace: p.namespace, name: p.name, ...(p.uid ? { uid: p.uid } : {}) })),
  };
  await deps.queue.send({
    body: JSON.stringify(message),
    groupId: deps.cluster,
    deduplicationId: `replan-${newId(deps)}`,
  });
  deps.log.info('re-plan requested', { reason, pods: pods.length });
}

/** Queues the next termination step of a claim, after `delaySeconds` (SQS caps a delay at 900 s). */
export async function queueTermination(deps: ControlPlaneDeps, nodeClaim: string, delaySeconds = 0): Promise<void> {
  const message: TerminationMessage = {
    v: 1,
    cluster: deps.cluster,
    kind: 'Terminate',
    nodeClaim,
    at: new Date(deps.clock.now()).toISOString(),
  };
  const body = JSON.stringify(message);
  const delay = Math.max(0, Math.min(900, Math.round(delaySeconds)));
  // A dedicated (standard) termination queue takes per-message delays and needs no group; on the cluster FIFO
  // queue the message joins the cluster's group.
  if (deps.terminationQueue) await deps.terminationQueue.send({ body, delaySeconds: delay });
  else
    await deps.queue.send({
      body,
      groupId: deps.cluster,
      deduplicationId: `terminate-${nodeClaim}-${newId(deps)}`,
      delaySeconds: delay,
    });
}
