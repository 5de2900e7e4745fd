// Routes a message of the termination queue: the standard queue that carries what must wait a while (the next step of
// a drain, a disruption command's validation re-check). Nothing here plans or launches, so the termination function
// is wired with an InstanceProvider and its bundle carries neither the solver nor the launch path. The cluster keeps
// a single planner: whatever needs one is handed to the cluster FIFO queue, whose consumer is the provisioner.
import type { ControlMessage } from '../messages';
import type { InstanceDeps } from './deps';
import { assertOwnCluster, relayDisruptionDue, relayToClusterQueue } from './messages';
import { runTerminationStep, type TerminationStep } from './termination';

export type TerminationQueueResult =
  | { kind: 'terminate'; result: TerminationStep }
  /** The message belongs to the cluster queue's consumer (a due re-check, or a kind this queue never carries). */
  | { kind: 'relayed'; message: ControlMessage['kind'] };

/** `messageId` is the SQS message's: a redelivered stray message is relayed under the same deduplication id. */
export async function handleTerminationQueueMessage(
  deps: InstanceDeps,
  message: ControlMessage,
  messageId: string,
): Promise<TerminationQueueResult> {
  assertOwnCluster(deps, message);
  switch (message.kind) {
    case 'Terminate':
      return { kind: 'terminate', result: await runTerminationStep(deps, message.nodeClaim) };
    case 'DisruptionDue':
      await relayDisruptionDue(deps, message);
      return { kind: 'relayed', message: message.kind };
    default:
      // Only a misrouted send puts these here. Each is a hint the provisioner acts on by re-reading state, so
      // handing it on loses nothing, where running it here would make a second planner.
      deps.log.warn('message does not belong on the termination queue; relayed to the cluster queue', {
        kind: message.kind,
        messageId,
      });
      await relayToClusterQueue(deps, message, `relayed-${messageId}`);
      return { kind: 'relayed', message: message.kind };
  }
}
