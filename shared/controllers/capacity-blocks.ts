// Capacity blocks end (docs/aws.md, Capacity reservations): EC2 reclaims a block's instances from 30 minutes before
// its end, so, as Karpenter's capacityreservation.expiration controller does, a node in a block starts draining 40
// minutes before the end, with the reclaim as its drain deadline. It runs on the Sweep tick, before planning, so the
// plan does not count these nodes; their pods are provisioned elsewhere as they are evicted.
import type { NodeClaim } from '../api/nodeclaim';
import { CAPACITY_BLOCK_EXPIRY_LEAD_MS } from '../catalog/reservations';
import type { InstanceDeps } from './deps';
import { emitEvent } from './events';
import { startTermination } from './termination';

/** EC2 starts reclaiming a capacity block's instances this long before its end. */
const RECLAIM_LEAD_MS = 30 * 60_000;

export interface CapacityBlockResult {
  /** Claims whose drain this run started. */
  expiring: string[];
}

export function capacityBlockEnd(claim: NodeClaim): number | undefined {
  const r = claim.capacityReservation;
  if (r?.type !== 'capacity-block' || !r.endTime) return undefined;
  const end = Date.parse(r.endTime);
  return Number.isFinite(end) ? end : undefined;
}

export async function drainExpiringCapacityBlocks(deps: InstanceDeps): Promise<CapacityBlockResult> {
  const result: CapacityBlockResult = { expiring: [] };
  const now = deps.clock.now();
  const claims = await deps.store.list({ states: ['Launched', 'Registered', 'Initialized'] });
  for (const claim of claims) {
    const end = capacityBlockEnd(claim);
    if (end === undefined || now < end - CAPACITY_BLOCK_EXPIRY_LEAD_MS) continue;
    const id = claim.capacityReservation?.id;
    const detail = `capacity block ${id} ends at ${new Date(end).toISOString()}`;
    const started = await startTermination(deps, claim, {
      cause: 'Interrupted',
      detail,
      deadline: new Date(Math.max(now, end - RECLAIM_LEAD_MS)).toISOString(),
    });
    if (started?.state !== 'Draining') continue;
    result.expiring.push(claim.name);
    deps.log.info('initiating delete for capacity block expiration', {
      nodeClaim: claim.name,
      capacityReservation: id,
    });
    if (claim.nodeName) {
      await emitEvent(deps, {
        involved: { kind: 'Node', name: claim.nodeName },
        type: 'Warning',
        reason: 'CapacityBlockExpiring',
        message: `${detail}: draining ${claim.instanceId} before EC2 reclaims it`,
      });
    }
  }
  return result;
}
