// Coalescing of hints (docs/architecture.md, "Coalescing"). Every message on the cluster queue is a hint to look
// again, and each run re-reads the cluster, so a run that read the cluster after SQS had accepted a hint has already
// answered it. The cluster's FIFO group delivers hints one batch at a time, so a burst of them (or a forwarder
// flooding the queue) costs one run for everything sent before that run's batch was received, not one run each.
// Both times are SQS's own (SentTimestamp, ApproximateFirstReceiveTimestamp), so no clock skew between SQS and the
// function can make a hint look answered when it was not: the batch's receipt precedes the invocation, and the run's
// reads follow it.
import type { ControlMessage } from '../messages';

/** The kinds that are only hints and may be answered by an earlier run. */
export type HintKind = 'PodsPending' | 'NodePoolChanged' | 'NodeChanged' | 'NodeClaimDeleted';

/** Which hints a completed run of each kind answers: NodePoolChanged and the Sweep also run a whole provisioning
 * pass; NodePoolChanged alone also ends the claims of deleted NodePools (dispatch.ts). */
const ANSWERS: Partial<Record<ControlMessage['kind'], readonly HintKind[]>> = {
  PodsPending: ['PodsPending'],
  NodePoolChanged: ['NodePoolChanged', 'PodsPending'],
  Sweep: ['PodsPending'],
  NodeChanged: ['NodeChanged'],
  NodeClaimDeleted: ['NodeClaimDeleted'],
};

/**
 * What this consumer has answered, per hint kind: the latest SQS receipt time of a batch whose run of that kind
 * completed. Kept per container (the provisioner's handler): a new container answers its first hints again, which
 * costs a run and is never wrong.
 */
export class HintCoverage {
  private readonly answeredUpTo = new Map<HintKind, number>();

  /** True when a completed run already answered a hint of `kind` that SQS accepted at `sentAt` (epoch ms). */
  covers(kind: ControlMessage['kind'], sentAt: number): boolean {
    const upTo = this.answeredUpTo.get(kind as HintKind);
    return upTo !== undefined && sentAt <= upTo;
  }

  /** A run of `kind` completed for a record SQS first handed out at `receivedAt` (epoch ms): every hint it answers
   * that SQS accepted by then is answered. A run that must be retried records nothing. */
  completed(kind: ControlMessage['kind'], receivedAt: number): void {
    for (const hint of ANSWERS[kind] ?? []) {
      this.answeredUpTo.set(hint, Math.max(this.answeredUpTo.get(hint) ?? receivedAt, receivedAt));
    }
  }
}
