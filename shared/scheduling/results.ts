// The solve's answer, assembled once placement is over: the planned claims finalized and given reservations' room,
// the pods no claim could hold, and the pods left for the next solve in the order they came.
import type { Pod } from '../api/kube';
import { finalizeClaim, type InflightClaim } from './nodeclaim';
import { reserveCapacity } from './reserve';
import type { ResourceIndex } from './resources';
import type { PlannedNodeClaim, UnschedulablePod } from './types';

/** A pod with its place in the input (deferred pods are listed in that order). */
export type InputPod = { pod: Pod; order: number };

/**
 * The claims that hold pods, each cut to the types that fit it; a claim no type fits sends its pods to
 * `unschedulable`, as do claims past a reservation's room that cannot fall back (reserve.ts).
 */
export function plannedClaims(
  claims: readonly InflightClaim[],
  index: ResourceIndex,
  maxTypes: number,
  unschedulable: UnschedulablePod[],
): PlannedNodeClaim[] {
  const finalized: PlannedNodeClaim[] = [];
  for (const c of claims) {
    if (c.pods.length === 0) continue;
    const planned = finalizeClaim(c, index, maxTypes);
    if (planned) finalized.push(planned);
    else
      for (const p of c.pods)
        unschedulable.push({
          pod: p,
          reason: `nodepool "${c.template.name}": no instance type fits the claim's pods`,
        });
  }
  // Reservations' room is handed out claim by claim; claims past it fall back or wait (reserve.ts).
  const { nodeClaims, unschedulable: unreserved } = reserveCapacity(finalized);
  unschedulable.push(...unreserved);
  return nodeClaims;
}

/**
 * The deferred pods in the order they came (a number sort: a deadline can defer tens of thousands of pods), then the
 * input's pods from `unreadFrom` on, which were never read.
 */
export function deferredInOrder(deferred: InputPod[], pods: readonly Pod[], unreadFrom: number | undefined): Pod[] {
  const sorted = deferred.sort((a, b) => a.order - b.order).map((q) => q.pod);
  // Every pod read comes before the first unread one, so the unread ones follow in their own order.
  for (let i = unreadFrom ?? pods.length; i < pods.length; i++) sorted.push(pods[i] as Pod);
  return sorted;
}

/** Sorted by namespace/name, each key built once (a deadline can defer tens of thousands of pods). */
export function byKey<T>(items: readonly T[], podOf: (item: T) => Pod): T[] {
  return items
    .map((item) => ({ item, k: key(podOf(item)) }))
    .sort((a, b) => cmp(a.k, b.k))
    .map((e) => e.item);
}

function key(p: Pod): string {
  return `${p.metadata.namespace}/${p.metadata.name}`;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
