// Launching one NodeClaim: the claim is already written (Pending), so a crash anywhere here leaves a record the next
// pass finishes with the same uid, which the cloud turns back into the same instance.
import type { EC2NodeClass, NodePool } from '../api/karpenter';
import type { NodeClaim } from '../api/nodeclaim';
import type { InstanceType } from '../catalog/types';
import { ConflictError, InsufficientCapacityError, LaunchError, type RefusedOffering } from '../errors';
import { NODEPOOL_DIMENSION } from '../metrics';
import type { CloudInstance } from '../ports';
import type { ControlPlaneDeps } from './deps';
import { emitEvent } from './events';
import { insufficientCapacityError } from './karpenter-events';
import { requestReplan } from './messages';
import { launchOptions } from './offerings';
import { message } from './snapshot';

export type LaunchOutcome =
  | { kind: 'launched'; claim: NodeClaim }
  /** Every offering was refused; they are cached as unavailable and the claim deleted so its pods re-plan. */
  | { kind: 'insufficient-capacity'; offerings: number }
  /** The EC2NodeClass says Ready=False: nothing was launched and the claim deleted so its pods re-plan. */
  | { kind: 'nodeclass-not-ready'; reason: string }
  | { kind: 'failed'; reason: string }
  /** Worth trying again (throttled, transient); the claim stays Pending. */
  | { kind: 'retry'; reason: string }
  /** Someone else changed the claim first; nothing to do here. */
  | { kind: 'superseded' };

export interface LaunchContext {
  nodePool: NodePool | undefined;
  nodeClass: EC2NodeClass | undefined;
  /** The NodePool's resolved instance types (unavailable offerings already marked). */
  types: InstanceType[];
  /** Epoch ms of the event behind this pass (the forwarder's batch time), when known. */
  triggeredAt?: number;
}

export async function launchClaim(
  deps: ControlPlaneDeps,
  claim: NodeClaim,
  ctx: LaunchContext,
): Promise<LaunchOutcome> {
  if (!ctx.nodePool || !ctx.nodeClass) {
    const reason = !ctx.nodePool ? `NodePool ${claim.nodePool} not found` : `EC2NodeClass ${claim.nodeClass} not found`;
    return fail(deps, claim, 'NodePoolNotFound', reason);
  }
  // As Karpenter's AWS CloudProvider.Create: an EC2NodeClass whose status says Ready=False launches nothing and the
  // claim is deleted (NodeClassNotReady), its pods planned again. A class with no Ready condition (one read from a file,
  // or not yet reconciled) launches (docs/kubernetes.md, NodeClaim objects).
  const classReady = ctx.nodeClass.status?.conditions?.find((c) => c.type === 'Ready');
  if (classReady?.status === 'False') {
    deps.metric('NodeClaimsDisrupted', 1, 'Count', {
      reason: 'nodeclass_not_ready',
      [NODEPOOL_DIMENSION]: claim.nodePool,
    });
    await dropClaim(deps, claim, `EC2NodeClass ${claim.nodeClass} is not ready: ${classReady.message ?? ''}`);
    return { kind: 'nodeclass-not-ready', reason: classReady.message ?? '' };
  }
  const options = launchOptions(claim, ctx.types);
  if (options.length === 0) {
    // Everything it could run on was refused since it was planned: plan again rather than fail.
    await dropClaim(deps, claim, 'no available offering left among its instance types');
    return { kind: 'insufficient-capacity', offerings: 0 };
  }
  const started = deps.clock.now();
  // From the event that asked for capacity to the launch call: the pipeline's decision latency.
  if (ctx.triggeredAt !== undefined) deps.metric('LaunchLatency', started - ctx.triggeredAt, 'Milliseconds');
  try {
    const instance = await deps.cloud.create({
      claim,
      nodePool: ctx.nodePool,
      nodeClass: ctx.nodeClass,
      instanceTypes: options,
    });
    deps.metric('CreateFleetDuration', deps.clock.now() - started, 'Milliseconds');
    // Awaited here, so a failure to record the launch is handled as a failed launch is.
    return await recordLaunch(deps, claim, instance);
  } catch (err) {
    if (err instanceof InsufficientCapacityError) return refuseOfferings(deps, claim, options, err);
    if (err instanceof LaunchError && !err.retryable) return fail(deps, claim, err.kind, err.message);
    deps.log.warn('launch will be retried', { nodeClaim: claim.name, error: message(err) });
    deps.metric('LaunchRetries', 1, 'Count');
    return { kind: 'retry', reason: message(err) };
  }
}

/** Records the instance on the claim (Launched); a concurrent pass that recorded the same instance first is fine. */
async function recordLaunch(deps: ControlPlaneDeps, claim: NodeClaim, instance: CloudInstance): Promise<LaunchOutcome> {
  const patch = launchedFields(instance);
  try {
    const launched = await deps.store.transition(claim, 'Launched', patch);
    deps.metric('Launches', 1, 'Count', { nodePool: claim.nodePool });
    deps.log.info('launched', {
      nodeClaim: claim.name,
      instanceId: instance.instanceId,
      instanceType: instance.instanceType,
      zone: instance.zone,
      capacityType: instance.capacityType,
      pricePerHour: instance.pricePerHour,
    });
    return { kind: 'launched', claim: launched };
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    // A concurrent pass launched the same claim (same uid, so the same instance) and recorded it first.
    const current = await deps.store.get(claim.name);
    if (current?.instanceId === instance.instanceId) return { kind: 'launched', claim: current };
    deps.log.warn('claim changed during launch', { nodeClaim: claim.name, state: current?.state });
    return { kind: 'superseded' };
  }
}

/** Every offering of the request was refused: each is cached as unavailable and the claim dropped to re-plan. */
async function refuseOfferings(
  deps: ControlPlaneDeps,
  claim: NodeClaim,
  options: InstanceType[],
  err: InsufficientCapacityError,
): Promise<LaunchOutcome> {
  const expiresAt = deps.clock.now() + deps.config.iceTtlMs;
  // No offering named means none of the request could launch (no subnet or AMI for it): cache them all, or the
  // re-plan would pick the same ones again.
  const refused: RefusedOffering[] = err.offerings.length
    ? err.offerings
    : options.flatMap((t) =>
        t.offerings.map((o) => ({
          instanceType: t.name,
          zone: o.zone,
          capacityType: o.capacityType,
          ...(o.reservation ? { reservationId: o.reservation.id } : {}),
        })),
      );
  for (const o of refused) {
    await deps.store.markUnavailable({ ...o, expiresAt, reason: o.reason ?? 'InsufficientCapacity' });
  }
  deps.metric('InsufficientCapacity', 1, 'Count', { nodePool: claim.nodePool });
  await emitEvent(deps, insufficientCapacityError(claim.name, err.message));
  await dropClaim(deps, claim, `insufficient capacity: ${err.message}`);
  return { kind: 'insufficient-capacity', offerings: refused.length };
}

/** Deletes a claim that never got an instance, so its pods are planned again, and asks for that pass now. */
async function dropClaim(deps: ControlPlaneDeps, claim: NodeClaim, reason: string): Promise<void> {
  try {
    await deps.store.delete(claim);
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
  }
  deps.log.info('claim dropped for re-planning', { nodeClaim: claim.name, reason });
  await requestReplan(deps, `${claim.name}: ${reason}`, claim.nominatedPods);
}

async function fail(deps: ControlPlaneDeps, claim: NodeClaim, reason: string, detail: string): Promise<LaunchOutcome> {
  try {
    await deps.store.transition(claim, 'Failed', { failure: { reason, message: detail } });
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    return { kind: 'superseded' };
  }
  deps.metric('LaunchFailures', 1, 'Count', { reason });
  deps.log.error('launch failed', { nodeClaim: claim.name, reason, detail });
  await emitEvent(deps, {
    involved: { kind: 'NodeClaim', name: claim.name },
    type: 'Warning',
    reason: 'LaunchFailed',
    message: `${reason}: ${detail}`,
  });
  return { kind: 'failed', reason: `${reason}: ${detail}` };
}

/** What a claim records of the instance launched for it, on its move to Launched. */
export function launchedFields(instance: CloudInstance): Partial<NodeClaim> {
  return {
    instanceId: instance.instanceId,
    providerID: instance.providerID,
    instanceType: instance.instanceType,
    zone: instance.zone,
    capacityType: instance.capacityType,
    ...(instance.capacityReservation ? { capacityReservation: instance.capacityReservation } : {}),
    pricePerHour: instance.pricePerHour,
    ...(instance.imageId ? { imageId: instance.imageId } : {}),
  };
}
