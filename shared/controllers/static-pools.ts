// Static NodePools (`spec.replicas`), as Karpenter's static provisioning controller runs them (docs/disruption.md,
// "Static NodePools"): a pool with fewer live NodeClaims than replicas gets new claims (no pods, the pool's
// requirements, every type they allow cheapest first), capped by `limits.nodes`. Surplus is the scale-down's
// (static-scale-down.ts).
//
// Passes may run at once (a Sweep tick beside a NodePoolChanged hint), and neither may push the pool past its
// replicas or its limit:
// - a claim's name derives from the pool's claims the pass read and the slot it fills, so passes that read the same
//   claims collide on the store's conditional create and each slot is written once;
// - after writing, a pass re-reads the pool and, if claims it never saw (a pass that read other claims) leave less
//   room than it took, withdraws its own surplus before launching anything and asks for a fresh pass.

import { claimTemplateFields } from '../api/claim-template';
import { claimHashes } from '../api/hash';
import { newUid, staticClaimName } from '../api/ids';
import type { NodePool } from '../api/karpenter';
import { LabelCapacityType, LabelNodePool, LabelZone } from '../api/labels';
import { LIVE_STATES, type NodeClaim } from '../api/nodeclaim';
import { parseQuantity } from '../api/quantity';
import { isStaticNodePool } from '../api/static-nodepool';
import type { InstanceType } from '../catalog/types';
import { ConflictError } from '../errors';
import type { ControlPlaneDeps } from './deps';
import { requestReplan } from './messages';
import { admits } from './offerings';
import type { ClusterSnapshot } from './snapshot';

const MAX_STATIC_TYPES = 60;
/** How many names a slot may try: the first, then salted ones when a dead claim holds it. */
const NAME_SALTS = 5;

/** Claims that count toward a static pool's replicas: live and not on their way out. */
export const countedClaims = (claims: readonly NodeClaim[], pool: string): NodeClaim[] =>
  claims.filter((c) => c.nodePool === pool && c.state !== 'Draining');

/** Karpenter's static controllers leave a pool alone while it is being deleted. */
export const staticPoolActive = (pool: NodePool): boolean => isStaticNodePool(pool) && !pool.metadata.deletionTimestamp;

/** The most claims the pool may hold, draining ones included (`limits.nodes`), or Infinity. */
function nodeLimit(pool: NodePool): number {
  const limit = pool.spec.limits?.nodes;
  return limit === undefined ? Number.POSITIVE_INFINITY : parseQuantity(limit);
}

/** How many claims a static pool is short of its replicas, within `limits.nodes` (which counts draining claims). */
export function staticShortfall(s: ClusterSnapshot, pool: NodePool): number {
  if (!staticPoolActive(pool)) return 0;
  return room(s.claims, pool, 0);
}

/** Claims the pool can still take, given `claims` and `own` more of its own. */
function room(claims: readonly NodeClaim[], pool: NodePool, own: number): number {
  const name = pool.metadata.name;
  const missing = (pool.spec.replicas ?? 0) - countedClaims(claims, name).length - own;
  const all = claims.filter((c) => c.nodePool === name).length + own;
  return Math.max(0, Math.min(missing, nodeLimit(pool) - all));
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

/** Writes the claims every static pool is short of; the caller launches the written ones with its own. `withdrawn`
 * names the ones it took back because a concurrent pass left no room for them. */
export async function writeStaticClaims(
  deps: ControlPlaneDeps,
  s: ClusterSnapshot,
): Promise<{ written: NodeClaim[]; withdrawn: string[] }> {
  const written: NodeClaim[] = [];
  const withdrawn: string[] = [];
  for (const pool of s.nodePools) {
    const missing = staticShortfall(s, pool);
    if (missing === 0) continue;
    const options = staticOptions(pool, s.instanceTypes.get(pool.metadata.name) ?? []);
    if (options.length === 0) {
      deps.log.warn('static NodePool has no instance type to launch', { nodePool: pool.metadata.name });
      continue;
    }
    const own = await writeSlots(deps, s, pool, options, missing);
    const { kept, gone } = await yieldToRivals(deps, s, pool, own);
    written.push(...kept);
    withdrawn.push(...gone);
    if (kept.length > 0)
      deps.log.info('static NodePool scaled up', { nodePool: pool.metadata.name, created: kept.length });
  }
  return { written, withdrawn };
}

interface Slots {
  written: NodeClaim[];
  /** Every name this pass tried: a claim of one of them is this pass's plan, whoever wrote it. */
  names: Set<string>;
}

async function writeSlots(
  deps: ControlPlaneDeps,
  s: ClusterSnapshot,
  pool: NodePool,
  options: InstanceType[],
  missing: number,
): Promise<Slots> {
  const name = pool.metadata.name;
  const known = s.claims.filter((c) => c.nodePool === name).map((c) => c.name);
  const seen = new Set(s.claims.map((c) => c.name));
  const nodeClass = s.nodeClasses.find((c) => c.metadata.name === pool.spec.template.spec.nodeClassRef.name);
  // Stamped at write time, as a planned claim is: a concurrent pass must not take it for an abandoned one.
  const createdAt = new Date(deps.clock.now()).toISOString();
  const out: Slots = { written: [], names: new Set() };
  const mine = new Set<string>();
  for (let slot = 0; slot < missing; slot++) {
    for (let salt = 0; salt < NAME_SALTS; salt++) {
      const claim: NodeClaim = {
        name: staticClaimName(name, known, slot, salt),
        uid: newUid(deps),
        cluster: deps.cluster,
        nodePool: name,
        nodeClass: pool.spec.template.spec.nodeClassRef.name,
        state: 'Pending',
        version: 1,
        requirements: pool.spec.template.spec.requirements,
        instanceTypeOptions: options.map((t) => t.name),
        labels: { ...(pool.spec.template.metadata?.labels ?? {}), [LabelNodePool]: name },
        taints: pool.spec.template.spec.taints ?? [],
        startupTaints: pool.spec.template.spec.startupTaints ?? [],
        requests: {},
        nominatedPods: [],
        createdAt,
        stateTimes: { Pending: createdAt },
        ...claimHashes(pool, nodeClass),
        ...claimTemplateFields(pool),
      };
      out.names.add(claim.name);
      try {
        out.written.push(await deps.store.create(claim));
        mine.add(claim.name);
        break;
      } catch (err) {
        if (!(err instanceof ConflictError)) throw err;
        const existing = await deps.store.get(claim.name);
        // Written since this pass read the store, for this pool: a concurrent pass filled this slot.
        if (
          existing &&
          LIVE_STATES.includes(existing.state) &&
          existing.nodePool === name &&
          !seen.has(existing.name) &&
          !mine.has(existing.name)
        ) {
          break;
        }
        // Otherwise a dead claim (or one of this pass's own slots) holds the name: salt it.
      }
    }
  }
  return out;
}

/** Withdraws this pass's own claims beyond what the claims written by passes that read another state leave room
 * for. Both passes may yield; the replan they ask for tops the pool up from what is left. */
async function yieldToRivals(
  deps: ControlPlaneDeps,
  s: ClusterSnapshot,
  pool: NodePool,
  own: Slots,
): Promise<{ kept: NodeClaim[]; gone: string[] }> {
  if (own.written.length === 0) return { kept: [], gone: [] };
  const name = pool.metadata.name;
  const seen = new Set(s.claims.map((c) => c.name));
  const now = (await deps.store.list({ states: LIVE_STATES })).filter((c) => c.nodePool === name);
  const rivals = now.filter((c) => !seen.has(c.name) && !own.names.has(c.name));
  if (rivals.length === 0) return { kept: own.written, gone: [] };
  const others = now.filter((c) => !own.names.has(c.name));
  const planned = now.filter((c) => own.names.has(c.name) && !own.written.some((w) => w.name === c.name)).length;
  const keep = room(others, pool, planned);
  const kept = own.written.slice(0, keep);
  const withdrawn: string[] = [];
  for (const claim of own.written.slice(keep)) {
    try {
      await deps.store.delete(claim);
      withdrawn.push(claim.name);
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
    }
  }
  if (withdrawn.length > 0) {
    deps.log.warn('concurrent static NodePool scale-up detected; withdrew own claims', { nodePool: name, withdrawn });
    await requestReplan(deps, `static NodePool ${name}: concurrent provisioning pass`);
  }
  return { kept, gone: withdrawn };
}
