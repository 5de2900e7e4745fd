// A static NodePool above its replicas, as Karpenter's static deprovisioning controller scales it down
// (docs/disruption.md, "Static NodePools"): the surplus is terminated at once, bypassing disruption budgets; the
// drain still respects PDBs and do-not-disrupt. Draining claims are not counted, so a scale-down in progress is not
// repeated. The surplus goes in Karpenter's order: claims not launched yet, then empty nodes (no pods, or only
// DaemonSet pods none of which is do-not-disrupt), then nodes without do-not-disrupt pods, cheapest to disrupt first
// (the pods' eviction costs times the node's remaining lifetime, as consolidation ranks candidates).
import { claimExpireAfter } from '../api/claim-template';
import { doNotDisruptActive } from '../api/do-not-disrupt';
import type { NodePool } from '../api/karpenter';
import type { Pod } from '../api/kube';
import type { NodeClaim } from '../api/nodeclaim';
import { isDaemonSetPod, isTerminal } from '../api/pods';
import { parseDuration } from '../api/quantity';
import { evictionCost } from '../disruption';
import type { ControlPlaneDeps } from './deps';
import type { ClusterSnapshot } from './snapshot';
import { countedClaims, staticPoolActive } from './static-pools';
import { startTermination } from './termination';

/** Terminates each static pool's claims beyond its replicas; returns the claims it started terminating. */
export async function scaleDownStatic(deps: ControlPlaneDeps, s: ClusterSnapshot): Promise<string[]> {
  const started: string[] = [];
  for (const pool of s.nodePools) {
    if (!staticPoolActive(pool)) continue;
    const claims = countedClaims(s.claims, pool.metadata.name);
    const surplus = claims.length - (pool.spec.replicas ?? 0);
    if (surplus <= 0) continue;
    for (const claim of surplusOrder(claims, s.bound, { pool, now: s.now }).slice(0, surplus)) {
      const out = await startTermination(deps, claim, {
        cause: 'Deleted',
        detail: `static NodePool ${pool.metadata.name} scaled to ${pool.spec.replicas} replicas`,
      });
      if (out) started.push(claim.name);
    }
  }
  return started;
}

/** Karpenter's deprovisioning order for a static pool's surplus. */
export function surplusOrder(
  claims: NodeClaim[],
  bound: Pod[],
  at: { pool?: NodePool; now: number } = { now: 0 },
): NodeClaim[] {
  const podsOn = new Map<string, Pod[]>();
  for (const p of bound) {
    const node = p.spec.nodeName;
    if (node && !isTerminal(p)) podsOn.set(node, [...(podsOn.get(node) ?? []), p]);
  }
  const facts = claims.map((c) => {
    const pods = c.nodeName ? (podsOn.get(c.nodeName) ?? []) : [];
    const doNotDisrupt = pods.some((p) => doNotDisruptActive(p, at.now));
    return {
      c,
      unlaunched: !c.instanceId,
      empty: pods.every(isDaemonSetPod) && !doNotDisrupt,
      doNotDisrupt,
      cost: pods.reduce((sum, p) => sum + evictionCost(p), 0) * lifetimeRemaining(c, at.pool, at.now),
    };
  });
  const rank = (b: boolean): number => (b ? 0 : 1);
  return facts
    .sort(
      (a, b) =>
        rank(a.unlaunched) - rank(b.unlaunched) ||
        rank(a.empty) - rank(b.empty) ||
        rank(!a.doNotDisrupt) - rank(!b.doNotDisrupt) ||
        a.cost - b.cost ||
        a.c.name.localeCompare(b.c.name),
    )
    .map((f) => f.c);
}

/** The fraction of the claim's expireAfter still ahead, 1 when it never expires (Karpenter's LifetimeRemaining). */
function lifetimeRemaining(claim: NodeClaim, pool: NodePool | undefined, now: number): number {
  let expireAfter: number;
  try {
    expireAfter = parseDuration(claimExpireAfter(claim, pool) ?? 'Never');
  } catch {
    return 1;
  }
  if (!Number.isFinite(expireAfter) || expireAfter <= 0) return 1;
  const age = now - Date.parse(claim.createdAt);
  return Math.min(1, Math.max(0, (expireAfter - age) / expireAfter));
}
