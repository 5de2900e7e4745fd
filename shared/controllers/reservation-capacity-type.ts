// Karpenter's capacityreservation.capacitytype controller (docs/aws.md, Capacity reservations): an instance launched
// into a capacity reservation leaves it when the reservation expires or is cancelled, or someone moves it out; EC2
// then runs it on as on-demand and reports no reservation. Each GC tick finds the `reserved` claims whose instance the
// cloud now reports on-demand and demotes them: `karpenter.sh/capacity-type` becomes `on-demand` and the reservation
// labels go, on the Node and on the NodeClaim (its store record, which the NodeClaim object mirrors). As in
// Karpenter, only reserved → on-demand is handled, and draining claims are left alone.
import { LabelCapacityType, LabelNodeRegistered, ReservationLabels } from '../api/labels';
import type { NodeClaim } from '../api/nodeclaim';
import { ConflictError } from '../errors';
import type { CloudInstance } from '../ports';
import type { InstanceDeps } from './deps';
import { message } from './snapshot';

export interface CapacityTypeSyncResult {
  /** Claims moved from `reserved` to `on-demand` this pass. */
  demoted: string[];
}

export async function syncReservedCapacityTypes(deps: InstanceDeps): Promise<CapacityTypeSyncResult> {
  const result: CapacityTypeSyncResult = { demoted: [] };
  const claims = await deps.store.list({ states: ['Launched', 'Registered', 'Initialized'] });
  const reserved = claims.filter((c) => c.capacityType === 'reserved' && c.instanceId);
  // Most clusters use no reservation: then the pass costs one store read and no EC2 call.
  if (reserved.length === 0) return result;
  const instances = new Map((await deps.cloud.list()).map((i) => [i.instanceId, i]));
  const left = reserved.flatMap((claim) => {
    const instance = instances.get(claim.instanceId as string);
    return instance?.capacityType === 'on-demand' ? [{ claim, instance }] : [];
  });
  if (left.length === 0) return result;
  const nodes = new Map((await deps.kube.listNodes()).map((n) => [n.metadata.name, n]));
  for (const { claim, instance } of left) {
    try {
      // The Node first, then the claim: a pass that dies in between finds the claim still reserved and repeats both.
      const node = claim.nodeName ? nodes.get(claim.nodeName) : undefined;
      const labels = node?.metadata.labels ?? {};
      if (node && labels[LabelNodeRegistered] === 'true' && labels[LabelCapacityType] === 'reserved') {
        await deps.kube.syncNode(node.metadata.name, {
          labels: { [LabelCapacityType]: 'on-demand' },
          removeLabels: ReservationLabels,
          taints: [],
        });
      }
      await deps.store.update(claim, demoted(claim, instance));
      result.demoted.push(claim.name);
    } catch (err) {
      // A claim that changed under us (draining, relaunched) is looked at again on the next tick.
      if (err instanceof ConflictError) continue;
      deps.log.warn('could not demote a claim that left its capacity reservation', {
        nodeClaim: claim.name,
        error: message(err),
      });
    }
  }
  if (result.demoted.length > 0) {
    deps.log.info('updated capacity type for nodeclaims', { nodeClaims: result.demoted, capacityType: 'on-demand' });
  }
  return result;
}

/** The claim as an on-demand one: its reservation and reservation labels gone, priced as the instance now is. */
export function demoted(claim: NodeClaim, instance: CloudInstance): Partial<NodeClaim> {
  const labels = { ...claim.labels };
  for (const k of ReservationLabels) delete labels[k];
  if (labels[LabelCapacityType] !== undefined) labels[LabelCapacityType] = 'on-demand';
  return {
    capacityType: 'on-demand',
    capacityReservation: undefined,
    labels,
    ...(instance.pricePerHour > 0 ? { pricePerHour: instance.pricePerHour } : {}),
  };
}
