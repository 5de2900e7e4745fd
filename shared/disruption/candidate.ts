// What the sweep knows about each node before deciding: its pods, price, disruption cost, drift, expiry, stability
// and the blockers that keep a graceful disruption away from it.
import { claimExpireAfter, claimTerminationGracePeriod } from '../api/claim-template';
import type { EC2NodeClass, NodePool } from '../api/karpenter';
import type { Pod } from '../api/kube';
import { isMirrorPod, isTerminal } from '../api/pods';
import { parseDuration } from '../api/quantity';
import type { AppliedPriceOverlay, InstanceType } from '../catalog/types';
import { nodeDisruptionCost, PER_NODE_DISRUPTION_COST } from './balanced';
import { driftReason } from './drift';
import type { PdbLimits } from './pdb';
import {
  doNotDisruptActive,
  doNotDisruptUntil,
  evictionCost,
  isConstrained,
  isReschedulable,
  nodeDoNotDisrupt,
} from './pods';
import type { Candidate, DisruptionInput, DisruptionNode } from './types';

export interface NodeFacts {
  idx: number;
  n: DisruptionNode;
  name: string;
  pool?: NodePool;
  poolName: string;
  /** Pods that must move when the node goes. */
  pods: Pod[];
  price: number;
  /** The NodeOverlay that set `price`, when one did. */
  priceOverlay?: AppliedPriceOverlay;
  disruptionCost: number;
  /** The Balanced policy's disruption cost: the per-node cost plus the pods' eviction costs, negatives as 0, with no
   * lifetime factor (balanced.ts). */
  rescheduleCost: number;
  drift?: string;
  expired: boolean;
  /** Karpenter's IsEmpty: no reschedulable pod costs anything to evict (its eviction cost clamps to 0 or below), so
   * the node's disruption cost is the per-node cost alone. Pods that declared themselves free to disrupt (a large
   * negative pod-deletion-cost or priority) do not keep a node from being empty (docs/disruption.md, The sweep). */
  empty: boolean;
  /** No pod arrived or left for consolidateAfter. */
  stable: boolean;
  consolidatable: boolean;
  constrained: boolean;
  /** Reasons of the node's own that no graceful disruption may take it (forceful expiration ignores them). */
  blockers: string[];
  /** Pods whose karpenter.sh/do-not-disrupt is active now: they block graceful disruption, except drift of a claim
   * with a terminationGracePeriod (see gracefulBlocker). */
  podBlockers: string[];
  /** Pods a PodDisruptionBudget may keep from eviction: all but mirror, terminal and terminating pods (DaemonSet
   * pods count, as in Karpenter). */
  evictablePods: Pod[];
  /** The claim's terminationGracePeriod (stamped at launch), when it has one. */
  terminationGracePeriod?: string;
  /** Already going: marked for deletion or draining. */
  disrupting: boolean;
  /** Only initialized nodes are candidates; in-flight claims are skipped without a record. */
  initialized: boolean;
}

const safeDuration = (text: string | undefined, fallback: number): number => {
  try {
    return text === undefined ? fallback : parseDuration(text);
  } catch {
    return fallback;
  }
};

/** What the node costs now: its offering as the pool's types price it this sweep, NodeOverlays included, as
 * Karpenter's resolveNodePrice reads it; so an overlay created or deleted since the launch counts (docs/api.md,
 * NodeOverlay). The price it launched at when the pool no longer offers its type there. */
function priceOf(
  n: DisruptionNode,
  types: InstanceType[] | undefined,
): { price: number; overlay?: AppliedPriceOverlay } {
  const type = types?.find((t) => t.name === (n.node.instanceType ?? n.claim.instanceType));
  const zone = n.claim.zone ?? n.node.labels['topology.kubernetes.io/zone'];
  const capacity = n.node.capacityType ?? n.claim.capacityType;
  const reservation = n.claim.capacityReservation?.id;
  const offering = type?.offerings.find(
    (o) =>
      o.zone === zone &&
      o.capacityType === capacity &&
      (!reservation || !o.reservation || o.reservation.id === reservation),
  );
  const price = offering?.price ?? n.node.pricePerHour ?? n.claim.pricePerHour ?? 0;
  // An unknown price (NaN) counts as 0, so it cannot poison a NodePool's cost total (balanced.ts).
  if (!Number.isFinite(price)) return { price: 0 };
  return offering?.overlay ? { price, overlay: offering.overlay } : { price };
}

/** Karpenter's remaining-lifetime factor: the fraction of expireAfter still ahead, 1 when it never expires. */
function lifetimeRemaining(createdAt: number, expireAfter: number, now: number): number {
  if (!Number.isFinite(expireAfter) || expireAfter <= 0) return 1;
  return Math.min(1, Math.max(0, (expireAfter - (now - createdAt)) / expireAfter));
}

export function nodeFacts(input: DisruptionInput, nominationProtectionMs: number): NodeFacts[] {
  const pools = new Map(input.nodePools.map((p) => [p.metadata.name, p]));
  const classes = new Map<string, EC2NodeClass>(input.nodeClasses.map((c) => [c.metadata.name, c]));
  return input.nodes.map((n, idx) => {
    const poolName = n.claim.nodePool || n.node.nodePool || '';
    const pool = pools.get(poolName);
    const pods = n.node.pods.filter(isReschedulable);
    const createdAt = Date.parse(n.claim.createdAt);
    // The lifetime stamped on the claim at launch: a NodePool change drifts the node instead (Karpenter's rule).
    const expireAfter = safeDuration(claimExpireAfter(n.claim, pool), Number.POSITIVE_INFINITY);
    const initializedAt = Date.parse(n.claim.stateTimes.Initialized ?? n.claim.createdAt);
    const lastEvent = n.lastPodEventAt ?? initializedAt;
    const consolidateAfter = safeDuration(pool?.spec.disruption.consolidateAfter, 0);
    const disrupting = !!n.node.markedForDeletion || n.claim.state === 'Draining';
    const blockers: string[] = [];
    if (!pool) blockers.push(`NodePool ${poolName || '<none>'} not found`);
    if (n.claim.state !== 'Initialized' || n.node.inflight)
      blockers.push(`NodeClaim is ${n.claim.state}, not Initialized`);
    if (disrupting) blockers.push('already disrupting');
    if (nodeDoNotDisrupt(n.annotations)) blockers.push('node has karpenter.sh/do-not-disrupt');
    const podBlockers = n.node.pods
      .filter((p) => doNotDisruptActive(p, input.now))
      .map((p) => {
        const until = doNotDisruptUntil(p) ?? Number.POSITIVE_INFINITY;
        const when = Number.isFinite(until) ? ` until ${new Date(until).toISOString()}` : '';
        return `pod ${p.metadata.namespace}/${p.metadata.name} has karpenter.sh/do-not-disrupt${when}`;
      });
    const terminationGracePeriod = claimTerminationGracePeriod(n.claim, pool);
    if (n.nominatedAt !== undefined && input.now - n.nominatedAt < nominationProtectionMs) {
      blockers.push(`nominated ${Math.round((input.now - n.nominatedAt) / 1000)}s ago`);
    }
    const nodeClass = classes.get(n.claim.nodeClass || pool?.spec.template.spec.nodeClassRef.name || '');
    const drift = pool ? driftReason(n, pool, nodeClass, input.kubernetesVersion) : undefined;
    const cost = pods.reduce((s, p) => s + evictionCost(p), 0);
    const rescheduleCost = nodeDisruptionCost(pods);
    const priced = priceOf(n, input.instanceTypes.get(poolName));
    return {
      idx,
      n,
      name: n.node.name,
      ...(pool ? { pool } : {}),
      poolName,
      pods,
      price: priced.price,
      ...(priced.overlay ? { priceOverlay: priced.overlay } : {}),
      disruptionCost: cost * lifetimeRemaining(createdAt, expireAfter, input.now),
      rescheduleCost,
      ...(drift ? { drift } : {}),
      expired: Number.isFinite(expireAfter) && input.now - createdAt >= expireAfter,
      empty: rescheduleCost <= PER_NODE_DISRUPTION_COST,
      stable: input.now - lastEvent >= consolidateAfter,
      consolidatable: Number.isFinite(consolidateAfter),
      constrained: pods.some(isConstrained),
      blockers,
      podBlockers,
      evictablePods: n.node.pods.filter((p) => !isMirrorPod(p) && !isTerminal(p) && !p.metadata.deletionTimestamp),
      ...(terminationGracePeriod ? { terminationGracePeriod } : {}),
      disrupting,
      initialized: n.claim.state === 'Initialized' && !n.node.inflight,
    };
  });
}

export function candidateOf(f: NodeFacts): Candidate {
  const c: Candidate = {
    name: f.name,
    nodeClaim: f.n.claim.name,
    nodePool: f.poolName,
    price: f.price,
    pods: f.pods.length,
    disruptionCost: f.disruptionCost,
  };
  const capacity = f.n.node.capacityType ?? f.n.claim.capacityType;
  if (capacity) c.capacityType = capacity;
  if (f.terminationGracePeriod) c.terminationGracePeriod = f.terminationGracePeriod;
  if (f.priceOverlay) c.overlay = f.priceOverlay;
  return c;
}

/** Why a graceful method may not take the node now, or undefined: the node's own blockers, then its pods' (an active
 * do-not-disrupt, a PodDisruptionBudget that allows no eviction). An `eventual` method (drift) ignores the pods' when
 * the claim has a terminationGracePeriod: the drain deletes such pods when the period ends, as Karpenter's
 * NewCandidate lets an eventual disruption past a pod that blocks eviction. */
export function gracefulBlocker(f: NodeFacts, pdbs: PdbLimits, eventual = false): string | undefined {
  const own = f.blockers[0];
  if (own) return own;
  if (eventual && f.terminationGracePeriod) return undefined;
  return f.podBlockers[0] ?? pdbs.check(f.evictablePods)[0];
}
