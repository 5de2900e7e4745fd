// Consolidation of underutilized nodes, after emptiness, drift and expiration:
// 1. multi-node delete: walk candidates in Karpenter's savings-ratio order (most saved per disruption first), keep every node whose pods fit on the nodes
//    that stay (no candidate limit: the capacity model makes each check a scan, no solve);
// 2. batch replace/merge: every remaining candidate's leftover pods solved together as per-node bundles (one
//    solve); each group of nodes that shares new nodes becomes a command if it saves enough; a single node's own
//    pods may instead be split over several cheaper new nodes (split.ts, a bounded solve of its leftover pods);
// 3. merge search among the rest: the largest prefix (binary search, up to maxMergeCandidates) that fewer, cheaper
//    new nodes can hold, then a bounded local search adding later candidates one at a time; in a settled NodePool
//    where no prefix holds a merge, groups chosen by their pods' summed requests (pack.ts);
// 4. candidates with constrained pods (topology, pod affinity, volumes, host ports): one full solve each, bounded.
// With a time budget, the solves stop at the sweep's deadline: what was decided stands, the candidates not judged
// are deferred, and the sweep's cursor tells the next sweep to start with them (docs/disruption.md, A deadline for
// the sweep).
import { isStaticNodePool } from '../api/static-nodepool';
import {
  evaluateBalanced,
  isBalanced,
  type MoveScore,
  minSavingFor,
  scoreBlocker,
  scoreDetail,
  scoreMove,
} from './balanced';
import { batchRelocate, type Component } from './batch';
import { gracefulBlocker, type NodeFacts } from './candidate';
import type { FitResult } from './capacity';
import { budgetBlocker, consolidationBlocker } from './forced';
import { PACK_TRIES, packedGroups } from './pack';
import { podRequests } from './pods';
import { relocate, SingleNodeBound, sumRequests } from './relocate';
import { replacementBlocker, replacementOptions } from './replacement-options';
import { replacementPrice, splitCandidates, splitNode } from './split';
import { round, type Sweep } from './sweep';
import type { SweepCursor } from './types';

function backingOff(sw: Sweep, pool: string): string | undefined {
  const entries = sw.input.history?.[pool] ?? [];
  const since = sw.input.now - sw.settings.churnWindowMs;
  const recent = entries.filter((e) => e.at >= since && e.launched > 0 && e.reason === 'Underutilized').length;
  if (recent < sw.settings.churnLimit) return undefined;
  return `NodePool ${pool} is backing off: ${recent} replacing consolidations in the last ${Math.round(sw.settings.churnWindowMs / 60000)}m`;
}

/** Why the node's NodePool keeps consolidation from judging it, in Karpenter's `Unconsolidatable` words: consolidation
 * disabled (consolidateAfter Never), or a WhenEmpty pool's node that is not empty. */
function poolRulesOut(f: NodeFacts): string | undefined {
  if (!f.consolidatable) return `NodePool "${f.poolName}" has consolidation disabled`;
  if (f.pool?.spec.disruption.consolidationPolicy === 'WhenEmpty' && !f.empty) {
    return `NodePool "${f.poolName}" has consolidation policy WhenEmpty, but node is not empty`;
  }
  return undefined;
}

function eligible(sw: Sweep): NodeFacts[] {
  const out: NodeFacts[] = [];
  for (const f of sw.facts) {
    if (sw.taken.has(f.idx) || f.disrupting || !f.pool || !f.initialized) continue;
    // A static NodePool's nodes are never consolidated (docs/disruption.md, "Static NodePools").
    if (isStaticNodePool(f.pool)) continue;
    const ruledOut = poolRulesOut(f);
    if (ruledOut) sw.unconsolidatable.set(f.idx, ruledOut);
    // Empty nodes are emptiness's, as in Karpenter, unless their pods would need a new node (forced.ts).
    if (f.empty && !sw.notEmptied.has(f.idx)) continue;
    if (f.pool.spec.disruption.consolidationPolicy === 'WhenEmpty') continue;
    const blocker = consolidationBlocker(sw, f) ?? gracefulBlocker(f, sw.pdbs);
    if (blocker) {
      sw.reject(f.idx, blocker);
      continue;
    }
    out.push(f);
  }
  return out.sort(byDisruptionOrder);
}

interface OrderKey {
  price: number;
  rescheduleCost: number;
  name: string;
}

/** Karpenter's savings ratio: what the node costs per unit of what disrupting it costs (balanced.ts, the per-node cost
 * plus its pods' eviction costs, so never 0). */
const savingsRatio = (k: OrderKey): number => k.price / k.rescheduleCost;

/** Karpenter's order for every consolidation policy: the highest savings ratio first, so the nodes most worth
 * disrupting are tried (and spend the budgets) first; then the dearer node, then the name, for a stable order. */
const byDisruptionOrder = (a: OrderKey, b: OrderKey): number =>
  savingsRatio(b) - savingsRatio(a) || b.price - a.price || a.name.localeCompare(b.name);

/** The candidates from where the last sweep stopped on its deadline, wrapping around to those before it. The cursor
 * is a position in the order, not a node, so it holds when its node has gone since. */
function resumeOrder(sw: Sweep, sorted: NodeFacts[]): NodeFacts[] {
  const c = sw.input.resumeFrom;
  if (!c) return sorted;
  const key: OrderKey = { price: c.price, rescheduleCost: c.rescheduleCost, name: c.node };
  const at = sorted.findIndex((f) => byDisruptionOrder(f, key) >= 0);
  return at <= 0 ? sorted : [...sorted.slice(at), ...sorted.slice(0, at)];
}

/** Where the next sweep starts when this one left candidates unjudged: the first deferred candidate after the last
 * one judged (the solver judges bundles in its own order, so deferred ones can lie before it; they wait for the
 * wrap-around). Starting after the last judged one means each sweep moves the cursor on, even when every sweep
 * meets its deadline in the same place. */
function cursorOf(sw: Sweep, order: readonly NodeFacts[]): SweepCursor | undefined {
  const deferredAt: number[] = [];
  let last = -1;
  order.forEach((f, i) => {
    if (sw.deferred.has(f.idx)) deferredAt.push(i);
    else if (sw.judged.has(f.idx)) last = i;
  });
  const at = deferredAt.find((i) => i > last) ?? deferredAt[0];
  const f = at === undefined ? undefined : order[at];
  return f ? { node: f.name, price: f.price, rescheduleCost: f.rescheduleCost, at: sw.input.now } : undefined;
}

const open = (sw: Sweep) => (f: NodeFacts) => !sw.taken.has(f.idx) && !sw.model.receivers[f.idx];

export function consolidate(sw: Sweep, solverChecks: { left: number }): void {
  const candidates = resumeOrder(sw, eligible(sw));
  if (candidates.length === 0) return;
  multiNodeDelete(sw, candidates);
  const rest = batchReplace(sw, candidates.filter(open(sw)));
  // The merge search only improves on candidates already judged: out of time, it waits for a later sweep.
  if (!sw.outOfTime()) mergeSearch(sw, rest.filter(open(sw)));
  for (const f of candidates.filter((c) => c.constrained && open(sw)(c))) {
    // Out of time, one constrained candidate is still judged when nothing else was, so a sweep always progresses.
    if (sw.outOfTime() && sw.judged.size > 0) sw.deferred.add(f.idx);
    else single(sw, f, solverChecks);
  }
  sw.cursor = cursorOf(sw, candidates);
  for (const f of candidates) {
    if (!sw.taken.has(f.idx) && sw.model.receivers[f.idx] && !sw.rejected.has(f.idx)) {
      sw.reject(f.idx, 'takes pods from nodes consolidated in this sweep');
    }
  }
}

/** The next batch: candidates in order while their pool's Underutilized budget and `room` allow; the others wait. */
function nextBatch(sw: Sweep, queue: NodeFacts[], room: number): { batch: NodeFacts[]; waiting: NodeFacts[] } {
  const used = new Map<string, number>();
  const batch: NodeFacts[] = [];
  const waiting: NodeFacts[] = [];
  for (const f of queue) {
    const count = used.get(f.poolName) ?? 0;
    if (batch.length >= room || sw.budgetLeft(f.poolName, 'Underutilized') - count <= 0) {
      waiting.push(f);
      continue;
    }
    used.set(f.poolName, count + 1);
    batch.push(f);
  }
  return { batch, waiting };
}

/** Why a candidate no batch took was left: its pool's budget is spent, the batches are full, or time ran out (then
 * it is deferred, not rejected). PDBs that block a candidate already rejected it in `eligible`. */
function leftOut(sw: Sweep, f: NodeFacts): void {
  if (sw.budgetLeft(f.poolName, 'Underutilized') <= 0) sw.reject(f.idx, budgetBlocker(sw, f, 'Underutilized'));
  else if (sw.outOfTime()) sw.deferred.add(f.idx);
  else sw.reject(f.idx, `consolidation batch full (${sw.settings.maxBatchCandidates} candidates); next sweep`);
}

function multiNodeDelete(sw: Sweep, candidates: NodeFacts[]): void {
  const chain: NodeFacts[] = [];
  const members = new Set<number>();
  const fit: FitResult = { placements: [], leftovers: [] };
  const used = new Map<string, number>();
  const receivers = new Set<number>();
  for (const f of candidates) {
    // A node that takes pods (from this walk, or from an earlier method's command) stays this sweep.
    if (f.constrained || receivers.has(f.idx) || sw.model.receivers[f.idx]) continue;
    const count = used.get(f.poolName) ?? 0;
    if (sw.budgetLeft(f.poolName, 'Underutilized') - count <= 0) continue;
    // A Balanced pool's share of the deletes must still score: a node that would pull it below is left to the
    // batch below, whose verdict scores it alone and says why it stays.
    if (isBalanced(f.pool) && deleteScores(sw, [...chain, f]).some((x) => !x.approved)) continue;
    members.add(f.idx);
    const r = sw.model.fit(f.pods, members, true);
    if (r.leftovers.length) {
      sw.model.rollback(r);
      members.delete(f.idx);
      continue;
    }
    sw.model.close(f.idx);
    sw.judged.add(f.idx);
    for (const p of r.placements) receivers.add(p.node);
    fit.placements.push(...r.placements);
    chain.push(f);
    used.set(f.poolName, count + 1);
  }
  if (chain.length) {
    const scores = deleteScores(sw, chain);
    sw.addCommand('Underutilized', chain, fit, [], {
      method: 'delete',
      considered: candidates.length,
      ...(scores.length ? { score: scoreDetail(scores) } : {}),
    });
  }
}

/** The Balanced scores of deleting `members` outright (nothing new launched: the saving is their price). */
function deleteScores(sw: Sweep, members: readonly NodeFacts[]): MoveScore[] {
  const saving = members.reduce((s, m) => s + m.price, 0);
  return evaluateBalanced(members, saving, sw.poolTotals).scores;
}

/** The Balanced scores of a component: its members' price less its new nodes' price is the saving. */
function componentScores(sw: Sweep, c: Component): MoveScore[] {
  const saving = c.members.reduce((s, m) => s + m.price, 0) - replacementPrice(c);
  return evaluateBalanced(c.members, saving, sw.poolTotals).scores;
}

/** Why a component should not go, or undefined. */
function verdict(sw: Sweep, c: Component): string | undefined {
  if (c.failure) return c.failure;
  if (c.replacements.length === 0) return scoreBlocker(componentScores(sw, c), `deleting ${nodes(c)}`);
  const oldPrice = c.members.reduce((s, m) => s + m.price, 0);
  const newPrice = replacementPrice(c);
  const what = c.replacements.map((r) => r.cheapest.instanceType).join(' + ');
  const of = c.members.length > 1 ? ` for ${c.members.length} nodes` : '';
  if (!(newPrice < oldPrice)) {
    return `no cheaper replacement: best is ${what} at $${round(newPrice)}/h vs $${round(oldPrice)}/h${of}`;
  }
  const ms = minSaving(sw, c.members);
  if (newPrice > oldPrice * (1 - ms)) {
    return `replacement ${what} at $${round(newPrice)}/h saves less than ${ms * 100}% of $${round(oldPrice)}/h${of}`;
  }
  const options = replacementBlocker(c, sw.settings);
  if (options) return options;
  for (const m of c.members) {
    const backOff = backingOff(sw, m.poolName);
    if (backOff) return backOff;
  }
  return scoreBlocker(componentScores(sw, c), `replacing ${nodes(c)}`);
}

/** The minimum saving for these candidates (balanced.ts, minSavingFor). */
const minSaving = (sw: Sweep, members: readonly NodeFacts[]): number =>
  minSavingFor(members, sw.settings.minSavingFraction);

/** The rules a replacement's options follow, with the candidates' minimum saving (replacement-options.ts). */
const optionRules = (sw: Sweep, members: readonly NodeFacts[]) => ({
  ...sw.settings,
  minSavingFraction: minSaving(sw, members),
});

const nodes = (c: Component): string => (c.members.length > 1 ? `its ${c.members.length} nodes` : 'it');

function accept(sw: Sweep, c: Component, considered: number): void {
  const method =
    c.replacements.length === 0
      ? 'delete'
      : c.members.length > 1
        ? 'merge'
        : c.replacements.length > 1
          ? 'split'
          : 'replace';
  const scores = componentScores(sw, c);
  sw.addCommand('Underutilized', c.members, c.fit, replacementOptions(c, optionRules(sw, c.members)), {
    method,
    considered,
    ...(scores.length ? { score: scoreDetail(scores) } : {}),
  });
}

/** The remaining candidates in batches, as many per batch as the budgets allow: one solve each, then splits tried
 * for single nodes (split.ts). A candidate that stays spends no budget, so the next batch takes the candidates after
 * it, as Karpenter's single-node consolidation walks past the candidates it cannot consolidate (docs/disruption.md,
 * The sweep). At most `maxBatchCandidates` in all. Returns the candidates judged and left alone, in order. */
function batchReplace(sw: Sweep, left: NodeFacts[]): NodeFacts[] {
  const bound = new SingleNodeBound(sw.instanceTypes, sw.input.nodePools);
  const kept: NodeFacts[] = [];
  let queue = left.filter((f) => !f.constrained);
  let room = sw.settings.maxBatchCandidates;
  // The first batch runs whatever the clock says (its solve defers what it cannot reach); later ones need time left.
  for (let n = 0; queue.length > 0 && room > 0 && (n === 0 || !sw.outOfTime()); n++) {
    const { batch, waiting } = nextBatch(sw, queue, room);
    if (batch.length === 0) break;
    room -= batch.length;
    kept.push(...judgeBatch(sw, batch, bound, n === 0 ? 'consolidation' : `consolidation-${n + 1}`));
    // A candidate that took pods from this batch's commands stays (consolidate rejects it at the end).
    queue = waiting.filter(open(sw));
  }
  for (const f of queue) leftOut(sw, f);
  return kept;
}

/** One solve for a batch of candidates; returns those judged and left alone. `salt` names the batch's new claims apart
 * from the other batches'. */
function judgeBatch(sw: Sweep, batch: NodeFacts[], bound: SingleNodeBound, salt: string): NodeFacts[] {
  const rejected: NodeFacts[] = [];
  const judged = [];
  for (const c of batchRelocate(sw, batch, salt)) {
    if (c.deferred) {
      // The deadline stopped the solve before it placed these pods: neither taken nor rejected, judged next sweep.
      sw.model.rollback(c.fit);
      for (const m of c.members) sw.deferred.add(m.idx);
      continue;
    }
    for (const m of c.members) sw.judged.add(m.idx);
    const why = verdict(sw, c);
    judged.push({ c, why, current: why ? c.members.reduce((s, m) => s + m.price, 0) : replacementPrice(c) });
  }
  // Splits refine a judged candidate (at most maxSplitChecks per batch); out of time, the batch's verdict stands.
  const splittable = sw.outOfTime() ? new Set<Component>() : splitCandidates(sw, judged, bound);
  for (const { c, why, current } of judged) {
    const { split, lost } = splittable.has(c) && !sw.outOfTime() ? splitNode(sw, c, current) : {};
    const splitWhy = split && verdict(sw, split);
    if (split && !splitWhy) {
      accept(sw, split, batch.length);
      continue;
    }
    const splitNote = splitWhy ? `; split: ${splitWhy}` : lost ? `; ${lost}` : '';
    if (!why) {
      accept(sw, c, batch.length);
      continue;
    }
    sw.model.rollback(c.fit);
    for (const m of c.members) {
      // The single-node view is the clearest explanation when even one new node would not be cheaper.
      const alone = bound.price(sumRequests(m.pods, podRequests));
      sw.reject(
        m.idx,
        alone > m.price * (1 - minSaving(sw, [m])) && c.members.length === 1 && !c.failure
          ? `no cheaper node holds its pods and they do not fit on the other nodes (price $${m.price}/h, cheapest holder $${alone}/h)${splitNote}`
          : `${why}${splitNote}`,
      );
      rejected.push(m);
    }
  }
  return rejected;
}

interface Merge {
  members: NodeFacts[];
  saving: number;
}

function mergeSearch(sw: Sweep, left: NodeFacts[]): void {
  const allowed = left.filter((f) => !backingOff(sw, f.poolName));
  // Karpenter's multi-node consolidation first: the candidates in order that their pools' budgets still allow.
  const inOrder = nextBatch(sw, allowed, sw.settings.maxMergeCandidates).batch;
  if (inOrder.length < 2) return;
  const bound = new SingleNodeBound(sw.instanceTypes, sw.input.nodePools);
  const solves = { left: sw.settings.mergeSearchBudget };
  let pool = inOrder;
  let best = searchPrefixes(sw, inOrder, bound, solves);
  // Karpless goes on where Karpenter stops: when those candidates hold no merge, the next ones in order that the
  // budgets allow, while the search has solves left (docs/disruption.md, The sweep).
  let rest = allowed.filter((f) => !inOrder.includes(f));
  while (!best && rest.length >= 2 && solves.left > 0 && !sw.outOfTime()) {
    pool = nextBatch(sw, rest, sw.settings.maxMergeCandidates).batch;
    if (pool.length < 2) break;
    best = searchPrefixes(sw, pool, bound, solves);
    rest = rest.filter((f) => !pool.includes(f));
  }
  // Last, in NodePools that have settled, groups chosen by what their pods need rather than by order (pack.ts), with
  // solves of their own.
  if (!best && !sw.outOfTime()) {
    const settled = settledPools(sw);
    pool = allowed.filter((f) => settled.has(f.poolName));
    best = packed(sw, pool, bound);
  }
  if (!best) return;
  const comps = batchRelocate(sw, best.members, 'merge');
  // The deadline fell inside the final solve: the merge waits for a later sweep rather than go half-checked.
  if (comps.some((c) => c.deferred || c.failure)) {
    for (const c of comps) sw.model.rollback(c.fit);
    return;
  }
  const members = comps.flatMap((c) => c.members);
  const fit: FitResult = { placements: comps.flatMap((c) => c.fit.placements), leftovers: [] };
  const replacements = replacementOptions(
    { members, fit, replacements: comps.flatMap((c) => c.replacements) },
    optionRules(sw, members),
  );
  const scores = componentScores(sw, { members, fit, replacements: comps.flatMap((c) => c.replacements) });
  sw.addCommand('Underutilized', members, fit, replacements, {
    method: 'merge',
    considered: pool.length,
    ...(scores.length ? { score: scoreDetail(scores) } : {}),
  });
}

/** NodePools where nothing moves: every node initialized, stable for consolidateAfter and not disrupting, and no
 * command of this sweep takes one. While a pool still settles, the order-bound searches see the next sweep's nodes
 * first; the packing is for the mix they leave behind (docs/disruption.md, The sweep). */
function settledPools(sw: Sweep): Set<string> {
  const moving = new Set<string>();
  for (const f of sw.facts) if (!f.stable || !f.initialized || f.disrupting) moving.add(f.poolName);
  for (const c of sw.commands) for (const m of c.candidates) moving.add(m.nodePool);
  return new Set(sw.facts.map((f) => f.poolName).filter((p) => !moving.has(p)));
}

/** The first packed group (pack.ts) that passes a merge trial, trying at most PACK_TRIES, with solves of their own. */
function packed(sw: Sweep, allowed: NodeFacts[], bound: SingleNodeBound): Merge | undefined {
  if (allowed.length < 2) return undefined;
  const packing = { left: PACK_TRIES };
  for (const g of packedGroups(sw, allowed, bound)) {
    if (packing.left <= 0 || sw.outOfTime()) break;
    const best = mergeTrial(sw, g.members, bound, packing);
    if (best) return best;
  }
  return undefined;
}

/** One merge trial: the members' pods solved onto the nodes that stay and new nodes; a merge when fewer new nodes hold
 * them for at least the minimum saving less and every rule passes (price filter, spot-to-spot, Balanced score). */
function mergeTrial(
  sw: Sweep,
  members: NodeFacts[],
  bound: SingleNodeBound,
  solves: { left: number },
): Merge | undefined {
  const price = members.reduce((s, m) => s + m.price, 0);
  const ms = minSaving(sw, members);
  const pods = members.flatMap((m) => m.pods);
  // The pods' cpu and memory at the cheapest rate any type offers already cost too much: no solve needed.
  const floor = bound.lowerBound(sumRequests(pods, podRequests));
  if (floor >= price || floor > price * (1 - ms)) return undefined;
  if (solves.left-- <= 0 || sw.outOfTime()) return undefined;
  const comps = batchRelocate(sw, members, 'merge');
  for (const c of comps) sw.model.rollback(c.fit);
  if (comps.some((c) => c.failure)) return undefined;
  const all: Component = {
    members,
    fit: { placements: [], leftovers: [] },
    replacements: comps.flatMap((c) => c.replacements),
  };
  if (replacementBlocker(all, sw.settings)) return undefined;
  const replacements = comps.reduce((s, c) => s + c.replacements.length, 0);
  const newPrice = comps.reduce((s, c) => s + replacementPrice(c), 0);
  if (replacements >= members.length || !(newPrice < price) || newPrice > price * (1 - ms)) return undefined;
  if (!evaluateBalanced(members, price - newPrice, sw.poolTotals).approved) return undefined;
  return { members, saving: price - newPrice };
}

/** Karpenter's binary search for the longest prefix of `pool` that fewer, cheaper new nodes hold, then a bounded local
 * search adding later candidates one at a time while the saving grows. */
function searchPrefixes(
  sw: Sweep,
  pool: NodeFacts[],
  bound: SingleNodeBound,
  solves: { left: number },
): Merge | undefined {
  const trial = (members: NodeFacts[]) => mergeTrial(sw, members, bound, solves);
  let best: Merge | undefined;
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
  for (let i = best ? best.members.length : pool.length; i < pool.length && best && solves.left > 0; i++) {
    const t = trial([...best.members, pool[i] as NodeFacts]);
    if (t && t.saving > best.saving) best = t;
  }
  return best;
}

function single(sw: Sweep, f: NodeFacts, solverChecks: { left: number }): void {
  if (sw.budgetLeft(f.poolName, 'Underutilized') <= 0) {
    sw.reject(f.idx, budgetBlocker(sw, f, 'Underutilized'));
    return;
  }
  // Deleting the node outright is the best any move on it can score; when even that fails, no solve is spent.
  if (isBalanced(f.pool)) {
    const best = scoreMove(f.poolName, f.price, f.rescheduleCost, sw.poolTotals.get(f.poolName));
    const no = scoreBlocker([best], 'even deleting it');
    if (no) {
      sw.judged.add(f.idx);
      sw.reject(f.idx, no);
      return;
    }
  }
  const r = relocate(sw, [f], solverChecks);
  if ('deferred' in r) {
    sw.deferred.add(f.idx);
    return;
  }
  sw.judged.add(f.idx);
  if ('blocker' in r) {
    sw.reject(f.idx, r.blocker);
    return;
  }
  const c: Component = { members: [f], fit: r.fit, replacements: r.replacements };
  const why = verdict(sw, c);
  if (why) {
    sw.model.rollback(r.fit);
    sw.reject(f.idx, why);
    return;
  }
  accept(sw, c, 1);
}
