// Reacting to EC2 and AWS Health signals for this cluster's instances. Events are account-wide, so an unknown
// instance costs one GSI lookup and is dropped. For an instance we own:
// - spot interruption warning: cache the offering as unavailable, start termination with the two-minute deadline,
//   and provision replacement capacity for its pods at once (the draining node's pods count as displaced);
// - capacity reservation interruption warning (an interruptible reservation's owner reclaims capacity): as Karpenter,
//   a `CapacityReservationInstanceInterrupted` warning on the NodeClaim and the Node, the reservation refused for new
//   launches, and the node drained and replaced as on a spot warning (docs/aws.md, Capacity reservations);
// - rebalance recommendation: record an event by default, or act as on an interruption when configured;
// - state change to stopping, stopped, shutting-down or terminated: terminate the claim and re-plan its pods;
// - AWS Health scheduled change: drain and replace before the event's start.

import { newId } from '../api/ids';
import type { NodeClaim } from '../api/nodeclaim';
import type { InterruptionSignal } from '../messages';
import type { ControlPlaneDeps } from './deps';
import { emitEvent } from './events';
import { provision } from './provision';
import type { ProvisionResult } from './provision-result';
import { startTermination } from './termination';

export interface InterruptionResult {
  /** Claims this signal started terminating. */
  terminating: string[];
  /** Instance ids with no claim in this cluster. */
  ignored: string[];
  /** Claims that only got an event recorded (rebalance, default policy). */
  recorded: string[];
  replacement?: ProvisionResult;
}

const GONE_STATES: ReadonlySet<string> = new Set(['stopping', 'stopped', 'shutting-down', 'terminated']);

export async function handleInterruption(
  deps: ControlPlaneDeps,
  signal: InterruptionSignal,
): Promise<InterruptionResult> {
  const result: InterruptionResult = { terminating: [], ignored: [], recorded: [] };
  for (const instanceId of signal.instanceIds) {
    const claim = await deps.store.getByInstanceId(instanceId);
    if (!claim || claim.state === 'Terminated') {
      result.ignored.push(instanceId);
      continue;
    }
    deps.metric('Interruptions', 1, 'Count');
    const action = await act(deps, signal, claim);
    if (action === 'terminate') result.terminating.push(claim.name);
    if (action === 'record') result.recorded.push(claim.name);
  }
  if (result.ignored.length > 0) {
    deps.log.debug('interruption for instances outside this cluster', { ids: result.ignored, event: signal.eventId });
  }
  // Replacement capacity now, not when the evicted pods show up pending: the pass counts the draining nodes' pods.
  if (result.terminating.length > 0) {
    result.replacement = await provision(deps, { trigger: `${signal.kind} ${result.terminating.join(',')}` });
    await recordDecision(deps, signal, result);
  }
  return result;
}

/** Why these nodes are going away and what replaces them, for `karpless explain`. */
async function recordDecision(deps: ControlPlaneDeps, signal: InterruptionSignal, result: InterruptionResult) {
  const replacements = result.replacement?.launched ?? [];
  await deps.store.putDecision({
    id: newId(deps),
    cluster: deps.cluster,
    at: new Date(deps.clock.now()).toISOString(),
    kind: 'Interrupt',
    nodeClaims: [...result.terminating, ...replacements],
    summary:
      `${signal.kind}: draining ${result.terminating.join(', ')}` +
      (replacements.length ? `; replacement capacity ${replacements.join(', ')}` : '; no replacement needed'),
    detail: {
      signal: signal.kind,
      eventId: signal.eventId,
      instanceIds: signal.instanceIds,
      ...(signal.state ? { state: signal.state } : {}),
      ...(signal.deadline ? { deadline: signal.deadline } : {}),
      terminating: result.terminating,
      replacements,
      unschedulable: result.replacement?.unschedulable ?? [],
    },
  });
}

async function act(
  deps: ControlPlaneDeps,
  signal: InterruptionSignal,
  claim: NodeClaim,
): Promise<'terminate' | 'record' | 'none'> {
  switch (signal.kind) {
    case 'SpotInterruption':
      await cacheUnavailable(deps, claim, 'SpotInterruption');
      return terminate(deps, claim, 'spot interruption warning', signal.deadline);
    case 'CapacityReservationInterruption':
      await reservationInterrupted(deps, claim);
      return terminate(deps, claim, 'capacity reservation interruption warning', signal.deadline);
    case 'RebalanceRecommendation':
      if (deps.config.rebalance === 'interrupt') {
        await cacheUnavailable(deps, claim, 'RebalanceRecommendation');
        return terminate(deps, claim, 'rebalance recommendation', signal.deadline);
      }
      await emitEvent(deps, {
        involved: claim.nodeName ? { kind: 'Node', name: claim.nodeName } : { kind: 'NodeClaim', name: claim.name },
        type: 'Normal',
        reason: 'RebalanceRecommendation',
        message: `EC2 recommends rebalancing ${claim.instanceId}: its spot capacity is at elevated risk of interruption`,
      });
      return 'record';
    case 'StateChange':
      if (!signal.state || !GONE_STATES.has(signal.state)) return 'none';
      return terminate(deps, claim, `instance ${signal.state}`, new Date(deps.clock.now()).toISOString());
    case 'ScheduledChange':
      return terminate(deps, claim, 'AWS Health scheduled change', signal.deadline);
  }
}

async function terminate(
  deps: ControlPlaneDeps,
  claim: NodeClaim,
  detail: string,
  deadline: string | undefined,
): Promise<'terminate' | 'none'> {
  if (claim.state === 'Draining') return 'none'; // a redelivered signal: termination is already under way
  const started = await startTermination(deps, claim, {
    cause: 'Interrupted',
    detail,
    ...(deadline ? { deadline } : {}),
  });
  if (!started) return 'none';
  if (claim.nodeName) {
    await emitEvent(deps, {
      involved: { kind: 'Node', name: claim.nodeName },
      type: 'Warning',
      reason: 'Interrupted',
      message: `${detail}: draining and replacing ${claim.instanceId}`,
    });
  }
  return 'terminate';
}

async function cacheUnavailable(deps: ControlPlaneDeps, claim: NodeClaim, reason: string): Promise<void> {
  if (!claim.instanceType || !claim.zone || !claim.capacityType) return;
  await deps.store.markUnavailable({
    instanceType: claim.instanceType,
    zone: claim.zone,
    capacityType: claim.capacityType,
    ...(claim.capacityType === 'reserved' && claim.capacityReservation
      ? { reservationId: claim.capacityReservation.id }
      : {}),
    expiresAt: deps.clock.now() + deps.config.iceTtlMs,
    reason,
  });
}

/** Karpenter's CapacityReservationInstanceInterrupted events, and its reservation marked as having no room: the
 * reclaimed capacity is going back to the source reservation, so the re-plan must not launch into it again. */
async function reservationInterrupted(deps: ControlPlaneDeps, claim: NodeClaim): Promise<void> {
  const involved = [
    { kind: 'NodeClaim' as const, name: claim.name },
    ...(claim.nodeName ? [{ kind: 'Node' as const, name: claim.nodeName }] : []),
  ];
  for (const target of involved) {
    await emitEvent(deps, {
      involved: target,
      type: 'Warning',
      reason: 'CapacityReservationInstanceInterrupted',
      message: 'Capacity Reservation interruption warning was triggered',
    });
  }
  if (claim.capacityType === 'reserved' && claim.capacityReservation) {
    await cacheUnavailable(deps, claim, 'CapacityReservationInterruption');
  }
}
