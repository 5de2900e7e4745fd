// Message contracts between the forwarder, EventBridge Scheduler and the functions (docs/architecture.md,
// Messages). Messages are hints ("look again"), never the full picture: handlers re-read state from the API server
// and the store.

/** NodeClaimDeleted: a karpenter.sh/v1 NodeClaim object got its deletion mark (`kubectl delete nodeclaim`); the
 * consumer re-reads the marks and starts those claims' termination (docs/kubernetes.md, NodeClaim objects). */
export type ClusterMessageKind = 'PodsPending' | 'NodeChanged' | 'NodePoolChanged' | 'NodeClaimDeleted';

export interface ObjectRef {
  /** The object's kind where a message kind covers several (NodePoolChanged carries NodePool, EC2NodeClass and
   * NodeOverlay), and on NodeClaimDeleted (NodeClaim). */
  kind?: string;
  namespace?: string;
  name: string;
  uid?: string;
  resourceVersion?: string;
}

/** Forwarder → cluster FIFO queue (MessageGroupId = cluster). */
export interface ClusterMessage {
  v: 1;
  cluster: string;
  kind: ClusterMessageKind;
  /** ISO-8601 time the batch was flushed. */
  at: string;
  refs: ObjectRef[];
}

/** Scheduler → cluster FIFO queue: the consolidation sweep runs in the same group as provisioning. */
export interface SweepMessage {
  v: 1;
  cluster: string;
  kind: 'Sweep';
  at: string;
  /** The Scheduler's execution id (shared/events/schedule.ts): it keeps the tick's content unguessable. Absent from
   * the ticks of harnesses and of templates older than it. */
  execution?: string;
}

/** Termination re-queues itself, one NodeClaim per message, with a delay between steps. */
export interface TerminationMessage {
  v: 1;
  cluster: string;
  kind: 'Terminate';
  nodeClaim: string;
  at: string;
}

/**
 * The provisioner → the termination queue (the standard queue, which takes a per-message delay) → relayed by the
 * termination function to the cluster FIFO queue: a decided disruption command's 15 s validation re-check is due.
 * The provisioner then moves in-flight commands along without planning, so only the FIFO consumer ever writes them.
 */
export interface DisruptionDueMessage {
  v: 1;
  cluster: string;
  kind: 'DisruptionDue';
  /** ISO-8601 time the re-check is due (the command's validateAfter). */
  at: string;
}

export type ControlMessage = ClusterMessage | SweepMessage | TerminationMessage | DisruptionDueMessage;

/** SQS caps a message at 256 KiB; the forwarder splits batches to stay under this with room for attributes. */
export const MAX_MESSAGE_BYTES = 250 * 1024;

/**
 * An EC2 or AWS Health event from EventBridge, normalized by its validator (shared/events) so the interruption
 * use-case does not depend on the raw event shapes.
 */
export interface InterruptionSignal {
  kind:
    | 'SpotInterruption'
    | 'CapacityReservationInterruption'
    | 'RebalanceRecommendation'
    | 'StateChange'
    | 'ScheduledChange';
  instanceIds: string[];
  /** For StateChange: the new instance state. */
  state?: 'pending' | 'running' | 'stopping' | 'stopped' | 'shutting-down' | 'terminated';
  /** When the instance will be gone (spot and interruptible reservations: two minutes after the warning; Health: the
   * scheduled start). */
  deadline?: string;
  /** The EventBridge event id, for logs and deduplication. */
  eventId: string;
  at: string;
}
