// Claims whose drift hashes are of an older version (CLAIM_HASH_VERSION) get today's hashes, so drift can compare them
// from the next sweep on. The planning sweep runs this beside the pod-set fingerprints: one conditional write per old
// claim, once. Draining and ended claims are left alone: nothing compares their hashes any more. A claim its own
// version's hash had drifted keeps that hash (only the version moves), so it stays drifted, as Karpenter leaves a
// Drifted NodeClaim's hash alone (docs/disruption.md, Drift).

import { CLAIM_HASH_VERSION, claimHashes } from '../api/hash';
import { PREVIOUS_HASHES } from '../api/hash-previous';
import type { EC2NodeClass, NodePool } from '../api/karpenter';
import type { NodeClaim, NodeClaimState } from '../api/nodeclaim';
import { ConflictError } from '../errors';
import type { ControlPlaneDeps } from './deps';

/** The states whose claims drift is checked for, now or once they initialize. */
const COMPARED: readonly NodeClaimState[] = ['Pending', 'Launched', 'Registered', 'Initialized'];

export async function restampClaimHashes(
  deps: ControlPlaneDeps,
  claims: ReadonlyMap<string, NodeClaim>,
  nodePools: readonly NodePool[],
  nodeClasses: readonly EC2NodeClass[],
): Promise<Map<string, NodeClaim>> {
  const out = new Map(claims);
  const restamped: string[] = [];
  for (const claim of claims.values()) {
    if (claim.hashVersion === CLAIM_HASH_VERSION || !COMPARED.includes(claim.state)) continue;
    const pool = nodePools.find((p) => p.metadata.name === claim.nodePool);
    const nodeClass = nodeClasses.find((c) => c.metadata.name === claim.nodeClass);
    // Without its NodePool the claim is not compared at all; it keeps its old version until the pool is back.
    if (!pool) continue;
    try {
      out.set(claim.name, await deps.store.update(claim, restampedHashes(claim, pool, nodeClass)));
      restamped.push(claim.name);
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
    }
  }
  if (restamped.length > 0) {
    deps.log.info('drift hashes re-stamped at the current version', {
      version: CLAIM_HASH_VERSION,
      nodeClaims: restamped,
    });
  }
  return out;
}

/** Today's hashes, except the ones that already differed from what the claim's own version computes today. */
function restampedHashes(
  claim: NodeClaim,
  pool: NodePool,
  nodeClass: EC2NodeClass | undefined,
): Pick<NodeClaim, 'nodePoolHash' | 'nodeClassHash' | 'hashVersion'> {
  const fresh = claimHashes(pool, nodeClass);
  const previous = claim.hashVersion === undefined ? undefined : PREVIOUS_HASHES[claim.hashVersion];
  if (!previous) return fresh;
  const poolDrifted = claim.nodePoolHash !== undefined && claim.nodePoolHash !== previous.nodePool(pool);
  const classDrifted =
    nodeClass !== undefined &&
    claim.nodeClassHash !== undefined &&
    claim.nodeClassHash !== previous.nodeClass(nodeClass);
  return {
    ...fresh,
    ...(poolDrifted ? { nodePoolHash: claim.nodePoolHash } : {}),
    ...(classDrifted ? { nodeClassHash: claim.nodeClassHash } : {}),
  };
}
