// What a provisioning pass tells people: FailedScheduling events, the Provision decision record, its log lines and
// the fleet's gauges.

import { newId } from '../api/ids';
import type { NodeClaim } from '../api/nodeclaim';
import { refKey } from '../api/pods';
import type { SchedulingResult } from '../scheduling';
import type { ControlPlaneDeps } from './deps';
import { emitEvent } from './events';
import { keyOf, type ProvisionResult } from './provision-result';
import type { ClusterSnapshot } from './snapshot';

const MAX_PODS_IN_DECISION = 200;

/** A FailedScheduling event per pod the plan could not place. */
export async function announceUnschedulable(
  deps: ControlPlaneDeps,
  snapshot: ClusterSnapshot,
  solved: SchedulingResult,
): Promise<void> {
  // NodePools left out of the solve are named too, or their users would never learn why they were not tried.
  const skipped = snapshot.problems.map((p) => `; NodePool ${p.nodePool} skipped: ${p.reason}`).join('');
  for (const u of solved.unschedulable) {
    await emitEvent(deps, {
      involved: { kind: 'Pod', name: u.pod.metadata.name, namespace: u.pod.metadata.namespace },
      type: 'Warning',
      reason: 'FailedScheduling',
      message: `Failed to schedule pod, ${u.reason}${skipped}`,
    });
  }
}

/** The pass's log lines and metrics. */
export function reportPass(
  deps: ControlPlaneDeps,
  snapshot: ClusterSnapshot,
  result: ProvisionResult,
  solved: SchedulingResult | undefined,
  launched: readonly NodeClaim[],
  pass: { trigger: string | undefined; pods: number; started: number },
): void {
  if (result.deferred.length > 0 && result.launched.length === 0 && result.nominated === 0) {
    // Progress is the point of deferring: a pass that deferred pods and launched nothing says why.
    deps.log.warn('deferred pods but launched nothing', {
      deferred: result.deferred.length,
      created: result.created.length,
      withdrawn: result.withdrawn.length,
      dropped: result.dropped.length,
      failed: result.failed.length,
      unschedulable: result.unschedulable.length,
      // The solver's own account, such as why no pod could be placed before its deadline.
      warnings: solved?.warnings ?? [],
    });
  }
  reportFleet(deps, [...snapshot.claims, ...launched]);
  deps.metric('PendingPods', snapshot.pending.length, 'Count');
  deps.metric('UnschedulablePods', result.unschedulable.length, 'Count');
  deps.metric('ProvisionDuration', deps.clock.now() - pass.started, 'Milliseconds');
  deps.log.info('provisioning pass', {
    trigger: pass.trigger,
    pods: pass.pods,
    created: result.created.length,
    launched: result.launched.length,
    relaunched: result.relaunched.length,
    withdrawn: result.withdrawn.length,
    dropped: result.dropped.length,
    failed: result.failed.length,
    nominated: result.nominated,
    unschedulable: result.unschedulable.length,
    deferred: result.deferred.length,
  });
}

export async function recordDecision(
  deps: ControlPlaneDeps,
  s: ClusterSnapshot,
  podCount: number,
  solved: SchedulingResult,
  own: NodeClaim[],
  trigger: string | undefined,
): Promise<string | undefined> {
  if (own.length === 0 && solved.unschedulable.length === 0) return undefined;
  const id = newId(deps);
  const planned = new Map(solved.nodeClaims.map((p) => [p.pods.map(keyOf).sort().join(','), p]));
  const claims = own.map((c) => {
    const p = planned.get(c.nominatedPods.map(refKey).sort().join(','));
    return {
      name: c.name,
      nodePool: c.nodePool,
      pods: c.nominatedPods.slice(0, MAX_PODS_IN_DECISION).map(refKey),
      podCount: c.nominatedPods.length,
      requests: c.requests,
      instanceTypeOptions: c.instanceTypeOptions,
      cheapest: p?.cheapest,
      // What the chosen type beat, each with the NodeOverlay that priced it (karpless explain shows both).
      ...(p?.alternatives?.length ? { alternatives: p.alternatives } : {}),
    };
  });
  const costPerHour = claims.reduce((sum, c) => sum + (c.cheapest?.price ?? 0), 0);
  await deps.store.putDecision({
    id,
    cluster: deps.cluster,
    at: new Date(s.now).toISOString(),
    kind: 'Provision',
    nodeClaims: own.map((c) => c.name),
    summary:
      `${podCount} pod(s) to place: ${own.length} new NodeClaim(s) at $${costPerHour.toFixed(4)}/h, ` +
      `${solved.unschedulable.length} unschedulable`,
    detail: {
      trigger: trigger ?? 'PodsPending',
      claims,
      unschedulable: solved.unschedulable
        .slice(0, MAX_PODS_IN_DECISION)
        .map((u) => ({ pod: keyOf(u.pod), reason: u.reason })),
      skippedNodePools: s.problems,
      unavailableOfferings: s.unavailable.length,
      warnings: solved.warnings,
      stats: solved.stats,
    },
  });
  return id;
}

/** Gauges for the dashboard: live nodes per NodePool and what they cost per hour (later copies of a claim win). */
function reportFleet(deps: ControlPlaneDeps, claims: NodeClaim[]): void {
  const latest = new Map(claims.map((c) => [c.name, c]));
  const perPool = new Map<string, number>();
  let cost = 0;
  for (const c of latest.values()) {
    if (c.state === 'Pending') continue;
    perPool.set(c.nodePool, (perPool.get(c.nodePool) ?? 0) + 1);
    cost += c.pricePerHour ?? 0;
  }
  for (const [nodePool, count] of perPool) deps.metric('Nodes', count, 'Count', { nodePool });
  deps.metric('CostPerHour', Math.round(cost * 10_000) / 10_000, 'None');
}
