// The `interrupt` step: EC2's two-minute interruption warning for the matching running NodeClaims, delivered to the
// interruption use-case as the queue would, and the instances reclaimed when the warning runs out.
import { handleInterruption } from '../../controllers';
import type { StepContext } from './step-context';
import type { StepAction } from './types';

const SPOT_WARNING_MS = 2 * 60_000;

export async function interruptStep(
  ctx: StepContext,
  action: Extract<StepAction, { type: 'interrupt' }>,
  now: number,
): Promise<void> {
  const claims = (await ctx.world.store.list({ states: ['Launched', 'Registered', 'Initialized'] })).filter((c) =>
    action.nodeClaim
      ? c.name === action.nodeClaim
      : c.instanceType === action.instanceType &&
        (!action.zone || c.zone === action.zone) &&
        (!action.capacityType || c.capacityType === action.capacityType),
  );
  const ids = claims.flatMap((c) => (c.instanceId ? [c.instanceId] : []));
  if (ids.length === 0) {
    ctx.warnings.push(`${ctx.recorder.offset(now)}: interrupt matched no running NodeClaim`);
    return;
  }
  const deadline = now + SPOT_WARNING_MS;
  // EC2 warns an interruptible capacity reservation's instances with its own event, the rest as spot.
  const inInterruptible = new Set(
    claims.filter((c) => c.capacityReservation?.interruptible).flatMap((c) => c.instanceId ?? []),
  );
  const kinds = [
    ['CapacityReservationInterruption', ids.filter((id) => inInterruptible.has(id))],
    ['SpotInterruption', ids.filter((id) => !inInterruptible.has(id))],
  ] as const;
  for (const [kind, instanceIds] of kinds) {
    if (instanceIds.length === 0) continue;
    await handleInterruption(ctx.world.deps, {
      kind,
      instanceIds,
      deadline: new Date(deadline).toISOString(),
      eventId: `sim-interruption-${++ctx.interruptions}`,
      at: new Date(now).toISOString(),
    });
  }
  for (const instanceId of ids) ctx.reclaims.push({ at: deadline, instanceId });
}
