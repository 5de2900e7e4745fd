// Mirrors the store's NodeClaims into the cluster as karpenter.sh/v1 NodeClaim objects (docs/kubernetes.md, NodeClaim
// objects): creates the missing, rewrites the stale, deletes the orphans, and terminates the node of an object someone
// deleted (its termination finalizer holds it meanwhile; the forwarder's NodeClaimDeleted usually starts that first,
// through the same shared/controllers/nodeclaim-deletion.ts). DynamoDB stays the source of truth; the
// mirror is rebuilt on every planning sweep, so it is eventually consistent and repairs itself when someone edits or
// deletes an object. It never touches a NodeClaim it does not own (no app.kubernetes.io/managed-by=karpless label),
// such as Karpenter's own during a migration. A failure is logged, never fatal: the objects are for people and tools.

import type { NodePool } from '../api/karpenter';
import type { QuantityMap } from '../api/kube';
import type { NodeClaim } from '../api/nodeclaim';
import {
  isManagedByKarpless,
  type NodeClaimFacts,
  type NodeClaimObject,
  nodeClaimObject,
  nodeClaimObjectStale,
} from '../api/nodeclaim-object';
import { parseDuration } from '../api/quantity';
import { isStaticNodePool } from '../api/static-nodepool';
import type { DisruptionInput } from '../disruption';
import { driftReason } from '../disruption';
import type { InstanceDeps } from './deps';
import { terminateDeletedClaim } from './nodeclaim-deletion';
import { message } from './snapshot';

export interface MirrorResult {
  created: string[];
  updated: string[];
  deleted: string[];
  /** Objects of the same name Karpless does not own, left alone. */
  foreign: string[];
  /** Claims whose object someone deleted (`kubectl delete nodeclaim`): their termination started. */
  terminating: string[];
}

/** Drift and consolidatability as the planning sweep sees them, by claim name. */
export function nodeClaimFacts(input: DisruptionInput): Map<string, NodeClaimFacts> {
  const pools = new Map(input.nodePools.map((p) => [p.metadata.name, p]));
  const classes = new Map(input.nodeClasses.map((c) => [c.metadata.name, c]));
  const out = new Map<string, NodeClaimFacts>();
  for (const n of input.nodes) {
    const pool = pools.get(n.claim.nodePool);
    if (!pool) continue;
    const drifted = driftReason(n, pool, classes.get(n.claim.nodeClass), input.kubernetesVersion);
    const consolidatable = consolidatableNow(n, pool, input.now);
    out.set(n.claim.name, { ...(drifted ? { drifted } : {}), consolidatable });
  }
  return out;
}

/** Karpenter's Consolidatable condition: initialized and consolidateAfter past the last pod event. Never on a static
 * pool's nodes, which are never consolidated (docs/disruption.md, Static NodePools). */
function consolidatableNow(n: DisruptionInput['nodes'][number], pool: NodePool, now: number): boolean {
  if (isStaticNodePool(pool)) return false;
  try {
    const after = parseDuration(pool.spec.disruption.consolidateAfter ?? '0s');
    const last = n.lastPodEventAt ?? Date.parse(n.claim.stateTimes.Initialized ?? n.claim.createdAt);
    return n.claim.state === 'Initialized' && Number.isFinite(after) && now - last >= after;
  } catch {
    // an unreadable consolidateAfter is reported by validation; the node is not consolidatable
    return false;
  }
}

const quantities = (q: QuantityMap): Record<string, string> =>
  Object.fromEntries(Object.entries(q).map(([k, v]) => [k, String(v)]));

export async function mirrorNodeClaims(
  deps: InstanceDeps,
  facts: ReadonlyMap<string, NodeClaimFacts> = new Map(),
): Promise<MirrorResult | undefined> {
  const { kube } = deps;
  if (!kube.listNodeClaimObjects || !kube.writeNodeClaimObject || !kube.deleteNodeClaimObject) return undefined;
  const result: MirrorResult = { created: [], updated: [], deleted: [], foreign: [], terminating: [] };
  const [claims, objects, nodes] = await Promise.all([
    deps.store.list(),
    kube.listNodeClaimObjects(),
    kube.listNodes(),
  ]);
  const now = new Date(deps.clock.now()).toISOString();
  const current = new Map<string, NodeClaimObject>(objects.map((o) => [o.metadata.name, o]));
  const nodeByName = new Map(nodes.map((n) => [n.metadata.name, n]));
  const wanted = new Set<string>();
  for (let claim of claims) {
    if (claim.state === 'Terminated' || launchFailedLongAgo(claim, deps)) continue;
    wanted.add(claim.name);
    const existing = current.get(claim.name);
    if (existing && !isManagedByKarpless(existing)) {
      result.foreign.push(claim.name);
      continue;
    }
    if (existing?.metadata.deletionTimestamp && claim.state !== 'Draining') {
      const started = await terminateDeletedClaim(deps, claim);
      if (started) {
        result.terminating.push(claim.name);
        claim = started;
      }
    }
    const node = claim.nodeName ? nodeByName.get(claim.nodeName) : undefined;
    const desired = nodeClaimObject(
      claim,
      {
        ...facts.get(claim.name),
        ...(node?.status?.capacity ? { capacity: quantities(node.status.capacity) } : {}),
        ...(node?.status?.allocatable ? { allocatable: quantities(node.status.allocatable) } : {}),
      },
      existing,
      now,
    );
    if (existing && !nodeClaimObjectStale(desired, existing)) continue;
    try {
      await kube.writeNodeClaimObject(desired, existing);
      (existing ? result.updated : result.created).push(claim.name);
    } catch (err) {
      deps.log.warn('NodeClaim object not written', { nodeClaim: claim.name, error: message(err) });
    }
  }
  for (const o of objects) {
    if (wanted.has(o.metadata.name) || !isManagedByKarpless(o)) continue;
    try {
      await kube.deleteNodeClaimObject(o.metadata.name);
      result.deleted.push(o.metadata.name);
    } catch (err) {
      deps.log.warn('NodeClaim object not deleted', { nodeClaim: o.metadata.name, error: message(err) });
    }
  }
  if (result.created.length + result.updated.length + result.deleted.length + result.terminating.length > 0) {
    deps.log.info('NodeClaim objects mirrored', {
      created: result.created.length,
      updated: result.updated.length,
      deleted: result.deleted.length,
      terminating: result.terminating.length,
    });
  }
  return result;
}

/** A claim whose launch failed is shown (Launched=False, with the error) until Karpenter would have deleted its
 * NodeClaim: its launch timeout, counted from its creation as Karpenter counts from the Launched condition's first
 * transition (liveness.go). Then its object goes; the claim stays in the store as the failure's record. */
export function launchFailedLongAgo(claim: NodeClaim, deps: Pick<InstanceDeps, 'clock' | 'config'>): boolean {
  if (claim.state !== 'Failed') return false;
  return deps.clock.now() - Date.parse(claim.createdAt) >= deps.config.launchTimeoutMs;
}

/** The mirror as the sweep runs it: a failure to list is logged, never thrown. */
export async function mirrorNodeClaimsQuietly(
  deps: InstanceDeps,
  facts?: ReadonlyMap<string, NodeClaimFacts>,
): Promise<MirrorResult | undefined> {
  try {
    return await mirrorNodeClaims(deps, facts);
  } catch (err) {
    deps.log.warn('NodeClaim objects not mirrored', { error: message(err) });
    return undefined;
  }
}
