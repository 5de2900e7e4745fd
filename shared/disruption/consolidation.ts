// Consolidation of underutilized nodes, after emptiness, drift and expiration:
// 1. multi-node delete: walk candidates cheapest-to-disrupt first and keep every node whose pods fit on the nodes
//    that stay (no candidate limit: the capacity model makes each check a scan);
// 2. multi-node merge: the largest prefix (binary search, up to maxMergeCandidates) that fewer, cheaper new nodes
//    can hold, then a bounded local search that tries adding the next candidates one by one;
// 3. single-node: delete, or replace with one strictly cheaper node (spot-to-spot needs 15 cheaper types).
import type { PlannedNodeClaim } from '../scheduling/types';
import type { NodeFacts } from './candidate';
import type { FitResult } from './capacity';
import { budgetBlocker, consolidationBlocker } from './forced';
import { podRequests } from './pods';
import { narrowOptions, optionPrice, type Relocation, relocate, SingleNodeBound, sumRequests } from './relocate';
import { round, type Sweep } from './sweep';

function backingOff(sw: Sweep, pool: string): string | undefined {
  const entries = sw.input.history?.[pool] ?? [];
  const since = sw.input.now - sw.settings.churnWindowMs;
  const recent = entries.filter((e) => e.at >= since && e.launched > 0 && e.reason === 'Underutilized').length;
  if (recent < sw.settings.churnLimit) return undefined;
  return `NodePool ${pool} is backing off: ${recent} replacing consolidations in the last ${Math.round(sw.settings.churnWindowMs / 60000)}m`;
}

function eligible(sw: Sweep): NodeFacts[] {
  const out: NodeFacts[] = [];
  for (const f of sw.facts) {
    if (sw.taken.has(f.idx) || f.disrupting || f.empty || !f.pool) continue;
    if (f.pool.spec.disruption.consolidationPolicy !== 'WhenEmptyOrUnderutilized') continue;
    const blocker = consolidationBlocker(sw, f) ?? f.blockers[0] ?? sw.pdbs.check(f.pods)[0];
    if (blocker) {
      sw.reject(f.idx, blocker);
      continue;
    }
    out.push(f);
  }
  // Karpenter's order: cheapest to disrupt first; then the dearer node, then the name, for a stable order.
  return out.sort((a, b) => a.disruptionCost - b.disruptionCost || b.price - a.price || a.name.localeCompare(b.name));
}

export function consolidate(sw: Sweep, solverChecks: { left: number }): void {
  const candidates = eligible(sw);
  if (candidates.length === 0) return;
  const deleted = multiNodeDelete(sw, candidates);
  const left = candidates.filter((f) => !sw.taken.has(f.idx) && !sw.model.receivers[f.idx] && !deleted.has(f.idx));
  multiNodeMerge(sw, left);
  singleNode(
    sw,
    left.filter((f) => !sw.taken.has(f.idx) && !sw.model.receivers[f.idx]),
    solverChecks,
  );
}

function multiNodeDelete(sw: Sweep, candidates: NodeFacts[]): Set<number> {
  const chain: NodeFacts[] = [];
  const members = new Set<number>();
  const fit: FitResult = { placements: [], leftovers: [] };
  const used = new Map<string, number>();
  const receivers = new Set<number>();
  for (const f of candidates) {
    if (f.constrained || receivers.has(f.idx)) continue;
    const count = used.get(f.poolName) ?? 0;
    if (sw.budgetLeft(f.poolName, 'Underutilized') - count <= 0) continue;
    if (sw.pdbs.check([...chain.flatMap((c) => c.pods), ...f.pods]).length) continue;
    members.add(f.idx);
    const r = sw.model.fit(f.pods, members, true);
    if (r.leftovers.length) {
      sw.model.rollback(r);
      members.delete(f.idx);
      continue;
    }
    sw.model.closed[f.idx] = 1;
    for (const p of r.placements) receivers.add(p.node);
    fit.placements.push(...r.placements);
    chain.push(f);
    used.set(f.poolName, count + 1);
  }
  if (chain.length) {
    sw.addCommand('Underutilized', chain, fit, [], { method: 'delete', considered: candidates.length });
  }
  return members;
}

interface MergeTrial {
  members: NodeFacts[];
  relocation: Relocation;
  saving: number;
}

function multiNodeMerge(sw: Sweep, left: NodeFacts[]): void {
  const minSaving = sw.settings.minSavingFraction;
  const used = new Map<string, number>();
  const pool: NodeFacts[] = [];
  for (const f of left) {
    if (pool.length >= sw.settings.maxMergeCandidates) break;
    if (f.constrained || backingOff(sw, f.poolName)) continue;
    const count = used.get(f.poolName) ?? 0;
    if (sw.budgetLeft(f.poolName, 'Underutilized') - count <= 0) continue;
    used.set(f.poolName, count + 1);
    pool.push(f);
  }
  if (pool.length < 2) return;
  const bound = new SingleNodeBound(sw.instanceTypes, sw.input.nodePools);
  const trial = (members: NodeFacts[]): MergeTrial | undefined => {
    const price = members.reduce((s, m) => s + m.price, 0);
    const pods = members.flatMap((m) => m.pods);
    if (sw.pdbs.check(pods).length) return undefined;
    // A lower bound first: the pods' cpu and memory at the cheapest rate any type offers.
    if (bound.lowerBound(sumRequests(pods, podRequests)) >= price * (1 - minSaving)) return undefined;
    const r = relocate(sw, members, { left: 0 });
    if ('blocker' in r) return undefined;
    const newPrice = r.replacements.reduce((s, c) => s + c.cheapest.price, 0);
    sw.model.rollback(r.fit);
    if (r.replacements.length >= members.length || newPrice > price * (1 - minSaving)) return undefined;
    return { members, relocation: r, saving: price - newPrice };
  };
  let best: MergeTrial | undefined;
  let lo = 2;
  let hi = pool.length;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const t = trial(pool.slice(0, mid));
    if (t) {
      best = t;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  // Local search beyond the prefix: add later candidates one at a time while the saving grows.
  let budget = sw.settings.mergeSearchBudget;
  const start = best ? best.members.length : 0;
  for (let i = start; i < pool.length && budget > 0 && best; i++) {
    budget--;
    const t = trial([...best.members, pool[i] as NodeFacts]);
    if (t && t.saving > best.saving) best = t;
  }
  if (!best) return;
  const again = relocate(sw, best.members, { left: 0 });
  if ('blocker' in again) return;
  sw.addCommand(
    'Underutilized',
    best.members,
    again.fit,
    again.replacements.map((c) => narrowOptions(c, minSaving)),
    { method: 'merge', considered: pool.length },
  );
}

function singleNode(sw: Sweep, left: NodeFacts[], solverChecks: { left: number }): void {
  const minSaving = sw.settings.minSavingFraction;
  const bound = new SingleNodeBound(sw.instanceTypes, sw.input.nodePools);
  for (const f of left) {
    if (sw.taken.has(f.idx) || sw.model.receivers[f.idx]) continue;
    if (sw.budgetLeft(f.poolName, 'Underutilized') <= 0) {
      sw.reject(f.idx, budgetBlocker(sw, f, 'Underutilized'));
      continue;
    }
    const pdb = sw.pdbs.check(f.pods)[0];
    if (pdb) {
      sw.reject(f.idx, pdb);
      continue;
    }
    // Cheap rejection before any solve: even the cheapest single type that holds all its pods saves too little.
    if (!f.constrained && bound.price(sumRequests(f.pods, podRequests)) > f.price * (1 - minSaving)) {
      const fit = sw.model.fit(f.pods, new Set([f.idx]), true);
      if (fit.leftovers.length) {
        sw.model.rollback(fit);
        sw.reject(f.idx, `no cheaper node holds its pods and they do not fit on the other nodes (price $${f.price}/h)`);
        continue;
      }
      sw.addCommand('Underutilized', [f], fit, [], { method: 'delete', considered: left.length });
      continue;
    }
    const r = relocate(sw, [f], solverChecks);
    if ('blocker' in r) {
      sw.reject(f.idx, r.blocker);
      continue;
    }
    const verdict = replacementVerdict(sw, f, r.replacements);
    if (verdict) {
      sw.model.rollback(r.fit);
      sw.reject(f.idx, verdict);
      continue;
    }
    const backOff = r.replacements.length ? backingOff(sw, f.poolName) : undefined;
    if (backOff) {
      sw.model.rollback(r.fit);
      sw.reject(f.idx, backOff);
      continue;
    }
    const replacements = r.replacements.map((c) => narrowOptions(spotNarrowed(sw, f, c), minSaving));
    sw.addCommand('Underutilized', [f], r.fit, replacements, {
      method: replacements.length ? 'replace' : 'delete',
      considered: left.length,
    });
  }
}

/** Why the replacement is not worth it, or undefined. */
function replacementVerdict(sw: Sweep, f: NodeFacts, replacements: PlannedNodeClaim[]): string | undefined {
  if (replacements.length === 0) return undefined;
  // Several smaller nodes may replace one when together they cost less: the solver found that packing cheaper.
  const price = replacements.reduce((s, c) => s + c.cheapest.price, 0);
  const what = replacements.map((c) => c.cheapest.instanceType).join(' + ');
  if (!(price < f.price)) return `no cheaper replacement: best is ${what} at $${round(price)}/h vs $${f.price}/h`;
  if (price > f.price * (1 - sw.settings.minSavingFraction)) {
    return `replacement ${what} at $${round(price)}/h saves less than ${sw.settings.minSavingFraction * 100}% of $${f.price}/h`;
  }
  const capacity = f.n.node.capacityType ?? f.n.claim.capacityType;
  for (const claim of replacements) {
    if (capacity !== 'spot' || claim.cheapest.capacityType !== 'spot') continue;
    const cheaper = claim.instanceTypeOptions.filter((t) => optionPrice(t, claim, 'spot') < f.price).length;
    if (cheaper < sw.settings.spotToSpotMinTypes) {
      return `spot-to-spot replacement needs at least ${sw.settings.spotToSpotMinTypes} cheaper instance types, found ${cheaper}`;
    }
  }
  return undefined;
}

/** Spot-to-spot keeps only spot options cheaper than the node, so the fleet cannot pick a dearer one. */
function spotNarrowed(_sw: Sweep, f: NodeFacts, claim: PlannedNodeClaim): PlannedNodeClaim {
  const capacity = f.n.node.capacityType ?? f.n.claim.capacityType;
  if (capacity !== 'spot' || claim.cheapest.capacityType !== 'spot') return claim;
  const options = claim.instanceTypeOptions.filter((t) => optionPrice(t, claim, 'spot') < f.price);
  return options.length ? { ...claim, instanceTypeOptions: options } : claim;
}
