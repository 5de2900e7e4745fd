// Splitting one node: its pods spread over several smaller new nodes when that costs enough less than the one
// replacement node (or than keeping it). Batch consolidation bundles each node's leftover pods into one synthetic pod,
// so it can only ever offer one new node, as Karpenter's single-node consolidation does: 10 pods of 900m end on a
// 16-vCPU node when two 4-vCPU nodes and a 2-vCPU one hold them for 37 % less. A full solve of the real pods finds
// that. It is bounded per sweep (maxSplitChecks) and skipped without a solve when the pods' cheapest possible price
// could not save enough.
import type { Component } from './batch';
import { podRequests } from './pods';
import { relocate, type SingleNodeBound, sumRequests } from './relocate';
import { round, type Sweep } from './sweep';

const priceOf = (c: Component): number => c.replacements.reduce((s, r) => s + r.cheapest.price, 0);

/** What a split attempt found: the split to take, or, when one was solved for and lost, why (for the Keep record). */
export interface SplitTrial {
  split?: Component;
  lost?: string;
}

/**
 * A split of the component's one node that saves at least minSavingFraction over `current` (the price of what batch
 * consolidation would do: its replacement, or the node itself when it found none). The model is left as it was
 * found: the component's own placements when no split wins, the split's when one does.
 */
export function splitNode(
  sw: Sweep,
  c: Component,
  current: number,
  bound: SingleNodeBound,
  checks: { left: number },
): SplitTrial {
  const member = c.members[0];
  if (c.members.length !== 1 || !member || c.failure || checks.left <= 0) return {};
  const target = current * (1 - sw.settings.minSavingFraction);
  if (bound.lowerBound(sumRequests(member.pods, podRequests)) > target) return {};
  sw.model.rollback(c.fit);
  const r = relocate(sw, [member], checks);
  let lost = 'blocker' in r ? `no split: ${r.blocker}` : undefined;
  if (!('blocker' in r)) {
    const split: Component = { members: [member], fit: r.fit, replacements: r.replacements };
    const price = priceOf(split);
    if (split.replacements.length > 1 && price <= target) return { split };
    sw.model.rollback(r.fit);
    lost =
      split.replacements.length > 1
        ? `a split over ${split.replacements.length} new nodes ($${round(price)}/h) saves less than ${sw.settings.minSavingFraction * 100}% of $${round(current)}/h`
        : 'a full solve of its pods needs no more than one new node either';
  }
  c.fit = { ...sw.model.place(c.fit.placements), leftovers: c.fit.leftovers };
  return { lost };
}
