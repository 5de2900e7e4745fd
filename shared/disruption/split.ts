// Splitting one node: the pods that need new capacity spread over several smaller new nodes when that costs enough
// less than the one replacement node (or than keeping it). Batch consolidation bundles each node's leftover pods
// (those that fit on no staying node) into one synthetic pod, so it can only ever offer one new node, as Karpenter's
// single-node consolidation does: 10 pods of 900m end on a 16-vCPU node when an 8-vCPU node and a 2-vCPU one hold
// them for 37 % less. Solving the real leftover pods onto new capacity finds that. The placements on staying nodes
// are the batch's, unchanged. At most maxSplitChecks solves per consolidation batch, given to the nodes with the most
// to gain.
import type { Component } from './batch';
import { podRequests } from './pods';
import { type SingleNodeBound, sumRequests } from './relocate';
import { round, type Sweep } from './sweep';

/** What a split attempt found: the split to take, or, when one was solved for and lost, why (for the Keep record). */
export interface SplitTrial {
  split?: Component;
  lost?: string;
}

/** What a component's new nodes cost per hour, at their cheapest offerings. */
export const replacementPrice = (c: Component): number => c.replacements.reduce((s, r) => s + r.cheapest.price, 0);

/** Which single-node components get the sweep's split checks: those whose pods' cheapest possible price falls
 * furthest below what a split must beat (`current` less the minimum saving), so the bounded solves go where a split
 * can save the most rather than to the first candidates in disruption order. */
export function splitCandidates(
  sw: Sweep,
  options: readonly { c: Component; current: number }[],
  bound: SingleNodeBound,
): Set<Component> {
  const gaps = options
    .filter(({ c }) => c.members.length === 1 && !c.failure && c.fit.leftovers.length >= 2)
    .map(({ c, current }) => ({
      c,
      gap: current * (1 - sw.settings.minSavingFraction) - bound.lowerBound(sumRequests(c.fit.leftovers, podRequests)),
    }))
    .filter(({ gap }) => gap > 0)
    .sort((a, b) => b.gap - a.gap);
  return new Set(gaps.slice(0, sw.settings.maxSplitChecks).map(({ c }) => c));
}

/** A split of a component splitCandidates chose: it must save at least minSavingFraction over `current` (the price
 * of what batch consolidation would do: its replacement, or the node itself when it found none). */
export function splitNode(sw: Sweep, c: Component, current: number): SplitTrial {
  const member = c.members[0];
  if (!member) return {};
  const target = current * (1 - sw.settings.minSavingFraction);
  const r = sw.solveNew(c.fit.leftovers, `${member.name}--split`);
  if (r.unschedulable.length) return { lost: `no split: ${r.unschedulable[0]?.reason ?? 'a pod would not schedule'}` };
  const split: Component = { members: [member], fit: c.fit, replacements: r.nodeClaims };
  const price = replacementPrice(split);
  if (split.replacements.length > 1 && price <= target) return { split };
  return {
    lost:
      split.replacements.length > 1
        ? `a split over ${split.replacements.length} new nodes ($${round(price)}/h) saves less than ${sw.settings.minSavingFraction * 100}% of $${round(current)}/h`
        : 'its pods need no more than one new node either way',
  };
}
