// Follow-up work the use-cases queue for themselves: a re-plan hint on the cluster FIFO queue, the next step of
// a NodeClaim's termination, and a disruption command's validation re-check. All are hints; the receiver re-reads
// state.

import { newId } from '../api/ids';
import type { PodRef } from '../api/kube';
import type { ClusterMessage, ControlMessage, DisruptionDueMessage, TerminationMessage } from '../messages';
import type { InstanceDeps } from './deps';

/** A message for another cluster reached this one's function: a wiring mistake that must fail loudly. */
export function assertOwnCluster(deps: Pick<InstanceDeps, 'cluster'>, message: ControlMessage): void {
  if (message.cluster !== deps.cluster) {
    throw new Error(`message for cluster ${message.cluster} reached the handler of cluster ${deps.cluster}`);
  }
}

/** Asks for another provisioning pass. The deduplication id is unique per request: FIFO deduplication would
 * otherwise swallow a second re-plan of the same pods within five minutes. */
export async function requestReplan(deps: InstanceDeps, reason: string, pods: PodRef[] = []): Promise<void> {
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
export async function queueTermination(deps: InstanceDeps, nodeClaim: string, delaySeconds = 0): Promise<void> {
  const message: TerminationMessage = {
    v: 1,
    cluster: deps.cluster,
    kind: 'Terminate',
    nodeClaim,
    at: new Date(deps.clock.now()).toISOString(),
  };
  const delay = Math.max(0, Math.min(900, Math.round(delaySeconds)));
  await sendDelayed(deps, JSON.stringify(message), delay, `terminate-${nodeClaim}-${newId(deps)}`);
}

/** A dedicated (standard) termination queue takes per-message delays and needs no group; without one the message
 * joins the cluster's group on the FIFO queue, with `deduplicationId`. */
async function sendDelayed(
  deps: InstanceDeps,
  body: string,
  delaySeconds: number,
  deduplicationId: string,
): Promise<void> {
  if (deps.terminationQueue) await deps.terminationQueue.send({ body, delaySeconds });
  else await deps.queue.send({ body, groupId: deps.cluster, deduplicationId, delaySeconds });
}

/** Schedules the re-check of decided disruption commands for `dueAt` (epoch ms). It goes to the termination queue,
 * the standard one that can delay a single message; the termination function relays it to the cluster FIFO queue
 * when due (relayDisruptionDue), so the sweep still runs only in the provisioner. The delay is rounded up, so the
 * message never arrives before the command is due, and is at least 1 s: a re-check due now would otherwise be
 * relayed back at once, over and over, if something keeps the command from moving on. */
export async function scheduleDisruptionCheck(deps: InstanceDeps, dueAt: number): Promise<number> {
  const message: DisruptionDueMessage = {
    v: 1,
    cluster: deps.cluster,
    kind: 'DisruptionDue',
    at: new Date(dueAt).toISOString(),
  };
  const delaySeconds = Math.max(1, Math.min(900, Math.ceil((dueAt - deps.clock.now()) / 1000)));
  await sendDelayed(deps, JSON.stringify(message), delaySeconds, dueDeduplicationId(message));
  return delaySeconds;
}

/** Forwards a due re-check to the cluster FIFO queue, in the cluster's group. */
export async function relayDisruptionDue(deps: InstanceDeps, message: DisruptionDueMessage): Promise<void> {
  await relayToClusterQueue(deps, message, dueDeduplicationId(message));
}

/** Hands a message, unchanged, to the cluster FIFO queue in the cluster's group. */
export async function relayToClusterQueue(
  deps: InstanceDeps,
  message: ControlMessage,
  deduplicationId: string,
): Promise<void> {
  await deps.queue.send({ body: JSON.stringify(message), groupId: message.cluster, deduplicationId });
}

/** One deduplication id per due time: a duplicate delivery of the delayed message, a relay retried after a failed
 * invocation, or two sweeps that scheduled the same re-check all reach the provisioner once (within SQS's 5-minute
 * window), while re-checks due at different times stay distinct. */
function dueDeduplicationId(message: DisruptionDueMessage): string {
  return `disruption-due-${message.at}`;
}
