// Deleting a NodePool deletes its nodes (docs/disruption.md, Deleting a NodePool). In Karpenter each NodeClaim carries
// an owner reference to its NodePool's UID, so Kubernetes' garbage collector deletes the NodeClaims of a deleted pool
// and each then terminates gracefully. Karpless's claims live in its store, so this does the cascade: every live claim
// whose NodePool is gone, is being deleted (another actor's finalizer holds it), or was deleted and created again
// under the same name (the live pool's UID is not the one the claim recorded) goes through the one termination
// use-case (cordon, drain under PodDisruptionBudgets and terminationGracePeriod, terminate the instance) with the cause
// NodePoolDeleted. Idempotent: a claim already Draining is left to its termination, so running it on every GC tick
// and on every NodePoolChanged hint starts each claim's end once. A claim written before the UID was recorded is
// adopted by name: the first run stamps the live pool's UID on it (docs/disruption.md, Claims from before UIDs).
import type { NodePool } from '../api/karpenter';
import { IllegalTransitionError, LIVE_STATES, type NodeClaim } from '../api/nodeclaim';
import { ConflictError } from '../errors';
import type { InstanceDeps } from './deps';
import { emitEvent } from './events';
import { message } from './snapshot';
import { startTermination } from './termination';

/** Why a claim's NodePool is ending, or undefined while it stands. A claim that recorded no UID, or a pool listed
 * without one, is matched by name. */
export function nodePoolGone(
  pools: readonly NodePool[],
  claim: Pick<NodeClaim, 'nodePool' | 'nodePoolUid'>,
): string | undefined {
  const name = claim.nodePool;
  const pool = pools.find((p) => p.metadata.name === name);
  if (!pool) return `NodePool ${name} was deleted`;
  if (claim.nodePoolUid && pool.metadata.uid && pool.metadata.uid !== claim.nodePoolUid) {
    return `NodePool ${name} was deleted (UID ${claim.nodePoolUid}; the NodePool ${name} listed now is UID ${pool.metadata.uid})`;
  }
  if (pool.metadata.deletionTimestamp) return `NodePool ${name} is being deleted`;
  return undefined;
}

/** Starts the termination of every live claim whose NodePool is gone, being deleted, or another of the same name now;
 * returns the claims started. Adopts the claims that recorded no UID on the way.
 * `claims` lets a caller that has just listed the store (GC) pass its list. */
export async function terminateClaimsOfDeletedNodePools(
  deps: InstanceDeps,
  claims?: readonly NodeClaim[],
): Promise<string[]> {
  const [pools, all] = await Promise.all([
    deps.kube.listNodePools(),
    claims ? Promise.resolve(claims) : deps.store.list({ states: LIVE_STATES }),
  ]);
  const byPool = new Map<string, { reason: string; claims: NodeClaim[] }>();
  const unstamped: NodeClaim[] = [];
  for (const claim of all) {
    // Draining claims are already ending; Failed ones are termination's already (failGone, the launch timeouts).
    if (!LIVE_STATES.includes(claim.state) || claim.state === 'Draining') continue;
    // A claim with no NodePool (one seeded from a standalone NodeClaim of a cluster dump) has no owner to follow.
    if (!claim.nodePool) continue;
    const reason = nodePoolGone(pools, claim);
    if (!reason) {
      if (!claim.nodePoolUid) unstamped.push(claim);
      continue;
    }
    const entry = byPool.get(claim.nodePool) ?? { reason, claims: [] };
    entry.claims.push(claim);
    byPool.set(claim.nodePool, entry);
  }
  await adoptByName(deps, pools, unstamped);
  const started: string[] = [];
  for (const [pool, { reason, claims: ending }] of byPool) {
    const names: string[] = [];
    for (const claim of ending) {
      if (await startQuietly(deps, claim, reason)) names.push(claim.name);
    }
    if (names.length === 0) continue;
    started.push(...names);
    deps.log.info('NodePool deleted: terminating its NodeClaims', { nodePool: pool, reason, nodeClaims: names });
    await emitEvent(deps, {
      involved: { kind: 'NodePool', name: pool },
      type: 'Normal',
      reason: 'NodePoolDeleted',
      message: `${reason}: terminating ${names.length} NodeClaim(s): ${names.join(', ')}`,
    });
  }
  return started;
}

/** Stamps the live pool's UID on claims written before it was recorded, so from now on they end with that pool and
 * not with one created later under its name. A lost race (the claim changed meanwhile) is left to the next run. */
async function adoptByName(deps: InstanceDeps, pools: readonly NodePool[], claims: readonly NodeClaim[]) {
  const adopted: string[] = [];
  for (const claim of claims) {
    const uid = pools.find((p) => p.metadata.name === claim.nodePool)?.metadata.uid;
    if (!uid) continue;
    try {
      await deps.store.update(claim, { nodePoolUid: uid });
      adopted.push(claim.name);
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
    }
  }
  if (adopted.length > 0) deps.log.info('NodeClaims adopted by their NodePool UID', { nodeClaims: adopted });
}

/** One claim's termination; a race lost to another writer (the claim changed meanwhile) is left to the next run,
 * which reads the claim again. */
async function startQuietly(deps: InstanceDeps, claim: NodeClaim, reason: string): Promise<boolean> {
  try {
    const started = await startTermination(deps, claim, { cause: 'NodePoolDeleted', detail: reason });
    return started?.state === 'Draining' || started?.state === 'Failed';
  } catch (err) {
    if (!(err instanceof ConflictError) && !(err instanceof IllegalTransitionError)) throw err;
    deps.log.warn('NodePool deletion: termination not started', { nodeClaim: claim.name, error: message(err) });
    return false;
  }
}
