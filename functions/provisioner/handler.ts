// provisioner: the cluster FIFO queue's only consumer (one message group per cluster, so the cluster has a single
// writer). It routes every kind on that queue through the dispatcher: PodsPending and NodePoolChanged run a
// provisioning pass, NodeChanged the lifecycle, Sweep the lifecycle timers, the disruption sweep and a provisioning
// pass, a DisruptionDue (relayed by the termination function when a decided command's 15 s re-check is due) the
// in-flight disruption commands. Each message is first checked against its sender (shared/events/trust.ts): the
// forwarder may only report observations, and a Terminate never runs from this queue.
import { type DispatchOptions, disruptionSweep, HintCoverage, handleControlMessage } from '../../shared/controllers';
import { checkClusterQueueMessage, parseControlMessage } from '../../shared/events';
import type { ControlMessage } from '../../shared/messages';
import { type ControlPlaneEnv, readEnv } from '../_wiring/env';
import { awsPorts } from '../_wiring/launch-ports';
import type { ControlPlanePorts, PortsFactory } from '../_wiring/ports';
import { createObservability, type Observability } from '../middleware';
import { type SqsParse, sqsConsumer } from '../middleware/sqs-consumer';

export const observability: Observability = createObservability({
  cluster: process.env.CLUSTER_NAME ?? 'unknown',
  service: 'provisioner',
});

/** The production disruption sweep: its commands live on the claims, so each Sweep tick resumes them, and a
 * DisruptionDue message resumes them without planning. The memo of Keep records only saves rewriting an unchanged
 * reason while the container stays warm. The hint coverage, kept as long, coalesces a burst of hints into the runs
 * that answer them (docs/architecture.md, "Coalescing"). */
export function disruptionOptions(): DispatchOptions {
  const keepMemo = new Map<string, string>();
  return {
    coverage: new HintCoverage(),
    sweep: (deps, run) =>
      disruptionSweep(deps, {
        keepMemo,
        progressOnly: run.progressOnly,
        ...(run.deadline !== undefined ? { deadline: run.deadline } : {}),
      }),
  };
}

/** Time kept back from planning for what follows it in the same invocation: writing the NodeClaims, launching them
 * (CreateFleet, eight at a time), the decision record and the pods' events. The share scales with the invocation's
 * length; the floor covers a small plan's launches. docs/performance.md (A deadline that holds) has the measurements
 * behind both numbers. */
export const AFTER_SOLVE_RESERVE = { minMs: 20_000, share: 0.35 } as const;

/** When, on the deps' clock, planning must stop for an invocation with `remainingMs` left. */
export function solveDeadline(now: number, remainingMs: number): number {
  return now + remainingMs - Math.max(AFTER_SOLVE_RESERVE.minMs, remainingMs * AFTER_SOLVE_RESERVE.share);
}

/** Time kept back from a Sweep tick's disruption planning for what follows it in the same invocation: writing the
 * commands (a read and a conditional update per candidate), the decision records (one write per command and per
 * changed Keep reason), mirroring the NodeClaim objects, and the provisioning pass after it, whose own solve keeps
 * AFTER_SOLVE_RESERVE. Half of what is left, and at least 40 s. docs/disruption.md (A deadline for the sweep) has
 * the numbers behind it. */
export const AFTER_SWEEP_RESERVE = { minMs: 40_000, share: 0.5 } as const;

/** When, on the deps' clock, a Sweep tick's disruption planning must stop for an invocation with `remainingMs` left. */
export function sweepDeadline(now: number, remainingMs: number): number {
  return now + remainingMs - Math.max(AFTER_SWEEP_RESERVE.minMs, remainingMs * AFTER_SWEEP_RESERVE.share);
}

/** A cluster-queue message this function may act on: valid, for its cluster, and from a sender allowed its kind. */
export const parseClusterQueueMessage: SqsParse<ControlMessage, ControlPlanePorts> = (body, o) =>
  checkClusterQueueMessage(parseControlMessage(body, o), {
    cluster: o.ports.cluster,
    senderId: o.senderId,
    groupId: o.groupId,
    trusted: o.ports.trustedSenders,
    source: o.source,
    separateTerminationQueue: o.ports.terminationQueue !== undefined,
  });

/** The handler with its ports (and, for tests, its observability and the disruption sweep) injected. */
export const createHandler = (
  factory: PortsFactory,
  obs: Observability = observability,
  options: DispatchOptions = disruptionOptions(),
) =>
  sqsConsumer(factory, obs, parseClusterQueueMessage, async (deps, message, record, context) => {
    const now = deps.clock.now();
    const remaining = context.getRemainingTimeInMillis();
    const sentAt = Number(record.attributes.SentTimestamp);
    const receivedAt = Number(record.attributes.ApproximateFirstReceiveTimestamp);
    const outcome = await handleControlMessage(deps, message, {
      ...options,
      ...(Number.isFinite(sentAt) && { sentAt }),
      ...(Number.isFinite(receivedAt) && { receivedAt }),
      solveDeadline: solveDeadline(now, remaining),
      sweepDeadline: sweepDeadline(now, remaining),
    });
    // A launch that hit a retryable error stays Pending; redelivery of this message finishes it.
    if (outcome.kind === 'provision' && outcome.result.retry) {
      throw new Error(`retryable launch failure while handling ${message.kind}`);
    }
  });

export const handler = createHandler(() => awsPorts(consumerEnv()));

/** The cluster queue's consumer never runs without knowing who may send its commands. */
function consumerEnv(): ControlPlaneEnv {
  const env = readEnv();
  if (!env.trustedSenders) {
    throw new Error('invalid function configuration: environment variable TRUSTED_SENDERS is required');
  }
  return env;
}
