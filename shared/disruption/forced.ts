// The sweep's first three methods: empty nodes, drifted nodes and expired nodes. None needs a saving; emptiness
// and drift are graceful and budgeted, expiration is forceful and not budgeted (Karpenter v1): the drain still
// waits on PDBs and do-not-disrupt until the claim's terminationGracePeriod. Drift of a claim with a
// terminationGracePeriod is not blocked by its pods (gracefulBlocker).
import { claimExpireAfter } from '../api/claim-template';
import type { NodePool } from '../api/karpenter';
import { formatDuration, parseDuration, parseQuantity } from '../api/quantity';
import { isStaticNodePool } from '../api/static-nodepool';
import { batchRelocate, type Component } from './batch';
import { budgetCap } from './budgets';
import { gracefulBlocker, type NodeFacts } from './candidate';
import type { FitResult } from './capacity';
import { relocate } from './relocate';
import type { Sweep } from './sweep';

export function budgetBlocker(sw: Sweep, f: NodeFacts, reason: 'Empty' | 'Drifted' | 'Underutilized'): string {
  const pool = sw.pools.get(f.poolName);
  const cap = pool ? budgetCap(pool, sw.poolSize(f.poolName), reason, sw.input.now) : undefined;
  const by = cap?.by
    ? ` (budget nodes: ${cap.by.nodes}${cap.by.schedule ? `, schedule ${cap.by.schedule} for ${cap.by.duration}` : ''})`
    : '';
  return `disruption budget: NodePool ${f.poolName} allows no more ${reason} disruptions now${by}`;
}

/** Why consolidation (empty or underutilized) may not take the node yet: consolidateAfter Never, or not stable. */
export function consolidationBlocker(sw: Sweep, f: NodeFacts): string | undefined {
  if (!f.consolidatable) return `NodePool ${f.poolName} has consolidateAfter: Never`;
  if (f.stable) return undefined;
  const after = parseDuration(f.pool?.spec.disruption.consolidateAfter ?? '0s');
  const last = f.n.lastPodEventAt ?? Date.parse(f.n.claim.stateTimes.Initialized ?? f.n.claim.createdAt);
  return `not consolidatable for another ${formatDuration(after - (sw.input.now - last))} (consolidateAfter ${formatDuration(after)})`;
}

export function emptiness(sw: Sweep): void {
  const empty = sw.facts
    .filter(
      (f) => f.empty && f.initialized && f.pool && !isStaticNodePool(f.pool) && !sw.taken.has(f.idx) && !f.disrupting,
    )
    // Karpenter's savings-ratio order; an empty node's disruption cost is the per-node cost alone, so dearest first.
    .sort((a, b) => b.price - a.price || a.name.localeCompare(b.name));
  const group: NodeFacts[] = [];
  const used = new Map<string, number>();
  const emptyIdx = new Set(empty.map((f) => f.idx));
  const evicted: FitResult = { placements: [], leftovers: [] };
  for (const f of empty) {
    const blocker = consolidationBlocker(sw, f) ?? gracefulBlocker(f, sw.pdbs);
    if (blocker) {
      sw.reject(f.idx, blocker);
      continue;
    }
    const count = used.get(f.poolName) ?? 0;
    if (sw.budgetLeft(f.poolName, 'Empty') - count <= 0) {
      sw.reject(f.idx, budgetBlocker(sw, f, 'Empty'));
      continue;
    }
    const room = f.pods.length ? roomForEvicted(sw, f, emptyIdx) : undefined;
    if (f.pods.length && !room) continue;
    if (room) evicted.placements.push(...room.placements);
    used.set(f.poolName, count + 1);
    group.push(f);
  }
  if (group.length) sw.addCommand('Empty', group, evicted, [], { considered: empty.length });
}

/** Where the pods of an empty node that are free to evict (eviction cost 0 or below) land on the nodes that stay:
 * the command holds that room, so later methods neither count it as free nor consolidate those nodes (Karpenter's
 * later solves see the pods of deleting nodes). Undefined when they do not all fit: the node is then left to
 * consolidation, which judges it with its pods, since deleting it would launch a node for those pods, empty by the
 * same rule and deleted in turn (docs/disruption.md, The sweep). Karpenter deletes it regardless. */
function roomForEvicted(sw: Sweep, f: NodeFacts, empty: ReadonlySet<number>): FitResult | undefined {
  const fit = f.constrained ? undefined : sw.model.fit(f.pods, empty, true);
  if (fit && fit.leftovers.length === 0) return fit;
  if (fit) sw.model.rollback(fit);
  sw.notEmptied.add(f.idx);
  sw.reject(
    f.idx,
    `empty but its ${f.pods.length} pod(s) free to evict fit on no staying node: deleting it would launch a node for them`,
  );
  return undefined;
}

export function drift(sw: Sweep, solverChecks: { left: number }): void {
  const drifted = sw.facts
    .filter((f) => f.drift && f.initialized && !f.expired && f.pool && !sw.taken.has(f.idx) && !f.disrupting)
    // Ones without reschedulable pods first (nothing moves; Karpenter's drift counts pods here, not their eviction
    // cost), then the oldest.
    .sort(
      (a, b) =>
        Number(a.pods.length > 0) - Number(b.pods.length > 0) ||
        Date.parse(a.n.claim.createdAt) - Date.parse(b.n.claim.createdAt) ||
        a.name.localeCompare(b.name),
    );
  const chosen: NodeFacts[] = [];
  const used = new Map<string, number>();
  for (const f of drifted) {
    const blocker = gracefulBlocker(f, sw.pdbs, true);
    if (blocker) {
      sw.reject(f.idx, `drifted (${f.drift}) but ${blocker}`);
      continue;
    }
    const count = used.get(f.poolName) ?? 0;
    if (sw.budgetLeft(f.poolName, 'Drifted') - count <= 0) {
      sw.reject(f.idx, `drifted (${f.drift}) but ${budgetBlocker(sw, f, 'Drifted')}`);
      continue;
    }
    const room = f.pool ? staticDriftRoom(sw, f.pool) : undefined;
    if (room && room.left - count <= 0) {
      sw.reject(f.idx, `drifted (${f.drift}) but ${room.blocker}`);
      continue;
    }
    used.set(f.poolName, count + 1);
    chosen.push(f);
  }
  for (const c of relocateAll(sw, chosen, solverChecks, 'drift')) {
    if (c.deferred) {
      // The sweep's deadline stopped the solve first: these drifted nodes wait for the next sweep.
      sw.model.rollback(c.fit);
      for (const m of c.members) sw.deferred.add(m.idx);
      continue;
    }
    if (c.failure) {
      sw.model.rollback(c.fit);
      for (const m of c.members) sw.reject(m.idx, `drifted (${m.drift}) but ${c.failure}`);
      continue;
    }
    sw.addCommand('Drifted', c.members, c.fit, c.replacements, {
      drift: Object.fromEntries(c.members.map((m) => [m.name, m.drift])),
      considered: drifted.length,
    });
  }
}

/** Karpenter's static drift: a static pool's drifted nodes are replaced only once a scale-down has finished, and
 * only as many at a time as `limits.nodes` leaves room for, each replacement launching before its node goes
 * (docs/disruption.md, "Static NodePools"). Undefined for a dynamic pool. */
function staticDriftRoom(sw: Sweep, pool: NodePool): { left: number; blocker: string } | undefined {
  if (!isStaticNodePool(pool)) return undefined;
  const name = pool.metadata.name;
  const count = sw.input.claimsPerPool?.[name] ?? sw.facts.filter((f) => f.poolName === name).length;
  const replicas = pool.spec.replicas ?? 0;
  if (count > replicas) {
    return {
      left: 0,
      blocker: `static NodePool ${name} has ${count} nodes for ${replicas} replicas (scale-down first)`,
    };
  }
  const limit = pool.spec.limits?.nodes;
  if (limit === undefined) return undefined;
  const max = parseQuantity(limit);
  // A pool below its replicas is about to be topped up (static-pools.ts): those nodes count as if launched, as
  // Karpenter's replacement-first drift never lets the count dip.
  const held = Math.max(count, replicas);
  return { left: max - held, blocker: `static NodePool ${name} is at limits.nodes ${max}, no room for a replacement` };
}

/** Batch-relocates unconstrained members with one solve; constrained ones take their own full solve. */
function relocateAll(sw: Sweep, members: NodeFacts[], solverChecks: { left: number }, salt: string): Component[] {
  const out = batchRelocate(
    sw,
    members.filter((m) => !m.constrained),
    salt,
  );
  for (const m of members.filter((x) => x.constrained)) {
    const r = relocate(sw, [m], solverChecks);
    const none = { placements: [], leftovers: m.pods };
    out.push(
      'deferred' in r
        ? { members: [m], fit: none, replacements: [], deferred: true }
        : 'blocker' in r
          ? { members: [m], fit: none, replacements: [], failure: r.blocker }
          : { members: [m], fit: r.fit, replacements: r.replacements },
    );
  }
  return out;
}

export function expiration(sw: Sweep, solverChecks: { left: number }): void {
  const expired = sw.facts
    .filter((f) => f.expired && f.initialized && f.pool && !sw.taken.has(f.idx) && !f.disrupting)
    .sort((a, b) => Date.parse(a.n.claim.createdAt) - Date.parse(b.n.claim.createdAt) || a.name.localeCompare(b.name));
  // Forceful: each expired node goes on its own, whatever blocks its pods; the drain waits on them instead.
  for (const c of relocateAll(sw, expired, solverChecks, 'expiration')) {
    if (c.deferred) {
      // Forceful, but not without somewhere for its pods: the sweep's deadline leaves it to the next sweep.
      sw.model.rollback(c.fit);
      for (const m of c.members) sw.deferred.add(m.idx);
      continue;
    }
    const waits = c.members.flatMap((f) => [
      ...f.blockers.filter((b) => !b.startsWith('nominated')),
      ...f.podBlockers,
      ...sw.pdbs.check(f.evictablePods),
    ]);
    const first = c.members[0];
    const grace = first?.terminationGracePeriod;
    sw.addCommand('Expired', c.members, c.fit, c.replacements, {
      expireAfter: first ? claimExpireAfter(first.n.claim, first.pool) : undefined,
      ...(waits.length ? { drainWaitsOn: waits, terminationGracePeriod: grace ?? 'unset (waits indefinitely)' } : {}),
      ...(c.failure ? { unplaced: c.failure } : {}),
    });
  }
}
