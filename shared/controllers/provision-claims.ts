// The provisioning pass's claims in the store: written before they launch, under names derived from their pods, and
// withdrawn when a concurrent pass planned the same pods (the races the pass's header in provision.ts describes).

import { claimHashes } from '../api/hash';
import { claimName } from '../api/ids';
import type { PodRef } from '../api/kube';
import { LIVE_STATES, type NodeClaim } from '../api/nodeclaim';
import { podRef, refKey } from '../api/pods';
import { ConflictError } from '../errors';
import type { PlannedNodeClaim } from '../scheduling';
import type { ControlPlaneDeps } from './deps';
import { requestReplan } from './messages';
import { claimFromPlan } from './planned-claim';
import type { ClusterSnapshot } from './snapshot';

/** How many names a planned claim may try: its pods' name, then salted ones when that name is taken. */
export const CLAIM_NAME_SALTS = 5;

/** Writes each planned claim. A name already taken by a live claim with the same pods means another pass planned
 * the same claim from the same state: it owns that launch. Any other holder of the name (a dead claim, or the
 * draining claim whose pods these replace) gets the name salted and tried again. */
export async function writeClaims(
  deps: ControlPlaneDeps,
  s: ClusterSnapshot,
  planned: PlannedNodeClaim[],
): Promise<NodeClaim[]> {
  const written: NodeClaim[] = [];
  // Stamped at write time, not snapshot time: a long solve must not make a fresh claim look abandoned to a
  // concurrent pass (which relaunches Pending claims older than pendingRelaunchAfterMs).
  const createdAt = new Date(deps.clock.now()).toISOString();
  const seen = new Set(s.claims.map((c) => c.name));
  // The template hashes depend only on the NodePool and EC2NodeClass: hashed once per pair, not once per claim.
  const hashes = new Map<string, ReturnType<typeof claimHashes>>();
  for (const p of planned) {
    const refs = p.pods.map(podRef);
    const pool = s.nodePools.find((np) => np.metadata.name === p.nodePool);
    const nodeClass = s.nodeClasses.find((c) => c.metadata.name === p.nodeClass);
    const pair = `${p.nodePool}\n${p.nodeClass}`;
    const templateHashes = hashes.get(pair) ?? claimHashes(pool, nodeClass);
    hashes.set(pair, templateHashes);
    for (let salt = 0; salt < CLAIM_NAME_SALTS; salt++) {
      const claim = claimFromPlan(deps, p, {
        name: claimName(p.nodePool, refs, salt),
        createdAt,
        nodePool: pool,
        hashes: templateHashes,
      });
      try {
        written.push(await deps.store.create(claim));
        break;
      } catch (err) {
        if (!(err instanceof ConflictError)) throw err;
        const existing = await deps.store.get(claim.name);
        // Written since this pass read the store, for exactly these pods: a concurrent pass's identical plan.
        if (existing && !seen.has(existing.name) && LIVE_STATES.includes(existing.state) && samePods(existing, refs)) {
          deps.log.info('claim already written by another pass', { nodeClaim: claim.name });
          break;
        }
        // Otherwise the name belongs to a claim this pass already knew (the one whose pods these replace) or to a
        // dead one: salt it.
      }
    }
  }
  return written;
}

function samePods(claim: NodeClaim, refs: PodRef[]): boolean {
  const a = claim.nominatedPods.map(refKey).sort().join(',');
  return a === refs.map(refKey).sort().join(',');
}

/** Withdraws own claims that share a pod with a live claim this pass did not see when it started, adding their
 * names to `withdrawn`. */
export async function withdrawContested(
  deps: ControlPlaneDeps,
  s: ClusterSnapshot,
  own: NodeClaim[],
  withdrawn: string[],
): Promise<NodeClaim[]> {
  if (own.length === 0) return own;
  const seen = new Set(s.claims.map((c) => c.name));
  const mine = new Set(own.map((c) => c.name));
  const rivals = (await deps.store.list({ states: LIVE_STATES })).filter((c) => !seen.has(c.name) && !mine.has(c.name));
  if (rivals.length === 0) return own;
  const contested = new Set(rivals.flatMap((c) => c.nominatedPods.map(refKey)));
  const keep: NodeClaim[] = [];
  const released: PodRef[] = [];
  for (const claim of own) {
    if (!claim.nominatedPods.some((r) => contested.has(refKey(r)))) {
      keep.push(claim);
      continue;
    }
    try {
      await deps.store.delete(claim);
      withdrawn.push(claim.name);
      released.push(...claim.nominatedPods);
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
    }
  }
  if (released.length > 0) {
    deps.log.warn('concurrent provisioning detected; withdrew contested claims', { withdrawn });
    await requestReplan(deps, 'concurrent provisioning pass', released);
  }
  return keep;
}
