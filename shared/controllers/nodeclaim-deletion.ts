// `kubectl delete nodeclaim`: the termination of a claim whose karpenter.sh/v1 NodeClaim object someone deleted
// (docs/kubernetes.md, NodeClaim objects). One implementation, reached two ways: the mirror each Sweep tick runs
// (shared/controllers/nodeclaim-mirror.ts) and the NodeClaimDeleted message the forwarder sends as soon as its watch
// sees the deletion mark, so the drain starts at once, as Karpenter's finalizer does, rather than up to a tick later.
// The message is only a hint: the marks are re-read from the API server, so a forged or stale one removes nothing.
// A mark on an object whose claim is already gone (or terminated) has nothing left to wait for: its finalizer comes off
// at once, so `kubectl delete` returns then rather than at the next Sweep tick's mirror.

import type { NodePool } from '../api/karpenter';
import type { NodeClaim } from '../api/nodeclaim';
import { isManagedByKarpless } from '../api/nodeclaim-object';
import type { InstanceDeps } from './deps';
import { nodePoolGone } from './nodepool-deletion';
import { message } from './snapshot';
import { startTermination } from './termination';

export interface DeletedNodeClaimsResult {
  /** Claims whose termination this pass started (or found already queued for a Failed claim). */
  terminating: string[];
  /** Objects whose claim is gone or terminated: their finalizer taken off, so the API server deleted them. */
  released: string[];
  /** Deletion marks left as they are: the claim is already draining (its termination releases the object), or the
   * release failed (logged; the mirror retries on the next Sweep tick). */
  skipped: string[];
}

/** Starts the termination of every live claim whose own (managed-by karpless) NodeClaim object carries a deletion
 * mark. A cluster without NodeClaim objects (no CRD, or an adapter without them) has nothing to do. */
export async function terminateDeletedNodeClaims(deps: InstanceDeps): Promise<DeletedNodeClaimsResult> {
  const result: DeletedNodeClaimsResult = { terminating: [], released: [], skipped: [] };
  if (!deps.kube.listNodeClaimObjects) return result;
  const marked = (await deps.kube.listNodeClaimObjects()).filter(
    (o) => o.metadata.deletionTimestamp && isManagedByKarpless(o),
  );
  let pools: NodePool[] | undefined;
  for (const o of marked) {
    const name = o.metadata.name;
    const claim = await deps.store.get(name);
    if (!claim || claim.state === 'Terminated') {
      ((await releaseObject(deps, name)) ? result.released : result.skipped).push(name);
      continue;
    }
    // A draining claim is already on its way; its termination takes the finalizer off.
    if (claim.state === 'Draining') {
      result.skipped.push(name);
      continue;
    }
    // Kubernetes' garbage collector deletes the objects of a deleted NodePool (their owner reference): that is the
    // pool's cascade, whichever message arrives first (docs/disruption.md, Deleting a NodePool).
    pools ??= await deps.kube.listNodePools();
    const poolGone = claim.nodePool ? nodePoolGone(pools, claim) : undefined;
    if (await terminateDeletedClaim(deps, claim, poolGone)) result.terminating.push(name);
  }
  return result;
}

/** Takes Karpless's finalizer off an object being deleted whose claim is gone; the API server then deletes it, as
 * the mirror would on its next pass (shared/controllers/nodeclaim-mirror.ts). */
async function releaseObject(deps: InstanceDeps, name: string): Promise<boolean> {
  if (!deps.kube.deleteNodeClaimObject) return false;
  try {
    await deps.kube.deleteNodeClaimObject(name);
    deps.log.info('NodeClaim object released: its claim is gone', { nodeClaim: name });
    return true;
  } catch (err) {
    deps.log.warn('NodeClaim object not released', { nodeClaim: name, error: message(err) });
    return false;
  }
}

/** As Karpenter's termination finalizer does: the node is cordoned and drained (PDBs and terminationGracePeriod
 * respected) and its instance terminated; termination then takes the finalizer off, and the API server deletes the
 * object (shared/controllers/termination.ts). A Failed claim has nothing to drain and ends at once. `poolGone` says
 * why the claim's NodePool is ending, when it is. Returns the claim as stored, or undefined when it could not be
 * started (logged, never thrown: the next pass retries). */
export async function terminateDeletedClaim(
  deps: InstanceDeps,
  claim: NodeClaim,
  poolGone?: string,
): Promise<NodeClaim | undefined> {
  try {
    const started = await startTermination(
      deps,
      claim,
      poolGone
        ? { cause: 'NodePoolDeleted', detail: poolGone }
        : { cause: 'Deleted', detail: `NodeClaim ${claim.name} was deleted` },
    );
    deps.log.info('NodeClaim object deleted: terminating its node', { nodeClaim: claim.name });
    return started;
  } catch (err) {
    deps.log.warn('NodeClaim deletion not started', { nodeClaim: claim.name, error: message(err) });
    return undefined;
  }
}
