// Splitting one node: its pods spread over several smaller new nodes when that costs enough less than the one
// replacement node (or than keeping it). Batch consolidation bundles each node's leftover pods into one synthetic pod,
// so it can only ever offer one new node, as Karpenter's single-node consolidation does: 10 pods of 900m end on a
// 16-vCPU node when two 4-vCPU nodes and a 2-vCPU one hold them for 37 % less. A full solve of the real pods finds
// that. It is bounded per sweep (maxSplitChecks) and skipped without a solve when the pods' cheapest possible price
// could not save enough.
import type { Component } from './batch';
import { podRequests } from './pods';
import { relocate, type SingleNodeBound, sumRequests } from './relocate';
import type { Sweep } from './sweep';

const priceOf = (c: Component): number => c.replacements.reduce((s, r) => s + r.cheapest.price, 0);

/**
 * A split of the component's one node that saves at least minSavingFraction over `current` (the price of what batch
 * consolidation would do: its replacement, or the node itself when it found none), or undefined. The model is left as
 * it was found: the component's own placements when no split wins, the split's when one does.
 */
export function splitNode(
  sw: Sweep,
  c: Component,
  current: number,
  bound: SingleNodeBound,
  checks: { left: number },
): Component | undefined {
  const member = c.members[0];
  if (c.members.length !== 1 || !member || c.failure || checks.left <= 0) return undefined;
  const target = current * (1 - sw.settings.minSavingFraction);
  if (bound.lowerBound(sumRequests(member.pods, podRequests)) > target) return undefined;
  sw.model.rollback(c.fit);
  const r = relocate(sw, [member], checks);
  if (!('blocker' in r)) {
    const split: Component = { members: [member], fit: r.fit, replacements: r.replacements };
    if (split.replacements.length > 1 && priceOf(split) <= target) return split;
    sw.model.rollback(r.fit);
  }
  c.fit = { ...sw.model.place(c.fit.placements), leftovers: c.fit.leftovers };
  return undefined;
}
