// Pod activity without a watch stream: each planning sweep fingerprints the set of pod uids on every claimed node and
// keeps the fingerprint on the NodeClaim. When it changes, the sweep stores `podsChangedAt = now`, so a pod leaving is
// noticed as surely as one arriving. The time is only as fine as the sweep period (a minute in Lambda): a change is
// dated when the sweep first sees it, at most one period late, which only ever delays consolidation, never hastens it.
import type { NodeClaim } from '../api/nodeclaim';
import { ConflictError } from '../errors';
import type { ClusterNode } from '../scheduling';
import type { ControlPlaneDeps } from './deps';

type PodLike = ClusterNode['pods'][number];

/** A cheap, order-independent fingerprint of a node's pod set: the count and a 32-bit FNV-1a of the sorted keys. */
export function podSetHash(pods: readonly PodLike[]): string {
  const keys = pods.map((p) => p.metadata.uid ?? `${p.metadata.namespace ?? ''}/${p.metadata.name}`).sort();
  let h = 0x811c9dc5;
  for (const key of keys) {
    for (let i = 0; i < key.length; i++) {
      h ^= key.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    h ^= 0x0a; // separator, so ["ab","c"] and ["a","bc"] differ
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `${keys.length}:${h.toString(16).padStart(8, '0')}`;
}

/** The newest pod's creation time, or undefined when no pod carries one. */
export function newestPodCreation(pods: readonly PodLike[]): number | undefined {
  let newest: number | undefined;
  for (const p of pods) {
    const at = p.metadata.creationTimestamp ? Date.parse(p.metadata.creationTimestamp) : Number.NaN;
    if (!Number.isNaN(at) && (newest === undefined || at > newest)) newest = at;
  }
  return newest;
}

/**
 * Stores a new fingerprint and `podsChangedAt` on each claim whose node's pod set changed since the last sweep, and
 * returns the claims as they now stand (unchanged ones as given). A claim seen for the first time is dated by its
 * newest pod or its initialization, whichever is later. A claim written concurrently (ConflictError) is skipped this
 * time; the next sweep sees the change.
 */
export async function recordPodChanges(
  deps: ControlPlaneDeps,
  nodes: readonly ClusterNode[],
  claims: ReadonlyMap<string, NodeClaim>,
  now: number,
): Promise<Map<string, NodeClaim>> {
  const out = new Map(claims);
  for (const n of nodes) {
    const claim = n.nodeClaim ? claims.get(n.nodeClaim) : undefined;
    // Only initialized nodes can be consolidated; tracking starts there, so the first observation is never dated
    // before the initialization, and launching claims are not written to.
    if (claim?.state !== 'Initialized') continue;
    const hash = podSetHash(n.pods);
    if (claim.podSetHash === hash) continue;
    let changedAt = now;
    if (claim.podSetHash === undefined) {
      const initialized = Date.parse(claim.stateTimes.Initialized ?? claim.createdAt);
      const newest = newestPodCreation(n.pods);
      changedAt = Math.max(Number.isNaN(initialized) ? 0 : initialized, newest ?? 0) || now;
    }
    try {
      out.set(
        claim.name,
        await deps.store.update(claim, { podSetHash: hash, podsChangedAt: new Date(changedAt).toISOString() }),
      );
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
    }
  }
  return out;
}
