// Who may send what on the cluster FIFO queue (docs/architecture.md, "Trust boundaries"). The forwarder shares that
// queue with the sweep schedule and the termination function's relay, because provisioning and disruption must stay
// serialized in one message group; so the consumer checks each message against its sender, which SQS itself records
// (the SenderId attribute: the sending role's unique id, before the session name). The forwarder reports
// observations only; nothing it can send removes capacity.

import { ValidationError } from '../errors';
import type { ControlMessage } from '../messages';

/** Kinds anyone allowed to send to the queue may send: hints to look again, never commands. A NodeClaimDeleted
 * removes nothing by itself: the consumer terminates only claims whose NodeClaim object it lists with a deletion mark
 * (shared/controllers/nodeclaim-deletion.ts), which only someone allowed to delete that object can set. */
export const OBSERVATION_KINDS = ['PodsPending', 'NodeChanged', 'NodePoolChanged', 'NodeClaimDeleted'] as const;

/** The IAM unique ids (`AROA…`) of the roles that may send each command kind on the cluster queue. */
export interface TrustedSenders {
  /** The EventBridge Scheduler role that sends the sweep tick. */
  Sweep: readonly string[];
  /** The termination function's role, which relays due validation re-checks from its delayed queue. */
  DisruptionDue: readonly string[];
}

export interface TrustCheck {
  /** The cluster the consuming function serves. */
  cluster: string;
  /** The SQS SenderId attribute of the record (`AROAEXAMPLE:session`). */
  senderId: string | undefined;
  /** The record's MessageGroupId. Undefined only for a record that came from no FIFO queue (a harness's invoke). */
  groupId: string | undefined;
  /** Undefined only in harnesses that have no IAM identities; every deployed function is given them. */
  trusted: TrustedSenders | undefined;
  /** Names the message in errors. */
  source: string;
  /** Whether termination steps have a queue of their own (always, when deployed). Only a harness without one routes
   * them through the cluster queue (shared/controllers/messages.ts). */
  separateTerminationQueue: boolean;
}

/**
 * Accepts a validated cluster-queue message only when it belongs to this cluster and its sender may send its kind;
 * otherwise throws ValidationError, so the consumer dead-letters it at once instead of retrying it at the head of
 * the cluster's message group.
 */
export function checkClusterQueueMessage(message: ControlMessage, check: TrustCheck): ControlMessage {
  const refuse = (field: string, why: string): never => {
    throw new ValidationError([`${check.source}: ${field}: ${why}`]);
  };
  if (message.cluster !== check.cluster) {
    refuse(
      'cluster',
      `${JSON.stringify(message.cluster)} is not this function's cluster ${JSON.stringify(check.cluster)}`,
    );
  }
  // Every sender of the cluster queue, whatever the kind, sends in the cluster's one group: the forwarder
  // (forwarder/messages.ts), the sweep schedule (stacks/constructs/schedules.ts) and the function's own re-plans and
  // relays (shared/controllers/messages.ts). A message in another group would run beside that group, a second
  // writer of the cluster, and would bypass the per-group deduplication and throughput the queue is built on.
  if (check.groupId !== undefined && check.groupId !== check.cluster) {
    refuse(
      'MessageGroupId',
      `${JSON.stringify(check.groupId)} is not this cluster's group ${JSON.stringify(check.cluster)}; every kind travels in the cluster's group`,
    );
  }
  if (message.kind === 'Terminate' && check.separateTerminationQueue) {
    refuse('kind', 'Terminate is not accepted on the cluster queue; termination steps travel on the termination queue');
  }
  if ((OBSERVATION_KINDS as readonly string[]).includes(message.kind) || !check.trusted) return message;
  const allowed = check.trusted[message.kind as keyof TrustedSenders];
  const principal = check.senderId?.split(':')[0];
  if (!principal || !allowed.includes(principal)) {
    refuse(
      'kind',
      `${message.kind} from sender ${check.senderId ?? '<none>'} is refused; ${WHO[message.kind as keyof TrustedSenders]}`,
    );
  }
  return message;
}

const WHO: Record<keyof TrustedSenders, string> = {
  Sweep: "only the sweep schedule's role may send it",
  DisruptionDue: "only the termination function's role may relay it",
};

/** Reads TRUSTED_SENDERS (`{"Sweep":["AROA…"],"DisruptionDue":["AROA…"]}`), as the stack sets it. */
export function parseTrustedSenders(text: string): TrustedSenders {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ValidationError([`TRUSTED_SENDERS: not JSON: ${text.slice(0, 80)}`]);
  }
  const list = (key: keyof TrustedSenders): string[] => {
    const v = (raw as Record<string, unknown> | null)?.[key];
    if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'string' && x !== '')) {
      throw new ValidationError([`TRUSTED_SENDERS: ${key}: must be a non-empty list of IAM unique ids`]);
    }
    return v as string[];
  };
  return { Sweep: list('Sweep'), DisruptionDue: list('DisruptionDue') };
}
