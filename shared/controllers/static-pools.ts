// Static NodePools (`spec.replicas`), as Karpenter's static provisioning and deprovisioning controllers run them
// (docs/disruption.md, "Static NodePools"):
// - a pool with fewer live NodeClaims than replicas gets new claims (no pods, the pool's requirements, every type
//   they allow cheapest first), capped by `limits.nodes`;
// - a pool with more gets its surplus terminated at once, bypassing disruption budgets; the drain still respects
//   PDBs and do-not-disrupt. Surplus goes in Karpenter's order: claims not launched yet, then empty nodes, then
//   nodes without do-not-disrupt pods, then fewest pods.
import { claimHashes } from '../api/hash';
import { newId, newUid } from '../api/ids';
import type { NodePool } from '../api/karpenter';
import type { Pod } from '../api/kube';
import { LabelCapacityType, LabelNodePool, LabelZone } from '../api/labels';
import type { NodeClaim } from '../api/nodeclaim';
import { parseQuantity } from '../api/quantity';
import { isStaticNodePool } from '../api/static-nodepool';
import type { InstanceType } from '../catalog/types';
import { ConflictError } from '../errors';
import type { ControlPlaneDeps } from './deps';
import { admits } from './offerings';
import type { ClusterSnapshot } from './snapshot';
import { startTermination } from './termination';

const MAX_STATIC_TYPES = 60;
const DO_NOT_DISRUPT = 'karpenter.sh/do-not-disrupt';

/** Claims that count toward a static pool's replicas: live and not on their way out. */
const counted = (s: ClusterSnapshot, pool: string): NodeClaim[] =>
  s.claims.filter((c) => c.nodePool === pool && c.state !== 'Draining');

/** How many claims a static pool is short of its replicas, within `limits.nodes` (which counts draining claims). */
export function staticShortfall(s: ClusterSnapshot, pool: NodePool): number {
  if (!isStaticNodePool(pool)) return 0;
  const have = counted(s, pool.metadata.name).length;
  let missing = (pool.spec.replicas ?? 0) - have;
  const limit = pool.spec.limits?.nodes;
  if (limit !== undefined) {
    const all = s.claims.filter((c) => c.nodePool === pool.metadata.name).length;
    missing = Math.min(missing, parseQuantity(limit) - all);
  }
  return Math.max(0, missing);
}

/** The types a static pool's claims may launch: every requirement met by the type's labels or an offering. */
function staticOptions(pool: NodePool, types: InstanceType[]): InstanceType[] {
  const reqs = pool.spec.template.spec.requirements;
  const labels = { ...(pool.spec.template.metadata?.labels ?? {}), [LabelNodePool]: pool.metadata.name };
  const out: InstanceType[] = [];
  for (const t of types) {
    const all: Record<string, string> = { ...t.labels, ...labels };
    const typeOk = reqs.every(
      (r) =>
        r.key === LabelZone ||
        r.key === LabelCapacityType ||
        !(r.key in all) ||
        admits([r], r.key, all[r.key] as string),
    );
    if (!typeOk) continue;
    const offerings = t.offerings.filter(
      (o) => o.available && admits(reqs, LabelZone, o.zone) && admits(reqs, LabelCapacityType, o.capacityType),
    );
    if (offerings.length > 0) out.push({ ...t, offerings });
  }
  const cheapest = (t: InstanceType): number => Math.min(...t.offerings.map((o) => o.price));
  return out.sort((a, b) => cheapest(a) - cheapest(b) || a.name.localeCompare(b.name)).slice(0, MAX_STATIC_TYPES);
}

/** Writes the claims every static pool is short of; the caller launches them with its own. */
export async function writeStaticClaims(deps: ControlPlaneDeps, s: ClusterSnapshot): Promise<NodeClaim[]> {
  const written: NodeClaim[] = [];
  for (const pool of s.nodePools) {
    const missing = staticShortfall(s, pool);
    if (missing === 0) continue;
    const options = staticOptions(pool, s.instanceTypes.get(pool.metadata.name) ?? []);
    if (options.length === 0) {
      deps.log.warn('static NodePool has no instance type to launch', { nodePool: pool.metadata.name });
      continue;
    }
    const nodeClass = s.nodeClasses.find((c) => c.metadata.name === pool.spec.template.spec.nodeClassRef.name);
    const createdAt = new Date(deps.clock.now()).toISOString();
    for (let i = 0; i < missing; i++) {
      const claim: NodeClaim = {
        name: `${pool.metadata.name}-${newId(deps).slice(0, 5)}`,
        uid: newUid(deps),
        cluster: deps.cluster,
        nodePool: pool.metadata.name,
        nodeClass: pool.spec.template.spec.nodeClassRef.name,
        state: 'Pending',
        version: 1,
        requirements: pool.spec.template.spec.requirements,
        instanceTypeOptions: options.map((t) => t.name),
        labels: { ...(pool.spec.template.metadata?.labels ?? {}), [LabelNodePool]: pool.metadata.name },
        taints: pool.spec.template.spec.taints ?? [],
        startupTaints: pool.spec.template.spec.startupTaints ?? [],
        requests: {},
        nominatedPods: [],
        createdAt,
        stateTimes: { Pending: createdAt },
        ...claimHashes(pool, nodeClass),
      };
      try {
        written.push(await deps.store.create(claim));
      } catch (err) {
        if (!(err instanceof ConflictError)) throw err;
      }
    }
    deps.log.info('static NodePool scaled up', { nodePool: pool.metadata.name, created: missing });
  }
  return written;
}

/** Terminates each static pool's claims beyond its replicas; returns the claims it started terminating. */
export async function scaleDownStatic(deps: ControlPlaneDeps, s: ClusterSnapshot): Promise<string[]> {
  const started: string[] = [];
  for (const pool of s.nodePools) {
    if (!isStaticNodePool(pool)) continue;
    const claims = counted(s, pool.metadata.name);
    const surplus = claims.length - (pool.spec.replicas ?? 0);
    if (surplus <= 0) continue;
    for (const claim of surplusOrder(claims, s.bound).slice(0, surplus)) {
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
export function surplusOrder(claims: NodeClaim[], bound: Pod[]): NodeClaim[] {
  const podsOn = new Map<string, Pod[]>();
  for (const p of bound) {
    const node = p.spec.nodeName;
    if (node) podsOn.set(node, [...(podsOn.get(node) ?? []), p]);
  }
  const facts = claims.map((c) => {
    const pods = (c.nodeName ? (podsOn.get(c.nodeName) ?? []) : []).filter(
      (p) => !p.metadata.ownerReferences?.some((o) => o.kind === 'DaemonSet'),
    );
    return {
      c,
      unlaunched: !c.instanceId,
      empty: pods.length === 0,
      doNotDisrupt: pods.some((p) => p.metadata.annotations?.[DO_NOT_DISRUPT] === 'true'),
      pods: pods.length,
    };
  });
  const rank = (b: boolean): number => (b ? 0 : 1);
  return facts
    .sort(
      (a, b) =>
        rank(a.unlaunched) - rank(b.unlaunched) ||
        rank(a.empty) - rank(b.empty) ||
        rank(!a.doNotDisrupt) - rank(!b.doNotDisrupt) ||
        a.pods - b.pods ||
        a.c.name.localeCompare(b.c.name),
    )
    .map((f) => f.c);
}
